"""The arena's control channel: another process of the same user asks it to stop an attempt.

A process that runs attempts (``gauntlet run``/``arena``/``demo``, the TUI) listens on one
unix socket, ``<GAUNTLET_SOCKETS>/ctl-<pid>.sock``, where ``pid`` is the ``runner_pid`` its
attempts record in ``attempt.started``/``attempt.resumed`` (the cluster driver records its
own pid for the attempts it places). The socket is mode 0600 and every connection's peer is
checked (SO_PEERCRED): only the arena's own uid, or root, is served; any other gets one
``forbidden`` reply and is closed. One JSON object per line, one reply per line:

    {"op": "stop", "attempt": "a-1234abcd"}  -> {"ok": true, "attempt": ..., "pid": ...}
    {"op": "ping"}                           -> {"ok": true, "pid": ..., "attempts": [...]}

A refusal is ``{"ok": false, "code": ..., "reason": ...}`` with code ``unknown_attempt`` (not
run by this process), ``refused`` (already over, or not placed yet), ``bad_request`` (not
JSON, no string ``op``, an unknown op, no ``attempt``), ``too_large`` (a line past 4 KiB),
``too_many_connections`` (past 16 at once; a connection silent for 10 s is closed) or
``rate_limited``; bad input never ends the channel or an attempt. A stopped attempt ends
exactly as the TUI's stop key ends it: ``interrupted``, "stopped by the operator".

``ask_stop(store, attempt)`` is the client: it finds the attempt's runner in the store and
asks that runner's channel; every failure is a ``Reply`` saying why, never an exception.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from arena import events as ev
from arena import paths
from arena.agents.bounds import BoundLimits, Bounds
from arena.agents.server import AgentServer, error
from arena.clock import RealTime

if TYPE_CHECKING:
    from store import Store

log = logging.getLogger(__name__)

MAX_LINE = 4096  # bytes per request line
LIMITS = BoundLimits(connections=16, requests_per_s=20.0, requests_burst=100)
IDLE_TIMEOUT_S = 10.0  # real seconds a connection may stay silent before it is closed
REPLY_TIMEOUT_S = 5.0  # real seconds the client waits for the arena's answer
STOPPED = "stopped by the operator"  # the reason a stopped attempt ends with (as the TUI's stop key)
Stop = Callable[[], "str | None"]  # asks the attempt to end: None, or why it cannot


def socket_path(store_path: Path, pid: int) -> Path:
    """Where runner ``pid``'s control channel listens (the runner_pid of its attempts)."""
    return paths.sockets_root(store_path) / f"ctl-{pid}.sock"


class _Socket(AgentServer):
    FORBIDDEN = "the arena's control channel serves its own user (or root) only"


class ControlServer:
    """One per process (``acquire``/``release``): every arena of the process registers the
    attempts it runs with a callable that stops each."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.stops: dict[str, Stop] = {}
        self.users = 0
        self.loop = asyncio.get_running_loop()
        bounds = Bounds(now=RealTime().now, limits=LIMITS, on_hit=self._hit)
        self._socket = _Socket(path, self._handle, max_request=MAX_LINE, bounds=bounds, idle_timeout=IDLE_TIMEOUT_S)

    @staticmethod
    def _hit(name: str, data: dict[str, Any]) -> None:
        log.warning("control channel: bound %s reached (%s)", name, data)

    async def start(self) -> None:
        self._socket.allow_uid(os.geteuid())  # the arena's own uid, or root: checked from the first peer
        await self._socket.start()

    async def close(self) -> None:
        await self._socket.close()

    def register(self, attempt: str, stop: Stop) -> None:
        self.stops[attempt] = stop

    def unregister(self, attempt: str) -> None:
        self.stops.pop(attempt, None)

    async def _handle(self, req: dict[str, Any]) -> dict[str, Any]:
        op = req["op"]
        if op == "ping":
            return {"ok": True, "pid": os.getpid(), "attempts": sorted(self.stops)}
        if op != "stop":
            return error("bad_request", f'unknown op {op[:40]!r}: expected "stop" or "ping"')
        attempt = req.get("attempt")
        if not isinstance(attempt, str) or not attempt:
            return error("bad_request", 'stop needs "attempt": the id of an attempt (a string)')
        stop = self.stops.get(attempt)
        if stop is None:
            return error("unknown_attempt", f"{attempt[:40]}: not an attempt this arena (pid {os.getpid()}) runs")
        why = stop()
        if why is not None:
            return error("refused", f"{attempt}: {why}")
        log.info("control channel: %s stopped by the operator", attempt)
        return {"ok": True, "attempt": attempt, "pid": os.getpid()}


_current: ControlServer | None = None


async def acquire(store_path: Path) -> ControlServer | None:
    """This process's channel, started on first use; None if it cannot listen (the arena
    runs on, its attempts just cannot be stopped from another process)."""
    global _current
    loop = asyncio.get_running_loop()
    if _current is not None and _current.loop is not loop:
        _current = None  # a channel of a loop that has ended (tests): start a new one
    if _current is None:
        _sweep(paths.sockets_root(Path(store_path)))
        server = ControlServer(socket_path(Path(store_path), os.getpid()))
        try:
            await server.start()
        except OSError as exc:
            log.warning("no control channel at %s: %s", server.path, exc)
            return None
        _current = server
    _current.users += 1
    return _current


def _sweep(root: Path) -> None:
    """Remove the channels of runners that have ended without closing theirs (a kill)."""
    for p in root.glob("ctl-*.sock"):
        pid = p.name[4:-5]
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            with contextlib.suppress(OSError):
                p.unlink()


async def release(server: ControlServer | None) -> None:
    global _current
    if server is None:
        return
    server.users -= 1
    if server.users <= 0:
        if _current is server:
            _current = None
        with contextlib.suppress(Exception):
            await server.close()


# -- the client ----------------------------------------------------------------------
@dataclass(frozen=True)
class Reply:
    ok: bool
    reason: str = ""
    pid: int | None = None  # the runner asked


async def runner_pid(store: Store, attempt: str) -> int | None:
    """The process that runs ``attempt`` now: the runner_pid of its latest start/resume."""
    events = await store.events(attempt, kinds=(ev.ATTEMPT_STARTED, ev.ATTEMPT_RESUMED))
    for e in reversed(events):
        pid = e.data.get("runner_pid")
        if isinstance(pid, int) and pid > 0:
            return pid
    return None


async def ask_stop(store: Store, attempt: str) -> Reply:
    """Ask the arena that runs ``attempt`` (found in ``store``) to stop it."""
    pid = await runner_pid(store, attempt)
    if pid is None:
        return Reply(False, "the store names no process running it")
    return await request(socket_path(Path(store.path), pid), {"op": "stop", "attempt": attempt}, pid=pid)


async def request(path: Path, req: dict[str, Any], *, pid: int | None = None) -> Reply:
    """One request on a control channel; its answer as a ``Reply``."""
    who = f"its arena (pid {pid})" if pid else "the arena"
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_unix_connection(str(path)), REPLY_TIMEOUT_S)
    except PermissionError:
        return Reply(False, f"{who}: its control channel belongs to another user", pid)
    except (FileNotFoundError, ConnectionRefusedError):
        return Reply(False, f"{who} has no control channel (it has ended, or runs elsewhere)", pid)
    except (OSError, asyncio.TimeoutError) as exc:
        return Reply(False, f"{who}: cannot reach its control channel ({exc or 'timed out'})", pid)
    try:
        writer.write((json.dumps(req) + "\n").encode())
        await writer.drain()
        line = await asyncio.wait_for(reader.readline(), REPLY_TIMEOUT_S)
    except (OSError, asyncio.TimeoutError, ValueError) as exc:
        return Reply(False, f"{who} did not answer ({exc or 'timed out'})", pid)
    finally:
        writer.close()
        with contextlib.suppress(Exception):
            await writer.wait_closed()
    try:
        answer = json.loads(line)
    except ValueError:
        answer = None
    if not isinstance(answer, dict):
        return Reply(False, f"{who} gave an answer that is not a JSON object: {line[:80]!r}", pid)
    if answer.get("ok") is True:
        return Reply(True, "", pid)
    return Reply(False, str(answer.get("reason") or answer.get("code") or "refused"), pid)
