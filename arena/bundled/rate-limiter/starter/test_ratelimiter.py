"""Visible tests. Run them with: python -m pytest -q"""
import pytest

from manualclock import ManualClock
from ratelimiter import RateLimiter


def test_constructor_rejects_bad_limits():
    with pytest.raises(ValueError):
        RateLimiter(per_user=0, global_limit=10, window=1)
    with pytest.raises(ValueError):
        RateLimiter(per_user=1, global_limit=10, window=0)


def test_manual_clock_moves():
    clock = ManualClock(5)
    clock.advance(2.5)
    assert clock() == 7.5


def test_allows_up_to_the_per_user_limit():
    clock = ManualClock()
    limiter = RateLimiter(per_user=3, global_limit=100, window=10, clock=clock)
    assert [limiter.allow("ann") for _ in range(4)] == [True, True, True, False]


def test_window_slides():
    clock = ManualClock()
    limiter = RateLimiter(per_user=2, global_limit=100, window=10, clock=clock)
    assert limiter.allow("ann")
    clock.advance(5)
    assert limiter.allow("ann")
    assert not limiter.allow("ann")
    clock.advance(5)  # the first request (t=0) leaves the window at t=10
    assert limiter.allow("ann")
    assert not limiter.allow("ann")


def test_global_limit():
    clock = ManualClock()
    limiter = RateLimiter(per_user=5, global_limit=3, window=10, clock=clock)
    assert [limiter.allow(u) for u in "abcd"] == [True, True, True, False]
