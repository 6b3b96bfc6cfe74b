"""Sliding-window rate limiter with per-user and global limits and an injectable clock."""
from __future__ import annotations

import math
import time
from collections import deque
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
        self._users = {}
        self._global = deque()

    def _prune(self, hits, now):
        # drop timestamps that have left the window [now - window, now)
        while hits and hits[0] <= now - self.window:
            hits.popleft()

    def allow(self, user: str) -> bool:
        if not isinstance(user, str) or not user:
            raise ValueError("user must be a non-empty string")
        now = self._clock()
        hits = self._users.setdefault(user, deque())
        self._prune(hits, now)
        self._prune(self._global, now)
        if len(hits) >= self.per_user or len(self._global) >= self.global_limit:
            return False
        hits.append(now)
        self._global.append(now)
        return True

    def remaining(self, user: str) -> int:
        now = self._clock()
        hits = self._users.get(user, deque())
        self._prune(hits, now)
        self._prune(self._global, now)
        return max(0, min(self.per_user - len(hits), self.global_limit - len(self._global)))

    def reset(self, user: str) -> None:
        for t in self._users.pop(user, ()):
            self._global.remove(t)

    def tracked_users(self) -> int:
        now = self._clock()
        active = 0
        for hits in self._users.values():
            self._prune(hits, now)
            if hits:
                active += 1
        return active
