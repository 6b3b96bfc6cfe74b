"""The per-attempt agent socket: a Unix socket speaking JSON lines.

One request ``{"op": ...}`` per line, one JSON reply per line. Requests larger than
``MAX_REQUEST`` bytes or that are not a JSON object with a string ``op`` get an error
reply (``{"ok": false, "code": "bad_request" | "too_large", ...}``); the connection is
kept and the attempt is unaffected. A handler that raises yields an ``internal`` error
reply, never a dropped connection.

With ``bounds`` (arena/agents/bounds.py, one per attempt): a connection past the
attempt's bound of connections held at once gets one reply ``too_many_connections`` and
is closed at once (its descriptor is freed: a flood of held connections cannot exhaust
the arena's file descriptors); a request past the attempt's request rate gets
``rate_limited`` without reaching the handler.

With ``idle_timeout`` (real seconds), a connection that sends no line for that long is
closed (the arena's control channel, arena/attempt/control.py; agent sockets have none).

The socket is mode 0600, the arena's, until ``allow_uid(uid)`` gives it to the uid the
attempt's agent runs as; from then a peer of any other uid (but the arena's) is refused.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import socket
import struct
from pathlib import Path
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Literal

if TYPE_CHECKING:
    from arena.agents.bounds import Bounds

log = logging.getLogger(__name__)

MAX_REQUEST = 64 * 1024  # bytes per request line, newline excluded
Handler = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]


def error(code: str, reason: str) -> dict[str, Any]:
    return {"ok": False, "code": code, "reason": reason}


def _encode(reply: dict[str, Any]) -> bytes:
    return (json.dumps(reply, separators=(",", ":"), default=str) + "\n").encode()


class _LineReader:
    """Reads newline-terminated lines with a size cap; an oversized line is consumed
    to its end and reported as ``None`` (one error reply, stream stays in sync)."""

    def __init__(self, reader: asyncio.StreamReader, limit: int) -> None:
        self._r = reader
        self._limit = limit
        self._buf = bytearray()

    async def next(self) -> bytes | None | Literal[False]:
        """A line (bytes), ``None`` for an oversized line, ``False`` at EOF."""
        oversized = False
        while True:
            nl = self._buf.find(b"\n")
            if nl >= 0:
                line = bytes(self._buf[:nl])
                del self._buf[: nl + 1]
                if oversized or len(line) > self._limit:
                    return None
                return line
            if len(self._buf) > self._limit:
                oversized = True
                self._buf.clear()
            chunk = await self._r.read(65536)
            if not chunk:
                if self._buf and not oversized:
                    line = bytes(self._buf)
                    self._buf.clear()
                    return line if len(line) <= self._limit else None
                return None if oversized else False
            self._buf.extend(chunk)


class AgentServer:
    """Serves one attempt's socket. ``handler`` gets the decoded request (an object
    with a string ``op``) and returns the reply object."""

    FORBIDDEN = "this socket belongs to another user's attempt"  # the refusal of a foreign uid

    def __init__(
        self,
        path: Path,
        handler: Handler,
        *,
        max_request: int = MAX_REQUEST,
        bounds: Bounds | None = None,
        idle_timeout: float | None = None,
    ) -> None:
        self.path = Path(path)
        self._idle = idle_timeout  # real seconds a connection may wait between lines (None: no limit)
        self._bounds = bounds
        self._handler = handler
        self._max = max_request
        self._server: asyncio.AbstractServer | None = None
        self._conns: set[asyncio.Task] = set()
        self.uid: int | None = None  # the agent's uid, once allow_uid named it

    async def start(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        self._server = await asyncio.start_unix_server(self._serve, path=str(self.path))
        # The arena's alone until allow_uid names the uid the attempt's agent runs as.
        os.chmod(self.path, 0o600)

    def allow_uid(self, uid: int) -> None:
        """The uid the attempt's agent runs as: the socket becomes that uid's (mode 0600)
        and a connection from any other uid but the arena's own is refused (SO_PEERCRED)."""
        self.uid = uid
        if os.geteuid() == 0 and uid != 0:
            os.chown(self.path, uid, uid)

    def _peer_allowed(self, writer: asyncio.StreamWriter) -> bool:
        if self.uid is None:
            return True
        sock = writer.get_extra_info("socket")
        try:
            _pid, uid, _gid = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))
        except (OSError, AttributeError):
            return False
        return uid in (self.uid, os.geteuid(), 0)

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
        for task in list(self._conns):
            task.cancel()
        for task in list(self._conns):
            with contextlib.suppress(BaseException):
                await task
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if not self._peer_allowed(writer):
            with contextlib.suppress(Exception):
                writer.write(_encode(error("forbidden", self.FORBIDDEN)))
            writer.transport.abort()
            return
        b = self._bounds
        if b is not None and not b.open_connection():
            with contextlib.suppress(Exception):
                writer.write(
                    _encode(error("too_many_connections", f"at most {b.limits.connections} connections at once"))
                )
            writer.transport.abort()  # never wait on a peer that does not read
            return
        task = asyncio.current_task()
        if task is not None:
            self._conns.add(task)
        lines = _LineReader(reader, self._max)
        try:
            while True:
                try:
                    line = await asyncio.wait_for(lines.next(), self._idle)
                except asyncio.TimeoutError:
                    break  # an idle peer gives its connection back
                if line is False:
                    break
                if line is None:
                    reply = error("too_large", f"request larger than {self._max} bytes")
                elif not line.strip():
                    continue
                elif b is not None and not b.request():
                    reply = error("rate_limited", "too many requests: slow down")
                else:
                    reply = await self._dispatch(line)
                writer.write(_encode(reply))
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            if task is not None:
                self._conns.discard(task)
            if b is not None:
                b.close_connection()
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _dispatch(self, line: bytes) -> dict[str, Any]:
        try:
            req = json.loads(line)
        except (ValueError, UnicodeDecodeError) as exc:
            return error("bad_request", f"request is not JSON: {exc}")
        except RecursionError:  # nested past the parser's depth: no traceback (issue 26)
            return error("bad_request", "request is not JSON: nested too deeply")
        if not isinstance(req, dict) or not isinstance(req.get("op"), str):
            return error("bad_request", 'request must be a JSON object with a string "op"')
        try:
            reply = await self._handler(req)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a handler bug must not take the attempt down
            log.exception("agent request %r failed", req.get("op"))
            return error("internal", f"{type(exc).__name__}: {exc}")
        return reply
