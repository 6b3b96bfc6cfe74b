"""Usage limits of one attempt and the usage counted against them (CONTRACT §8).

``UsageLimits.parse(mapping, where)`` reads the ``limits:`` of an agent file or plan::

    limits: {tokens: 400000, calls: 150, cost_usd: 5.0}

A limit is *reached* when what was used is at least what is allowed; the gateway then
refuses the next call with HTTP 429 (a call already under way is never cut short).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Mapping

from arena.errors import UsageError

LIMIT_KEYS = ("tokens", "calls", "cost_usd")


@dataclass(frozen=True)
class UsageLimits:
    tokens: int | None = None
    calls: int | None = None
    cost_usd: float | None = None

    @classmethod
    def parse(cls, mapping: Mapping[str, Any] | None, where: str) -> "UsageLimits":
        """``where`` names the place for errors, e.g. ``"agents/x.yaml: limits"``."""
        if mapping is None:
            return cls()
        if not isinstance(mapping, Mapping):
            raise UsageError(f"{where}: expected a mapping of {', '.join(LIMIT_KEYS)}, got {type(mapping).__name__}")
        unknown = sorted(str(k) for k in mapping if k not in LIMIT_KEYS)
        if unknown:
            raise UsageError(f"{where}: unknown key {unknown[0]!r} (expected {', '.join(LIMIT_KEYS)})")
        out: dict[str, Any] = {}
        for key in ("tokens", "calls"):
            v = mapping.get(key)
            if v is None:
                continue
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise UsageError(f"{where}.{key}: expected a whole number >= 0, got {v!r}")
            out[key] = v
        v = mapping.get("cost_usd")
        if v is not None:
            if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0 or v != v:
                raise UsageError(f"{where}.cost_usd: expected a number of US dollars >= 0, got {v!r}")
            out["cost_usd"] = float(v)
        return cls(**out)

    def items(self) -> list[tuple[str, float]]:
        """The limits that are set, as ``(name, allowed)``."""
        return [(f.name, getattr(self, f.name)) for f in fields(self) if getattr(self, f.name) is not None]

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.items()}


@dataclass
class Usage:
    """What one attempt has used so far. ``cost_usd`` is None when the model has no price
    (never a made-up one). ``calls`` counts calls forwarded upstream, not refused ones."""

    input_tokens: int = 0
    output_tokens: int = 0
    calls: int = 0
    cost_usd: float | None = None

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def used(self, limit: str) -> float | None:
        return getattr(self, limit) if limit != "tokens" else self.tokens

    def reached(self, limits: UsageLimits) -> list[tuple[str, float, float]]:
        """Every limit reached, as ``(name, used, allowed)``."""
        out = []
        for name, allowed in limits.items():
            used = self.used(name)
            if used is not None and used >= allowed:
                out.append((name, used, allowed))
        return out

    def copy(self) -> "Usage":
        return Usage(self.input_tokens, self.output_tokens, self.calls, self.cost_usd)

    def as_dict(self) -> dict[str, Any]:
        """The ``"usage"`` of ``show --json`` and the scorecard."""
        return {
            "tokens": self.tokens,
            "calls": self.calls,
            "cost_usd": self.cost_usd,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
        }
