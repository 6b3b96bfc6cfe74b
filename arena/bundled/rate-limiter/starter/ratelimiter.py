"""Sliding-window rate limiter with per-user and global limits and an injectable clock.

See briefing.md for the exact rules. The constructor is done; the rest is yours.
"""
from __future__ import annotations

import math
import time
from typing import Callable

Clock = Callable[[], float]


class RateLimiter:
    def __init__(self, per_user: int, global_limit: int, window: float, clock: Clock = time.monotonic):
        for name, value in (("per_user", per_user), ("global_limit", global_limit)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        if isinstance(window, bool) or not isinstance(window, (int, float)) or not (
            math.isfinite(window) and window > 0
        ):
            raise ValueError(f"window must be a positive number of seconds, got {window!r}")
        self.per_user = per_user
        self.global_limit = global_limit
        self.window = float(window)
        self._clock = clock

    def allow(self, user: str) -> bool:
        """Record and allow one request for ``user`` if both limits permit it."""
        raise NotImplementedError

    def remaining(self, user: str) -> int:
        """How many requests ``user`` could make right now (both limits considered)."""
        raise NotImplementedError

    def reset(self, user: str) -> None:
        """Forget ``user``'s requests (their global share stays counted)."""
        raise NotImplementedError

    def tracked_users(self) -> int:
        """Number of users the limiter holds state for (those with requests in the window)."""
        raise NotImplementedError
