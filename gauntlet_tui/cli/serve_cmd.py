"""``gauntlet serve [--port P] [--host H] [--store DB] [--read-only]``: the live arena in
browsers, for the room at an event (textual-serve).

Each browser that opens the page gets its own ``gauntlet home --store DB`` process: a
follower of the store (``gauntlet_tui.follow``, the safe second reader), so the attempts
that the operator's ``gauntlet demo``/``arena``/``run`` writes there appear and advance on
every page. A page that closes ends its process and nothing else.

Watchers are read-only (``GauntletApp.may_act``): they browse the dashboard, the big board,
attempts, scorecards and Standings, and are refused stop, submit, shell and start. The
operator token printed at start, given as ``?token=…`` in the page's address, makes that
page's session an operator's. ``--read-only`` prints no token: every page is a watcher's.
Nothing else is written on the server by a session (no theme setting, no screenshot).

Bounded (issue 36), so no watcher can exhaust the server: at most ``--max-watchers``
watcher sessions at once (default ``DEFAULT_MAX_WATCHERS``) and ``OPERATOR_SESSIONS``
operator ones; a page past the cap gets 503 "the room is full" (the page and its
websocket). Every terminal size, the first and every later ``resize``, is clamped to
``MIN_SIZE``..``MAX_SIZE`` cells. A websocket message is at most ``WS_MAX_MSG`` bytes;
a malformed one is ignored. A session ends with its websocket (closed, or silent past the
heartbeat): its process is asked to quit and killed if it has not gone after
``STOP_GRACE_S``; a session whose process does not take its input for ``INPUT_TIMEOUT_S``
is ended the same way.
"""

from __future__ import annotations

import argparse
import asyncio
import hmac
import secrets
import shlex
import socket
import sys
from pathlib import Path
from typing import Any

from arena.errors import UsageError
from arena.paths import store_path
from gauntlet_tui.cli.tui_cmd import SERVED_ENV

SQLITE_MAGIC = b"SQLite format 3\x00"
DEFAULT_MAX_WATCHERS = 16  # watcher sessions at once (each one process, see docs/screens.md)
OPERATOR_SESSIONS = 4  # operator sessions at once (the token's holder: a few pages)
MIN_SIZE = (10, 5)  # columns, rows of a session's terminal
MAX_SIZE = (400, 150)  # a 4K projector at a small font; a cell more costs every redraw
WS_MAX_MSG = 64 * 1024  # bytes of one websocket message from a page (keys, a resize)
STOP_GRACE_S = 3.0  # a session asked to quit is killed after this
INPUT_TIMEOUT_S = 10.0  # a session that does not take a page's input for this long is ended


def clamp_size(width: object, height: object) -> tuple[int, int]:
    """A page's terminal size within ``MIN_SIZE``..``MAX_SIZE`` (anything else: 80x24)."""

    def one(v: object, default: int, lo: int, hi: int) -> int:
        try:
            n = int(v)  # type: ignore[call-overload]  # a str from the query, a number from JSON
        except (TypeError, ValueError, OverflowError):
            return default
        return max(lo, min(hi, n))

    return one(width, 80, MIN_SIZE[0], MAX_SIZE[0]), one(height, 24, MIN_SIZE[1], MAX_SIZE[1])


def _max_watchers(value: str) -> int:
    try:
        n = int(value)
    except ValueError:
        n = -1
    if n < 0:
        raise argparse.ArgumentTypeError(f"expected a whole number of sessions >= 0, got {value!r}")
    return n


def _port(value: str) -> int:
    try:
        port = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number (1-65535), got {value!r}") from None
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"expected a port number (1-65535), got {value!r}")
    return port


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "serve", help="the live arena in browsers: each page follows the store, read-only without the operator token"
    )
    p.add_argument("--port", type=_port, default=8000, help="TCP port (default 8000)")
    p.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1; 0.0.0.0 for the room's network)"
    )
    p.add_argument("--store", help="store database to follow (default ./gauntlet.db or $GAUNTLET_STORE)")
    p.add_argument(
        "--read-only", action="store_true", help="no operator token: every page is a watcher's, nobody can act"
    )
    p.add_argument(
        "--max-watchers",
        type=_max_watchers,
        default=DEFAULT_MAX_WATCHERS,
        help=f"watcher pages open at once (default {DEFAULT_MAX_WATCHERS}; each is one process, about 60 MB); "
        "more get 503 'the room is full'",
    )
    p.set_defaults(func=cmd_serve)


def check_store(db: Path) -> None:
    """A store that exists must be a SQLite file; one that does not yet is waited for (the
    operator may start the demo after the server), but its folder must exist."""
    if db.exists():
        if not db.is_file():
            raise UsageError(f"--store: {db}: not a file (expected a Gauntlet database)")
        with db.open("rb") as f:
            if f.read(16) != SQLITE_MAGIC:
                raise UsageError(f"--store: {db}: not a Gauntlet database (not SQLite)")
    elif not db.parent.is_dir():
        raise UsageError(f"--store: {db}: its folder {db.parent} does not exist")


def check_port(host: str, port: int) -> None:
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise UsageError(f"--host: {host!r}: not an address of this machine ({exc.strerror})") from None
    family, _, _, _, addr = infos[0]
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(addr)
        except OSError as exc:
            raise UsageError(f"--port: cannot listen on {host}:{port}: {exc.strerror}") from None


def session_command(db: Path) -> str:
    """The shell command textual-serve runs for each browser (its own follower process)."""
    return f"exec {shlex.quote(sys.executable)} -m gauntlet_tui home --store {shlex.quote(str(db))}"


def make_server(db: Path, *, host: str, port: int, token: str | None, max_watchers: int = DEFAULT_MAX_WATCHERS) -> Any:
    import aiohttp_jinja2
    from aiohttp import WSMsgType, web
    from textual_serve.app_service import AppService
    from textual_serve.server import Server

    class Session(AppService):
        """One browser's app process, told whether it is a watcher's or the operator's."""

        def __init__(self, *args: Any, role: str, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.role = role

        def _build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
            env = super()._build_environment(width=width, height=height)
            env[SERVED_ENV] = self.role
            return env

    class ArenaServer(Server):
        def __init__(self) -> None:
            super().__init__(session_command(db), host=host, port=port, title="Gauntlet")
            self.token = token
            self.sessions = 0  # open browser sessions (each one process)
            self.open = {"watcher": 0, "operator": 0}
            self.caps = {"watcher": max_watchers, "operator": OPERATOR_SESSIONS}

        def _full(self, role: str) -> Any:
            """A 503 when ``role``'s sessions are at their cap (None: there is room)."""
            if self.open[role] < self.caps[role]:
                return None
            return web.HTTPServiceUnavailable(
                text=f"gauntlet serve: the room is full ({self.caps[role]} {role} pages open); try again later\n",
                headers={"Retry-After": "30"},
            )

        def _token_ok(self, given: str | None) -> bool:
            return self.token is not None and given is not None and hmac.compare_digest(given, self.token)

        async def _make_app(self) -> web.Application:
            app = await super()._make_app()
            if self.token is not None:
                app.router.add_get("/ws/operator/{token}", self.handle_websocket, name="operator-websocket")
            return app

        @aiohttp_jinja2.template("app_index.html")
        async def handle_index(self, request: web.Request) -> dict[str, Any]:
            given = request.query.get("token")
            if given is not None and not self._token_ok(given):
                raise web.HTTPForbidden(
                    text="gauntlet serve: wrong operator token (see the server's output)\n"
                    if self.token
                    else "gauntlet serve: --read-only: there is no operator\n"
                )
            full = self._full("operator" if given is not None else "watcher")
            if full is not None:
                raise full
            # Addresses as the browser reached the server (it may listen on 0.0.0.0).
            base = f"{request.scheme}://{request.host}"
            ws = ("wss://" if request.secure else "ws://") + request.host
            ws += f"/ws/operator/{given}" if given is not None else "/ws"
            return {
                "font_size": max(6, min(40, _int(request.query.get("fontsize"), 16))),
                "app_websocket_url": ws,
                "config": {"static": {"url": f"{base}/static/"}},
                "application": {"name": "Gauntlet (operator)" if given else "Gauntlet"},
            }

        async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
            given = request.match_info.get("token")
            if given is not None and not self._token_ok(given):
                raise web.HTTPForbidden(text="wrong operator token\n")
            role = "operator" if given is not None else "watcher"
            full = self._full(role)
            if full is not None:
                raise full
            width, height = clamp_size(request.query.get("width"), request.query.get("height"))
            websocket = web.WebSocketResponse(heartbeat=15, max_msg_size=WS_MAX_MSG)
            service: Any = None
            self.open[role] += 1  # counted before any await: the cap holds under a burst
            try:
                await websocket.prepare(request)
                service = Session(
                    self.command,
                    write_bytes=websocket.send_bytes,
                    write_str=websocket.send_str,
                    close=websocket.close,
                    download_manager=self.download_manager,
                    debug=self.debug,
                    role=role,
                )
                self.sessions += 1
                await service.start(width, height)
                await self._process_messages(websocket, service)
            except Exception as exc:  # noqa: BLE001 — one broken page must not stop the server
                if not isinstance(exc, ConnectionError):
                    print(f"gauntlet serve: a session failed: {exc}", file=sys.stderr, flush=True)
            finally:
                self.open[role] -= 1
                if service is not None:
                    self.sessions -= 1
                    await end_session(service)  # the page left: its process ends, nothing else
            return websocket

        async def _process_messages(self, websocket: web.WebSocketResponse, app_service: Any) -> None:
            """textual-serve's loop, bounded: every resize clamped, malformed messages
            ignored, a process that does not take the page's input ends the session."""
            async for message in websocket:
                if message.type != WSMsgType.TEXT:
                    continue
                try:
                    envelope = message.json()
                    kind, data = envelope[0], (envelope[1] if len(envelope) > 1 else None)
                except (ValueError, TypeError, KeyError, IndexError):
                    continue  # ["focus"] and ["blur"] come without data
                if kind == "stdin" and isinstance(data, str):
                    step = app_service.send_bytes(data.encode("utf-8", "replace"))
                elif kind == "resize" and isinstance(data, dict):
                    step = app_service.set_terminal_size(*clamp_size(data.get("width"), data.get("height")))
                elif kind == "ping":
                    step = websocket.send_json(["pong", data])
                elif kind in ("blur", "focus"):
                    step = getattr(app_service, kind)()
                else:
                    continue
                try:
                    await asyncio.wait_for(step, INPUT_TIMEOUT_S)
                except asyncio.TimeoutError:
                    print("gauntlet serve: a session did not take its input: ended", file=sys.stderr, flush=True)
                    return

        async def on_startup(self, app: web.Application) -> None:
            where = f"http://{host}:{port}/"
            print(f"gauntlet serve: following {db}", flush=True)
            print(f"  watchers (read-only): {where}", flush=True)
            print(f"  at most {max_watchers} watcher pages at once (--max-watchers)", flush=True)
            if self.token:
                print(f"  operator:             {where}?token={self.token}", flush=True)
            else:
                print("  --read-only: no operator token, nobody can act from a page", flush=True)
            print("  Ctrl+C stops the server (and every page's session)", flush=True)

    return ArenaServer()


def _int(value: str | None, default: int) -> int:
    try:
        return max(10, min(1000, int(value or "")))
    except ValueError:
        return default


async def end_session(service: Any) -> None:
    """Ask a session's process to quit; kill it if it has not gone after ``STOP_GRACE_S``
    (a process stopped, or busy drawing, never reads the quit)."""
    stopping = asyncio.ensure_future(service.stop())
    try:
        await asyncio.wait_for(asyncio.shield(stopping), STOP_GRACE_S)
        return
    except asyncio.TimeoutError:
        pass
    except Exception:  # noqa: BLE001 — its pipes already broke: kill it all the same
        pass
    proc = getattr(service, "_process", None)
    if proc is not None and proc.returncode is None:
        try:
            proc.kill()
        except ProcessLookupError:
            pass
    try:
        await asyncio.wait_for(stopping, STOP_GRACE_S)  # its output ends with it
    except (asyncio.TimeoutError, Exception):  # noqa: BLE001
        pass


def cmd_serve(args: argparse.Namespace) -> int:
    try:
        import textual_serve  # noqa: F401
    except ModuleNotFoundError:
        raise UsageError("serve: textual-serve is not installed (pip install textual-serve)") from None
    db = store_path(args.store).resolve()
    check_store(db)
    check_port(args.host, args.port)
    token = None if args.read_only else secrets.token_urlsafe(18)
    server = make_server(db, host=args.host, port=args.port, token=token, max_watchers=args.max_watchers)
    try:
        server.serve()
    except OSError as exc:  # taken between the check and the bind
        raise UsageError(f"--port: cannot listen on {args.host}:{args.port}: {exc.strerror or exc}") from None
    return 0
