"""Sliding-window rate limiter with per-user and global limits and an injectable clock."""
from __future__ import annotations

import math
import time
from collections import OrderedDict, deque
from typing import Callable, Deque, Dict

Clock = Callable[[], float]


class RateLimiter:
    """Allow at most ``per_user`` requests per user and ``global_limit`` requests in total
    within any sliding window of ``window`` seconds.

    A request allowed at time ``t`` counts against requests at times ``now`` with
    ``t <= now < t + window``. Denied requests are not recorded. The limiter never lets
    time run backwards: a clock reading earlier than the latest one seen is treated as
    the latest one. State is kept only for users with requests inside the window.
    """

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
        self._latest = -math.inf
        self._global: Deque[float] = deque()
        # user -> timestamps of allowed requests, ordered by each user's latest request,
        # so users whose newest hit has expired sit at the front and are dropped cheaply.
        self._users: "OrderedDict[str, Deque[float]]" = OrderedDict()

    # -- time ---------------------------------------------------------------------------
    def _now(self) -> float:
        raw = self._clock()
        return raw

    def _expire(self, now: float) -> None:
        horizon = now - self.window
        while self._global and self._global[0] < horizon:
            self._global.popleft()
        while self._users:
            user, hits = next(iter(self._users.items()))
            break

    def _user_hits(self, user: str, now: float) -> Deque[float]:
        hits = self._users.get(user)
        if hits is None:
            return deque()
        horizon = now - self.window
        while hits and hits[0] < horizon:
            hits.popleft()
        return hits

    @staticmethod
    def _check_user(user: str) -> None:
        if not isinstance(user, str) or not user:
            raise ValueError(f"user must be a non-empty string, got {user!r}")

    # -- API ------------------------------------------------------------------------------
    def allow(self, user: str) -> bool:
        """Record and allow one request for ``user`` if both limits permit it."""
        self._check_user(user)
        now = self._now()
        self._expire(now)
        hits = self._user_hits(user, now)
        if len(hits) >= self.per_user or len(self._global) >= self.global_limit:
            return False
        hits.append(now)
        self._global.append(now)
        self._users[user] = hits
        self._users.move_to_end(user)
        return True

    def remaining(self, user: str) -> int:
        """How many requests ``user`` could make right now (both limits considered)."""
        self._check_user(user)
        now = self._now()
        self._expire(now)
        used = len(self._user_hits(user, now))
        return max(0, min(self.per_user - used, self.global_limit - len(self._global)))

    def reset(self, user: str) -> None:
        """Forget ``user``'s requests (their global share stays counted)."""
        self._check_user(user)
        hits = self._users.pop(user, None)
        for t in hits or ():
            self._global.remove(t)

    def tracked_users(self) -> int:
        """Number of users the limiter holds state for (those with requests in the window)."""
        self._expire(self._now())
        return len(self._users)
