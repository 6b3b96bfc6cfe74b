"""Per-attempt bounds inside the arena: what one attempt may cost the arena process.

One ``Bounds`` per attempt. Each bound is named (``BOUND_NAMES``); the first time a bound
is hit, ``on_hit(name, data)`` is called ONCE (the attempt publishes one
``bound.reached {bound, allowed, unit, detail}`` event); later hits are only counted
(``hits[name]``) and never logged again, so a flood leaves one event, not a flood of
tracebacks. One attempt reaching a bound changes nothing for another attempt: the
counters are its own.

Rates are token buckets over an injected ``now()`` (the attempt clock's elapsed seconds
in the arena; tests pass their own), so no real time enters the decision.
"""

from __future__ import annotations

import resource
from dataclasses import dataclass, field
from typing import Any, Callable


@dataclass(frozen=True)
class BoundLimits:
    connections: int = 32  # agent-socket connections held at once, per attempt
    requests_per_s: float = 50.0  # agent-socket requests (token bucket)
    requests_burst: int = 500
    messages: int = 1000  # ``message`` requests per attempt
    message_bytes: int = 1 << 20  # total ``message`` text per attempt (UTF-8 bytes)
    output_bytes: int = 1 << 20  # ``agent.output`` text recorded per attempt
    events_per_s: float = 200.0  # agent-driven events stored (token bucket)
    events_burst: int = 5000


BOUND_NAMES = (
    "connections",
    "requests",
    "messages",
    "message_bytes",
    "output_bytes",
    "events",
    "watch_files",
    "watch_bytes",
)
_UNITS = {
    "connections": "connections",
    "requests": "requests/s",
    "messages": "messages",
    "message_bytes": "bytes",
    "output_bytes": "bytes",
    "events": "events/s",
    "watch_files": "files/scan",
    "watch_bytes": "bytes/scan",
}
OnHit = Callable[[str, dict[str, Any]], object]  # what it returns (the published event) is unused


@dataclass
class Bucket:
    rate: float
    burst: float
    tokens: float = -1.0
    last: float | None = None

    def take(self, now: float, cost: float = 1.0) -> bool:
        if self.tokens < 0:
            self.tokens = self.burst
        if self.last is not None and now > self.last:
            self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
        self.last = now if self.last is None else max(self.last, now)
        if self.tokens >= cost:
            self.tokens -= cost
            return True
        return False


@dataclass
class Bounds:
    now: Callable[[], float]
    on_hit: OnHit = lambda name, data: None  # noqa: E731
    limits: BoundLimits = field(default_factory=BoundLimits)
    hits: dict[str, int] = field(default_factory=dict)
    connections: int = 0
    messages: int = 0
    message_bytes: int = 0
    output_bytes: int = 0

    def __post_init__(self) -> None:
        lim = self.limits
        self._requests = Bucket(lim.requests_per_s, lim.requests_burst)
        self._events = Bucket(lim.events_per_s, lim.events_burst)

    def hit(self, name: str, allowed: float, detail: str) -> None:
        """Count a hit; the first one of each bound calls ``on_hit`` (one event)."""
        n = self.hits.get(name, 0)
        self.hits[name] = n + 1
        if n == 0:
            try:
                self.on_hit(name, {"bound": name, "allowed": allowed, "unit": _UNITS[name], "detail": detail})
            except Exception:  # noqa: BLE001 - reporting a bound must never take the attempt down
                pass

    # -- the agent socket ----------------------------------------------------------------
    def open_connection(self) -> bool:
        if self.connections >= self.limits.connections:
            self.hit(
                "connections",
                self.limits.connections,
                "agent-socket connections held at once; further ones are refused",
            )
            return False
        self.connections += 1
        return True

    def close_connection(self) -> None:
        self.connections = max(0, self.connections - 1)

    def request(self) -> bool:
        if self._requests.take(self.now()):
            return True
        self.hit(
            "requests",
            self.limits.requests_per_s,
            f"agent-socket requests per second (burst {self.limits.requests_burst}); "
            "further ones are answered rate_limited",
        )
        return False

    def message(self, text: str) -> str | None:
        """The message text to record, or None when the per-attempt bound is spent."""
        size = len(text.encode("utf-8", "surrogatepass"))
        if self.messages >= self.limits.messages:
            self.hit("messages", self.limits.messages, "message requests per attempt")
            return None
        if self.message_bytes + size > self.limits.message_bytes:
            self.hit("message_bytes", self.limits.message_bytes, "message text per attempt")
            return None
        self.messages += 1
        self.message_bytes += size
        return text

    def output(self, text: str) -> str | None:
        """The part of one ``agent.output`` text to record (None: nothing more)."""
        left = self.limits.output_bytes - self.output_bytes
        if left <= 0:
            self.hit("output_bytes", self.limits.output_bytes, "agent output recorded per attempt")
            return None
        data = text.encode("utf-8", "surrogatepass")
        if len(data) > left:
            self.hit("output_bytes", self.limits.output_bytes, "agent output recorded per attempt")
            text = data[:left].decode("utf-8", "ignore")
            self.output_bytes = self.limits.output_bytes
            return text
        self.output_bytes += len(data)
        return text

    def event(self) -> bool:
        """May one more agent-driven event be stored now?"""
        if self._events.take(self.now()):
            return True
        self.hit(
            "events",
            self.limits.events_per_s,
            f"agent-driven events per second (burst {self.limits.events_burst}); further ones are counted, not stored",
        )
        return False


def raise_nofile() -> tuple[int, int]:
    """Raise this process's RLIMIT_NOFILE soft limit to the hard limit (the arena holds
    many sockets and pipes); the per-attempt bound above is what keeps one attempt from
    taking them all. Returns (soft, hard) after."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft < hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError):
            pass
    return soft, hard
