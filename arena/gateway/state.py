"""What the gateway's parts share, with no part importing another: an attempt's grant
(its token, socket and listener), its state while registered (limits, usage, reservations,
transcript), the registry of calls under way, and ``GatewayView``, the surface of
``server.Gateway`` that ``guard``, ``inflight``, ``forward`` and ``routes`` use. So the
server imports its handlers and none of them imports the server (issue 24: no circle)."""

from __future__ import annotations

import asyncio
import logging
import socket
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Protocol

import aiohttp
from aiohttp import web

from arena.errors import UsageError
from arena.gateway.limits import Usage, UsageLimits
from arena.gateway.prices import PriceTable
from arena.gateway.transcript import TranscriptWriter

log = logging.getLogger("arena.gateway.server")
PROVIDERS = ("openai", "anthropic")
SOCKET_NAME = "gateway.sock"
Emit = Callable[[str, dict], None]


@dataclass(frozen=True)
class Grant:
    attempt: str
    model: str  # provider/model
    token: str = field(repr=False)  # the per-attempt secret the agent presents
    socket_dir: Path  # holds only this attempt's socket: bind-mount it read-only
    tcp_url: str  # http://127.0.0.1:PORT, this attempt's own listener ("" without tcp=True)

    @property
    def socket_path(self) -> Path:
        return self.socket_dir / SOCKET_NAME

    def sandbox_env(self, port: int) -> dict[str, str]:
        """The agent's environment inside the sandbox, where the relay listens on
        ``127.0.0.1:port``. Holds the attempt's token, never a host key."""
        return _client_env(f"http://127.0.0.1:{port}", self.token)

    def host_env(self) -> dict[str, str]:
        """The same for an agent on the host, talking to its TCP listener."""
        if not self.tcp_url:
            raise RuntimeError(f"attempt {self.attempt!r} was registered without a TCP listener (tcp=False)")
        return _client_env(self.tcp_url, self.token)


def _client_env(base: str, token: str) -> dict[str, str]:
    return {
        "OPENAI_BASE_URL": f"{base}/v1",
        "OPENAI_API_KEY": token,
        "ANTHROPIC_BASE_URL": base,
        "ANTHROPIC_API_KEY": token,
    }


def split_model(model: str, where: str = "model") -> tuple[str, str]:
    provider, _, name = model.partition("/")
    if provider not in PROVIDERS or not name:
        raise UsageError(
            f"{where}: expected <provider>/<model> with provider one of {', '.join(PROVIDERS)}, got {model!r}"
        )
    return provider, name


@dataclass
class AttemptState:
    name: str
    model: str
    provider: str
    model_name: str
    limits: UsageLimits
    emit: Emit
    token: str
    socket_dir: Path
    sock: socket.socket
    site: web.BaseSite | None = None
    tcp_site: web.BaseSite | None = None
    tcp_port: int | None = None
    uid: int | None = None  # the uid its agent runs as (allow_uid); None: not yet known
    flagged: set[tuple[str, str]] = field(default_factory=set)  # integrity findings already sent (once each)
    reserved_tokens: int = 0  # the worst case of calls under way (guard.py)
    reserved_cost: float = 0.0
    started: asyncio.Task | None = None
    usage: Usage = field(default_factory=Usage)
    reported: set[str] = field(default_factory=set)  # limits already sent as limit.reached
    writer: TranscriptWriter | None = None
    writes: list[asyncio.Future] = field(default_factory=list)

    def flag(self, severity: str, check: str, detail: str, key: str = "") -> None:
        """One ``integrity.finding`` per (check, key): a flood of refused calls is one."""
        if (check, key) not in self.flagged:
            self.flagged.add((check, key))
            self.send("integrity.finding", {"severity": severity, "check": check, "detail": detail})

    def send(self, kind: str, data: dict[str, Any]) -> None:
        try:
            self.emit(kind, data)
        except Exception:  # noqa: BLE001 — a broken subscriber must not break the call
            log.exception("gateway: emit(%s) for attempt %s failed", kind, self.name)


class InFlight:
    """The tasks serving each attempt's calls right now."""

    def __init__(self) -> None:
        self.calls: dict[str, set[asyncio.Task]] = {}

    def count(self, attempt: str) -> int:
        return len(self.calls.get(attempt, ()))


class GatewayView(Protocol):
    """The gateway as its request handlers see it (implemented by ``server.Gateway``)."""

    prices: PriceTable
    session: aiohttp.ClientSession | None
    now: Callable[[], float]
    inflight: InFlight
    _by_token: dict[str, AttemptState]

    def authorize(self, request: web.Request) -> tuple[AttemptState | None, AttemptState | None]: ...

    def transcript(
        self, st: AttemptState, meta: dict, request: bytes, response: bytes, response_len: int | None = None
    ) -> None: ...

    def upstream(self, provider: str) -> tuple[str, dict[str, str]]: ...
