"""Judge-side static tests for ratelimiter.py (names and messages are disclosed)."""
import pytest

from ratelimiter import RateLimiter


class Clock:
    def __init__(self, now=0.0):
        self.now = now

    def __call__(self):
        return self.now


def make(per_user=3, global_limit=100, window=10.0, start=0.0):
    clock = Clock(start)
    return RateLimiter(per_user=per_user, global_limit=global_limit, window=window, clock=clock), clock


def test_basic_allows_up_to_per_user_limit():
    limiter, _ = make(per_user=3)
    assert [limiter.allow("ann") for _ in range(3)] == [True, True, True]


def test_basic_denies_over_per_user_limit():
    limiter, _ = make(per_user=3)
    for _ in range(3):
        limiter.allow("ann")
    assert limiter.allow("ann") is False


def test_basic_users_are_independent():
    limiter, _ = make(per_user=2)
    assert [limiter.allow("ann"), limiter.allow("ann"), limiter.allow("ann")] == [True, True, False]
    assert [limiter.allow("bob"), limiter.allow("bob")] == [True, True]


def test_basic_global_limit_caps_all_users():
    limiter, _ = make(per_user=5, global_limit=4)
    assert [limiter.allow(u) for u in ("a", "b", "c", "d", "e", "f")] == [True] * 4 + [False] * 2


def test_window_expiry_frees_capacity():
    limiter, clock = make(per_user=2, window=10)
    limiter.allow("ann")
    limiter.allow("ann")
    clock.now = 10.0
    assert limiter.allow("ann") is True


def test_window_slides_instead_of_resetting():
    limiter, clock = make(per_user=2, window=10)
    assert limiter.allow("ann")
    clock.now = 6.0
    assert limiter.allow("ann")
    clock.now = 10.0  # the t=0 request has left the window, the t=6 one has not
    assert limiter.allow("ann") is True
    assert limiter.allow("ann") is False


def test_window_global_limit_slides():
    limiter, clock = make(per_user=10, global_limit=2, window=10)
    limiter.allow("a")
    clock.now = 4.0
    limiter.allow("b")
    assert limiter.allow("c") is False
    clock.now = 10.0
    assert limiter.allow("c") is True
    assert limiter.allow("d") is False


def test_remaining_counts_down():
    limiter, _ = make(per_user=3)
    assert limiter.remaining("ann") == 3
    limiter.allow("ann")
    assert limiter.remaining("ann") == 2


def test_remaining_reflects_global_limit():
    limiter, _ = make(per_user=5, global_limit=2)
    limiter.allow("a")
    limiter.allow("b")
    assert limiter.remaining("c") == 0


def test_api_constructor_validation():
    for kwargs in (
        {"per_user": 0, "global_limit": 1, "window": 1},
        {"per_user": 1, "global_limit": -1, "window": 1},
        {"per_user": 1, "global_limit": 1, "window": 0},
        {"per_user": 1, "global_limit": 1, "window": float("inf")},
    ):
        with pytest.raises(ValueError):
            RateLimiter(**kwargs)


def test_api_default_clock_works():
    limiter = RateLimiter(per_user=1, global_limit=1, window=60)
    assert limiter.allow("ann") is True
    assert limiter.allow("ann") is False


def test_api_rejects_empty_user():
    limiter, _ = make()
    with pytest.raises(ValueError):
        limiter.allow("")
