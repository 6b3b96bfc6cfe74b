import pytest

from events import EventBus, retry


def test_handlers_called_in_order():
    bus, got = EventBus(), []
    bus.subscribe("x", lambda v: got.append(("a", v)))
    bus.subscribe("x", lambda v: got.append(("b", v)))
    bus.publish("x", 1)
    assert got == [("a", 1), ("b", 1)]


def test_observer_object_method():
    class Observer:
        def __init__(self):
            self.seen = []

        def notify(self, event, value):
            self.seen.append((event, value))

    bus, obs = EventBus(), Observer()
    bus.subscribe("y", obs)
    bus.publish("y", {"k": 2})
    assert obs.seen == [("y", {"k": 2})]


def test_unsubscribe():
    bus, got = EventBus(), []
    handler = got.append
    bus.subscribe("z", handler)
    bus.unsubscribe("z", handler)
    bus.publish("z", 3)
    assert got == []


def test_retry_until_success():
    attempts = []

    def flaky():
        attempts.append(1)
        if len(attempts) < 3:
            raise ConnectionError("try again")
        return "done"

    assert retry(flaky, times=5) == "done"
    assert len(attempts) == 3


class GiveUp(Exception):
    pass


def test_retry_reraises_the_last_error():
    def always():
        raise GiveUp("no luck")

    with pytest.raises(GiveUp, match="no luck"):
        retry(always, times=2)


def test_sorted_with_key_callback():
    bus = EventBus()
    assert bus.ranked(["bb", "a", "ccc"], key=len) == ["a", "bb", "ccc"]
    assert bus.ranked([3, 1, 2], key=lambda v: -v) == [3, 2, 1]
