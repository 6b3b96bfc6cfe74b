"""The model gateway: one per arena process, serving every attempt (CONTRACT §8).

Each registered attempt gets a per-attempt token and its OWN unix socket
(``<root>/<attempt>-<rand>/gateway.sock``): the directory is bind-mounted read-only into
that attempt's sandbox, where ``relay.py`` forwards ``127.0.0.1:PORT`` to it. An attempt
registered with ``tcp=True`` (a host agent) also gets its OWN TCP listener on 127.0.0.1.
A request must present its attempt's token (``Authorization: Bearer`` or ``x-api-key``)
on that attempt's own socket or listener: a token is worth nothing anywhere else, and a
token presented on another attempt's socket is an ``integrity.finding`` of the attempt
that presented it. Once ``allow_uid(attempt, uid)`` names the uid its agent runs as, the
socket is owned by that uid with mode 0600 (0600 root before: nobody else connects) and
every connection's peer uid (SO_PEERCRED on the unix socket, the socket table for TCP)
must be that uid or the arena's own. The call is then forwarded (``forward.py``) to the upstream the
host's environment names, with the host's key in place of the token. The host's keys live
only in this process's memory: never in the socket directory, the sandbox's environment
or any file.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import secrets
import shutil
import socket
import struct
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable, Mapping

import aiohttp
from aiohttp import web

from arena.errors import UsageError
from arena.gateway.app import build_app
from arena.gateway.guard import GatewayBounds
from arena.gateway.limits import Usage, UsageLimits
from arena.gateway.prices import PriceTable
from arena.gateway.state import (  # noqa: F401  # Grant, SOCKET_NAME, split_model: imported from here too
    PROVIDERS,
    SOCKET_NAME,
    AttemptState,
    Emit,
    Grant,
    InFlight,
    _client_env,
    split_model,
)
from arena.gateway.transcript import TranscriptWriter

log = logging.getLogger(__name__)


class Gateway:
    def __init__(
        self,
        *,
        root: Path,
        env: Mapping[str, str] = os.environ,
        prices: PriceTable | None = None,
        transcript_dir: Path | None = None,
        now: Callable[[], float] = time.monotonic,
        bounds: GatewayBounds | None = None,
    ) -> None:
        self.root = Path(root)
        self.bounds = bounds if bounds is not None else GatewayBounds()
        self.env = env
        self.prices = prices if prices is not None else PriceTable.load(env)
        self.transcript_dir = Path(transcript_dir) if transcript_dir is not None else None
        self.now = now
        self.session: aiohttp.ClientSession | None = None
        self._runner: web.AppRunner | None = None
        self._by_token: dict[str, AttemptState] = {}
        self._by_sock: dict[str, AttemptState] = {}
        self._by_port: dict[int, AttemptState] = {}
        self._attempts: dict[str, AttemptState] = {}
        self._closing: list[asyncio.Task] = []
        self.inflight = InFlight()  # model calls under way, per attempt (inflight.py)
        self._tx = ThreadPoolExecutor(max_workers=1, thread_name_prefix="gw-transcript")

    # -- life cycle ----------------------------------------------------------------------
    async def start(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        os.chmod(self.root, 0o700)  # no other host uid reaches a socket by its path
        app = build_app(self, self.bounds)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await self._runner.setup()
        self.session = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=256),
            timeout=aiohttp.ClientTimeout(total=None, sock_connect=30, sock_read=600),
        )

    async def aclose(self) -> None:
        for st in list(self._by_token.values()):
            self.unregister(st.name)
        if self._closing:
            await asyncio.gather(*self._closing, return_exceptions=True)
        if self._runner is not None:
            await self._runner.cleanup()
        if self.session is not None:
            await self.session.close()
        self._tx.shutdown(wait=True)
        try:  # the arena's gw-<pid>/: empty once every attempt's socket dir is gone (issue 26)
            self.root.rmdir()
        except OSError:
            pass  # not empty (something else put there) or already gone

    # -- attempts ------------------------------------------------------------------------
    def register(self, attempt: str, *, model: str, limits: UsageLimits, emit: Emit, tcp: bool = True) -> Grant:
        """Open ``attempt``'s socket (listening when this returns) and give its grant;
        ``tcp``: also its own TCP listener on 127.0.0.1 (a host agent's; a sandboxed
        agent has only its socket, so its token is useless to anyone on the host).
        Raises UsageError for a bad model, or a cost limit on a model with no price."""
        if self._runner is None:
            raise RuntimeError("Gateway.start() has not been awaited")
        old = self._attempts.get(attempt)
        if old is not None and old.token in self._by_token:
            raise ValueError(f"attempt {attempt!r} is already registered with the gateway")
        provider, name = split_model(model)
        if limits.cost_usd is not None and self.prices.get(model) is None:
            raise UsageError(
                f"limits.cost_usd: model {model} has no price, so its cost "
                "cannot be limited; add it to a prices file (GAUNTLET_PRICES) "
                "or drop the cost limit"
            )
        safe = re.sub(r"[^A-Za-z0-9._-]", "_", attempt)[:40] or "_"
        sdir = self.root / f"{safe}-{secrets.token_hex(4)}"
        path = sdir / SOCKET_NAME
        if len(os.fsencode(path)) > 107:
            raise UsageError(
                f"gateway root {self.root} is too long for a unix socket path ({path}); use a shorter directory"
            )
        sdir.mkdir(mode=0o755)
        os.chmod(sdir, 0o755)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        tsock: socket.socket | None = None
        try:
            sock.bind(str(path))
            os.chmod(path, 0o600)  # the arena's alone until allow_uid names the agent's uid
            sock.listen(128)
            sock.setblocking(False)
            if tcp:
                tsock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                tsock.bind(("127.0.0.1", 0))
                tsock.listen(128)
                tsock.setblocking(False)
        except OSError:
            sock.close()
            if tsock is not None:
                tsock.close()
            shutil.rmtree(sdir, ignore_errors=True)
            raise
        token = "gw-" + secrets.token_urlsafe(32)
        st = AttemptState(attempt, model, provider, name, limits, emit, token, sdir, sock)
        if self.transcript_dir is not None:
            st.writer = TranscriptWriter(self.transcript_dir, attempt)
        st.site = web.SockSite(self._runner, sock)
        tcp_url = ""
        if tsock is not None:
            st.tcp_port = tsock.getsockname()[1]
            st.tcp_site = web.SockSite(self._runner, tsock)
            self._by_port[st.tcp_port] = st
            tcp_url = f"http://127.0.0.1:{st.tcp_port}"
        st.started = asyncio.get_running_loop().create_task(self._start_sites(st))
        self._attempts[attempt] = st
        self._by_token[token] = st
        self._by_sock[str(path)] = st
        return Grant(attempt, model, token, sdir, tcp_url)

    @staticmethod
    async def _start_sites(st: AttemptState) -> None:
        for site in (st.site, st.tcp_site):
            if site is not None:
                await site.start()

    def allow_uid(self, attempt: str, uid: int) -> None:
        """The uid ``attempt``'s agent runs as: its socket becomes that uid's (mode 0600)
        and connections from any other uid but the arena's own are refused."""
        st = self._attempts.get(attempt)
        if st is None or st.token not in self._by_token:
            raise KeyError(f"attempt {attempt!r} is not registered with the gateway")
        st.uid = uid
        if os.geteuid() == 0 and uid != 0:
            os.chown(st.socket_dir / SOCKET_NAME, uid, uid)

    def unregister(self, attempt: str) -> asyncio.Task:
        """Refuse the attempt's token from now on and close its socket. The returned task
        (awaiting it is optional) ends once the socket is gone and its transcript written.
        ``usage(attempt)`` stays readable."""
        st = self._attempts.get(attempt)
        if st is None or st.token not in self._by_token:
            raise KeyError(f"attempt {attempt!r} is not registered with the gateway")
        del self._by_token[st.token]
        self._by_sock.pop(str(st.socket_dir / SOCKET_NAME), None)
        if st.tcp_port is not None:
            self._by_port.pop(st.tcp_port, None)
        task = asyncio.get_running_loop().create_task(self._close_attempt(st))
        self._closing.append(task)
        return task

    async def _close_attempt(self, st: AttemptState) -> None:
        try:
            if st.started is not None:
                await st.started
            for site in (st.site, st.tcp_site):
                if site is not None:
                    await site.stop()
        finally:
            st.sock.close()
            shutil.rmtree(st.socket_dir, ignore_errors=True)
            if st.writes:
                await asyncio.gather(*st.writes, return_exceptions=True)

    def usage(self, attempt: str) -> Usage:
        st = self._attempts.get(attempt)
        if st is None:
            raise KeyError(f"attempt {attempt!r} is not registered with the gateway")
        return st.usage.copy()

    # -- used by forward.py --------------------------------------------------------------
    def authorize(self, request: web.Request) -> tuple[AttemptState | None, AttemptState | None]:
        """``(attempt, listener_attempt)``: the attempt whose token was presented (None
        unless it is valid on this connection: its own socket or listener, from its uid)
        and the attempt whose socket or TCP listener the request came in on."""
        auth = request.headers.get("Authorization", "")
        token = auth[7:].strip() if auth[:7].lower() == "bearer " else ""
        token = token or request.headers.get("x-api-key", "").strip()
        tr = request.transport
        sockname = tr.get_extra_info("sockname") if tr else None
        on: AttemptState | None = None
        if isinstance(sockname, str):
            on = self._by_sock.get(sockname)
        elif isinstance(sockname, tuple) and len(sockname) >= 2:
            on = self._by_port.get(sockname[1])
        st = self._by_token.get(token) if token else None
        if st is not None and not secrets.compare_digest(st.token, token):
            st = None
        if st is None or on is None:
            return None, on
        if st is not on:  # a token is good on its own attempt's socket or listener only
            where = _where(sockname)
            on.flag(
                "error",
                "foreign_gateway_token",
                f"presented the gateway token of another attempt ({st.name}) on its own {where}",
                st.name,
            )
            st.flag("warning", "gateway_token_stolen", f"its gateway token was presented by attempt {on.name}", on.name)
            return None, on
        if st.uid is not None and tr is not None:
            uid = peer_uid(tr)
            if uid is not None and uid not in (st.uid, os.geteuid(), 0):
                st.flag(
                    "warning",
                    "gateway_token_stolen",
                    f"its gateway token came from uid {uid} on its {_where(sockname)}, "
                    f"not its agent's uid {st.uid}; refused",
                    f"uid {uid}",
                )
                return None, on
        return st, on

    def transcript(
        self, st: AttemptState, meta: dict, request: bytes, response: bytes, response_len: int | None = None
    ) -> None:
        if st.writer is None:
            return
        fut = asyncio.get_running_loop().run_in_executor(
            self._tx, st.writer.record, meta, request, response, response_len
        )
        st.writes = [f for f in st.writes if not f.done()] + [fut]

    def upstream(self, provider: str) -> tuple[str, dict[str, str]]:
        """The URL to POST to and the auth header holding the host's key."""
        if provider == "openai":
            base = self.env.get("OPENAI_BASE_URL") or "https://api.openai.com/v1"
            key = self.env.get("OPENAI_API_KEY")
            return base.rstrip("/") + "/chat/completions", ({"Authorization": f"Bearer {key}"} if key else {})
        base = self.env.get("ANTHROPIC_BASE_URL") or "https://api.anthropic.com"
        key = self.env.get("ANTHROPIC_API_KEY")
        return base.rstrip("/") + "/v1/messages", ({"x-api-key": key} if key else {})


def _where(sockname: object) -> str:
    return "gateway socket" if isinstance(sockname, str) else "TCP listener"


def peer_uid(transport: "asyncio.BaseTransport | None") -> int | None:
    """The uid at the other end of a request's connection: SO_PEERCRED on a unix socket,
    the owner of the client's socket in /proc/net/tcp for loopback TCP; None if unknown."""
    if transport is None:
        return None
    sock = transport.get_extra_info("socket")
    if sock is None:
        return None
    try:
        if sock.family == socket.AF_UNIX:
            _pid, uid, _gid = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))
            return int(uid)
        if sock.family == socket.AF_INET:
            return _tcp_owner(sock.getpeername(), sock.getsockname())
    except OSError:
        return None
    return None


def _hex_addr(addr: tuple) -> str:
    ip = socket.inet_aton(addr[0])
    return f"{struct.unpack('<I', ip)[0]:08X}:{addr[1]:04X}"


def _tcp_owner(peer: tuple, local: tuple) -> int | None:
    """The uid owning the TCP socket whose local end is ``peer`` and remote ``local``."""
    want_local, want_remote = _hex_addr(peer), _hex_addr(local)
    try:
        with open("/proc/net/tcp", encoding="ascii") as f:
            next(f, None)
            for line in f:
                parts = line.split()
                if len(parts) > 7 and parts[1] == want_local and parts[2] == want_remote:
                    return int(parts[7])
    except OSError:
        return None
    return None
