"""Sliding-window rate limiter with per-user and global limits and an injectable clock."""
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
        self._hits = {}

    def allow(self, user: str) -> bool:
        now = self._clock()
        hits = self._hits.setdefault(user, [])
        hits.append(now)
        recent = [t for t in hits if t > now - self.window]
        self._hits[user] = recent
        return len(recent) < self.per_user

    def remaining(self, user: str) -> int:
        return self.per_user - len(self._hits.get(user, []))

    def reset(self, user: str) -> None:
        self._hits.pop(user, None)

    def tracked_users(self) -> int:
        return len(self._hits)
