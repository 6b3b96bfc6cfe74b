"""An attempt's model usage (CONTRACT §8), summed from its stored ``model.call`` events: the
one implementation that ``show --json``, ``show --transcript``, ``judge --json`` (the
scorecard's ``usage``) and the screens (``arena.view.AttemptView``) all read.

The rule: ``calls`` counts every ``model.call`` the gateway recorded for the attempt,
whatever its answer, so every call the agent made through the gateway counts once. Its
breakdown (the four always add up to ``calls``):

- ``calls_ok``: answered with a 2xx status;
- ``calls_refused``: HTTP 429, a usage limit of the attempt (the gateway refused it before
  the upstream) or the provider's own rate limit;
- ``calls_cancelled``: ``cancelled: true`` (HTTP 499), cut because the attempt ended first;
- ``calls_failed``: any other status (a bad request or token, a provider unreachable or
  failing).

``tokens`` sums ``input_tokens + output_tokens`` of every call (a null or missing count adds
nothing; a cancelled stream carries what it received). ``cost_usd`` is None while no call
carried a price (never a made-up cost). A gateway's ``calls`` *limit* counts the calls it
forwarded upstream, so a refused call is counted here but never against the limit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from arena.events import MODEL_CALL

CANCELLED_STATUS = 499  # nginx's "client closed request": the gateway cut the call, its attempt ended first


def _count(v: object) -> int:
    return int(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else 0


@dataclass
class ModelUsage:
    """A running sum of ``model.call`` events: ``add(data)`` one call's event data."""

    tokens: int = 0
    calls: int = 0
    calls_ok: int = 0
    calls_refused: int = 0
    calls_cancelled: int = 0
    calls_failed: int = 0
    cost_usd: float | None = None

    def add(self, data: Mapping[str, Any]) -> None:
        self.calls += 1
        status = data.get("status")
        if data.get("cancelled") is True or status == CANCELLED_STATUS:
            self.calls_cancelled += 1
        elif isinstance(status, int) and 200 <= status < 300:
            self.calls_ok += 1
        elif status == 429:
            self.calls_refused += 1
        else:
            self.calls_failed += 1
        self.tokens += _count(data.get("input_tokens")) + _count(data.get("output_tokens"))
        cost = data.get("cost_usd")
        if isinstance(cost, (int, float)) and not isinstance(cost, bool):
            self.cost_usd = (self.cost_usd or 0.0) + float(cost)

    def breakdown(self) -> str:
        """``"1 refused, 1 cancelled"``: the calls not answered, or ``""``."""
        return breakdown(self.as_dict())

    def as_dict(self) -> dict[str, Any]:
        """The ``"usage"`` of ``show --json`` and of the scorecard: CONTRACT §8's ``tokens,
        calls, cost_usd`` and the breakdown of ``calls``."""
        return {
            "tokens": self.tokens,
            "calls": self.calls,
            "cost_usd": None if self.cost_usd is None else round(self.cost_usd, 6),
            "calls_ok": self.calls_ok,
            "calls_refused": self.calls_refused,
            "calls_cancelled": self.calls_cancelled,
            "calls_failed": self.calls_failed,
        }


def breakdown(usage: Mapping[str, Any]) -> str:
    """``"1 refused, 1 cancelled"`` of a ``usage`` dict (``as_dict``): the calls not
    answered, or ``""``."""
    parts = (("calls_refused", "refused"), ("calls_cancelled", "cancelled"), ("calls_failed", "failed"))
    return ", ".join(f"{usage[k]} {what}" for k, what in parts if usage.get(k))


def usage_of(events: Iterable[Any]) -> ModelUsage:
    """The usage of an attempt's events (``Event`` objects: ``kind`` and ``data``)."""
    u = ModelUsage()
    for e in events:
        if e.kind == MODEL_CALL:
            u.add(e.data)
    return u


def usage_from_events(events: Iterable[Any]) -> dict[str, Any]:
    """``usage_of(events).as_dict()``."""
    return usage_of(events).as_dict()
