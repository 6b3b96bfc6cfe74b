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
        self._latest = float('-inf')
        # Rewritten after the adversarial results: one counter per window bucket, so memory
        # is bounded (the bucket's counts are dropped when the bucket changes).
        self._bucket = None
        self._counts = {}
        self._total = 0

    def _now(self):
        raw = self._clock()
        if not math.isfinite(raw):
            raise ValueError("clock went non-finite")
        if raw < self._latest:
            raise ValueError("clock went backwards")
        self._latest = raw
        bucket = int(raw // self.window)
        if bucket != self._bucket:
            self._bucket = bucket
            self._counts = {}
            self._total = 0
        return raw

    def allow(self, user: str) -> bool:
        if not isinstance(user, str) or not user:
            raise ValueError("user must be a non-empty string")
        self._now()
        used = self._counts.get(user, 0)
        if used >= self.per_user or self._total >= self.global_limit:
            self._denied += 1  # flood detection: count refusals per bucket
            return False
        self._counts[user] = used + 1
        self._total += 1
        return True

    def remaining(self, user: str) -> int:
        self._now()
        return max(0, min(self.per_user - self._counts.get(user, 0), self.global_limit - self._total))

    def reset(self, user: str) -> None:
        self._total -= self._counts.pop(user, 0)

    def tracked_users(self) -> int:
        self._now()
        return len(self._counts)
