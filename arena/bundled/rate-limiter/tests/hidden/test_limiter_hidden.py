"""Judge-side hidden tests for ratelimiter.py (only counts are disclosed)."""
from ratelimiter import RateLimiter


class Clock:
    def __init__(self, now=0.0):
        self.now = now

    def __call__(self):
        return self.now


def make(per_user=3, global_limit=100, window=10.0):
    clock = Clock()
    return RateLimiter(per_user=per_user, global_limit=global_limit, window=window, clock=clock), clock


def test_denied_requests_do_not_extend_the_block():
    limiter, clock = make(per_user=2, window=10)
    limiter.allow("ann")
    limiter.allow("ann")
    for t in range(1, 10):
        clock.now = float(t)
        assert limiter.allow("ann") is False
    clock.now = 10.0
    assert limiter.allow("ann") is True


def test_reset_forgets_one_user():
    limiter, _ = make(per_user=1)
    limiter.allow("ann")
    limiter.allow("bob")
    limiter.reset("ann")
    assert limiter.allow("ann") is True
    assert limiter.allow("bob") is False


def test_reset_keeps_global_share():
    limiter, _ = make(per_user=5, global_limit=2)
    limiter.allow("ann")
    limiter.allow("ann")
    limiter.reset("ann")
    assert limiter.allow("bob") is False


def test_fractional_window():
    limiter, clock = make(per_user=1, window=0.25)
    assert limiter.allow("ann")
    clock.now = 0.2
    assert not limiter.allow("ann")
    clock.now = 0.25
    assert limiter.allow("ann")


def test_remaining_for_unknown_user_is_full():
    limiter, _ = make(per_user=4, global_limit=10)
    assert limiter.remaining("nobody") == 4


def test_remaining_recovers_after_window():
    limiter, clock = make(per_user=3)
    for _ in range(3):
        limiter.allow("ann")
    assert limiter.remaining("ann") == 0
    clock.now = 10.0
    assert limiter.remaining("ann") == 3


def test_tracked_users_counts_active_users():
    limiter, clock = make(per_user=3)
    for user in ("a", "b", "c"):
        limiter.allow(user)
    assert limiter.tracked_users() == 3
    clock.now = 10.0
    assert limiter.tracked_users() == 0
