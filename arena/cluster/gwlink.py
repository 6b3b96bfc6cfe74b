"""The model gateway for attempts on a node: a tunnel over the attempt's own Ray actor.

The upstream keys never leave the command's machine. There the arena's one ``Gateway``
runs as in a local run and registers the remote attempt (its token, limits, transcript);
the node gets only the attempt's token (which its sandbox gets anyway). On the node,
``NodeGateway`` fills ``Shared._gateway``: ``register`` opens the attempt's unix socket
(bind-mounted into the sandbox, where ``relay.py`` serves ``127.0.0.1:4000`` as locally)
and a loopback TCP listener for host agents. Their connections are carried byte for byte:

    agent -> relay -> node socket --gw_pull--> GatewayLink -> the attempt's gateway socket
    agent <- relay <- node socket <-gw_push--- GatewayLink <- (upstream, the host's key)

The command's machine makes every call (``gw_pull`` long-polls the node's new bytes,
``gw_push`` brings back answers and the gateway's events in one ordered stream), so a
node needs no route to it: only the Ray connection the attempt already uses. Per-attempt
authentication is the gateway's own: the node's connections reach only that attempt's
socket, which accepts only that attempt's token. ``model.call``, ``model.tool_call``,
``limit.reached`` and ``infra.error`` are pushed ahead of the answer's last bytes and
published by the attempt on the node (so it ends at a limit as locally), then come home
with its other events. Items are numbered both ways; a repeated call is idempotent.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import secrets
import shutil
import socket
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Protocol

from arena.errors import UsageError
from arena.gateway.limits import Usage, UsageLimits
from arena.gateway.server import SOCKET_NAME, Grant

if TYPE_CHECKING:
    from arena.attempt.core import Attempt


class ClusterPlacer(Protocol):
    """What a driver-side link needs of the placer (arena/cluster/driver.py) — a Protocol, so
    this module does not import the driver that imports it."""

    ray: Any  # Any: the ray module (or a test's stand-in)
    shared: Any  # Any: the arena's Shared (its gateway)

    async def _get(self, ref: object) -> object: ...  # a Ray ObjectRef in, its value out


log = logging.getLogger(__name__)
CHUNK = 64 * 1024
Item = list  # ["open", cid] | ["data", cid, bytes] | ["eof", cid] | ["event", kind, data] | ["usage", [...]]


# -- the node's end ----------------------------------------------------------------------
class NodeGateway:
    """What an attempt on a node sees as ``shared.gateway()`` (register/unregister/usage)."""

    def __init__(self) -> None:
        self.info: dict[str, Any] | None = None  # {"model", "token"} or {"model", "error"}
        self.root: Path | None = None
        self.outbox: list[tuple[int, Item]] = []  # to the command's machine, until acked
        self.wake = asyncio.Event()
        self.applied = 0  # highest pushed item applied
        self._n = 0
        self._cid = 0
        self._conns: dict[int, asyncio.StreamWriter] = {}
        self._servers: list[asyncio.AbstractServer] = []
        self._socks: list[socket.socket] = []
        self._dir: Path | None = None
        self._emit: Callable[[str, dict], None] | None = None
        self._usage = Usage()

    def configure(self, info: dict[str, Any], root: Path) -> None:
        self.info, self.root = info, root

    def register(
        self, attempt: str, *, model: str, limits: UsageLimits, emit: Callable[[str, dict], None], tcp: bool = True
    ) -> Grant:
        info = self.info
        if info is None or self.root is None:
            raise RuntimeError("no gateway grant came with this attempt")
        if info.get("error"):
            raise UsageError(info["error"])  # what the command machine's gateway refused
        if model != info["model"]:
            raise UsageError(f"model {model}: the command's machine granted {info['model']}")
        self._emit = emit
        safe = re.sub(r"[^A-Za-z0-9._-]", "_", attempt)[:40] or "_"
        self._dir = self.root / f"{safe}-{secrets.token_hex(4)}"
        self._dir.mkdir(parents=True, mode=0o755)
        os.chmod(self._dir, 0o755)
        unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        tsock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socks = [unix, tsock]
        unix.bind(str(self._dir / SOCKET_NAME))
        os.chmod(self._dir / SOCKET_NAME, 0o666)  # the sandbox's user connects; the token guards it
        tsock.bind(("127.0.0.1", 0))
        for s in self._socks:  # listening when this returns, like Gateway.register
            s.listen(128)
            s.setblocking(False)
        loop = asyncio.get_running_loop()
        self._starting = loop.create_task(self._serve(unix, tsock))
        return Grant(attempt, model, info["token"], self._dir, f"http://127.0.0.1:{tsock.getsockname()[1]}")

    async def _serve(self, unix: socket.socket, tcp: socket.socket) -> None:
        self._servers = [
            await asyncio.start_unix_server(self._client, sock=unix, limit=CHUNK),
            await asyncio.start_server(self._client, sock=tcp, limit=CHUNK),
        ]

    def _send(self, item: Item) -> None:
        self._n += 1
        self.outbox.append((self._n, item))
        self.wake.set()

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._cid += 1
        cid = self._cid
        self._conns[cid] = writer
        self._send(["open", cid])
        try:
            while data := await reader.read(CHUNK):
                self._send(["data", cid, data])
        except OSError:
            pass
        self._send(["eof", cid])

    async def pull(self, acked: int, wait_s: float) -> list[tuple[int, Item]]:
        """Drop what the command's machine has taken (``acked``), then every item after it
        (waiting up to ``wait_s`` for one)."""
        self.outbox = [(n, i) for n, i in self.outbox if n > acked]
        if not self.outbox:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.wake.wait(), wait_s)
            await asyncio.sleep(0.002)  # let a request's pieces gather into one answer
        self.wake.clear()
        return list(self.outbox)

    def push(self, items: list[tuple[int, Item]]) -> None:
        for n, item in items:
            if n <= self.applied:
                continue  # a repeated push
            self.applied = n
            kind = item[0]
            if kind == "event" and self._emit is not None:
                try:
                    self._emit(item[1], item[2])
                except Exception:  # noqa: BLE001 - a broken subscriber must not break the call
                    log.exception("gateway event %s for the attempt failed", item[1])
            elif kind == "usage":
                self._usage = Usage(*item[1])
            elif kind == "data" and (w := self._conns.get(item[1])) is not None:
                w.write(item[2])
            elif kind == "eof" and (w := self._conns.pop(item[1], None)) is not None:
                with contextlib.suppress(OSError):
                    if w.can_write_eof():
                        w.write_eof()
                w.close()

    def usage(self, attempt: str) -> Usage:
        return self._usage.copy()

    def unregister(self, attempt: str) -> asyncio.Task:
        return asyncio.get_running_loop().create_task(self.aclose())

    async def aclose(self) -> None:
        starting = getattr(self, "_starting", None)
        if starting is not None:
            with contextlib.suppress(BaseException):
                await starting
        for srv in self._servers:
            srv.close()
        self._servers = []
        for s in self._socks:
            s.close()
        for w in self._conns.values():
            w.close()
        self._conns.clear()
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)


# -- the command machine's end ------------------------------------------------------------
class GatewayLink:
    """One remote attempt's grant on the command machine's gateway, and the two loops
    joining the node's connections to the attempt's gateway socket."""

    def __init__(self, placer: "ClusterPlacer", attempt: "Attempt") -> None:
        self.placer, self.a = placer, attempt
        self.gw: Any = None
        self.grant: Grant | None = None
        self.out: list[tuple[int, Item]] = []
        self.wake = asyncio.Event()
        self._n = 0
        self._conns: dict[int, asyncio.StreamWriter] = {}
        self._tasks: set[asyncio.Task] = set()

    async def open(self) -> dict[str, Any] | None:
        """Register the attempt (if its agent has a model): what the node is sent."""
        model = self.a.support.model()
        if not model:
            return None
        try:
            limits = self.a.support.limits()
            self.gw = await self.placer.shared.gateway()
            self.grant = self.gw.register(self.a.id, model=model, limits=limits, emit=self._emit, tcp=False)
        except UsageError as exc:  # raised again on the node, where a local run raises it
            return {"model": model, "error": str(exc)}
        return {"model": model, "token": self.grant.token}

    def start(self, actor: Any) -> None:  # Any: a Ray actor handle
        if self.grant is not None:
            for coro in (self._pull_loop(actor), self._push_loop(actor)):
                self._spawn(coro)

    def _spawn(self, coro: Any) -> None:  # Any: a coroutine of either loop
        t = asyncio.ensure_future(coro)
        self._tasks.add(t)
        t.add_done_callback(self._tasks.discard)

    def _send(self, item: Item) -> None:
        self._n += 1
        self.out.append((self._n, item))
        self.wake.set()

    def _emit(self, kind: str, data: dict) -> None:
        self._send(["event", kind, data])
        u = self.gw.usage(self.a.id)
        self._send(["usage", [u.input_tokens, u.output_tokens, u.calls, u.cost_usd]])

    # Any: a Ray ObjectRef in, whatever the actor's method returns out
    async def _call(self, ref_of: Callable[[], Any]) -> Any:
        """A call on the attempt's actor, retried while Ray says it is briefly unavailable."""
        ray = self.placer.ray
        for _ in range(20):
            try:
                return await self.placer._get(ref_of())
            except ray.exceptions.ActorUnavailableError:
                await asyncio.sleep(1.0)  # infrastructure retry, not attempt logic
        return await self.placer._get(ref_of())

    async def _pull_loop(self, actor: Any) -> None:  # Any: a Ray actor handle
        acked = 0
        try:
            while True:
                items = await self._call(lambda: actor.gw_pull.remote(acked, 1.0))
                for n, item in items:
                    if n > acked:
                        acked = n
                        await self._from_node(item)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - the node is gone: the event pump says so
            log.debug("attempt %s: gateway pull ended: %s", self.a.id, exc)

    async def _from_node(self, item: Item) -> None:
        kind, cid = item[0], item[1]
        if kind == "open":
            assert self.grant is not None
            try:
                reader, writer = await asyncio.open_unix_connection(str(self.grant.socket_path), limit=CHUNK)
            except OSError as exc:
                self._send(["data", cid, _bad_gateway(f"the gateway is closed: {exc}")])
                self._send(["eof", cid])
                return
            self._conns[cid] = writer
            self._spawn(self._answers(cid, reader, writer))
        elif (w := self._conns.get(cid)) is not None:
            with contextlib.suppress(OSError):
                if kind == "data":
                    w.write(item[2])
                    await w.drain()
                elif kind == "eof" and w.can_write_eof():
                    w.write_eof()

    async def _answers(self, cid: int, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(CHUNK):
                self._send(["data", cid, data])
        except OSError:
            pass
        finally:
            self._send(["eof", cid])
            self._conns.pop(cid, None)
            writer.close()

    async def _push_loop(self, actor: Any) -> None:  # Any: a Ray actor handle
        try:
            while True:
                if not self.out:
                    await self.wake.wait()
                    self.wake.clear()
                    continue
                batch = list(self.out)
                await self._call(lambda: actor.gw_push.remote(batch))
                del self.out[: len(batch)]
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - the node is gone: the event pump says so
            log.debug("attempt %s: gateway push ended: %s", self.a.id, exc)

    async def close(self) -> None:
        for t in list(self._tasks):
            t.cancel()
        for t in list(self._tasks):
            with contextlib.suppress(BaseException):
                await t
        for w in self._conns.values():
            w.close()
        self._conns.clear()
        if self.grant is not None:
            with contextlib.suppress(Exception):
                await self.gw.unregister(self.a.id)  # its transcript is written then
            self.grant = None


def _bad_gateway(detail: str) -> bytes:
    import json  # noqa: PLC0415

    body = json.dumps({"error": {"type": "relay_error", "message": detail}}).encode()
    return (
        b"HTTP/1.1 502 Bad Gateway\r\nContent-Type: application/json\r\nContent-Length: "
        + str(len(body)).encode()
        + b"\r\nConnection: close\r\n\r\n"
        + body
    )
