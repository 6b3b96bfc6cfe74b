from arena.bus import EventBus


def test_sequence_numbers_are_per_attempt_and_in_order():
    bus = EventBus()
    seen = []
    bus.subscribe(seen.append)
    bus.publish("a-1", 0.0, "attempt.started")
    bus.publish("a-2", 0.0, "attempt.started")
    bus.publish("a-1", 1.5, "file.changed", {"path": "x.py"})
    assert [(e.attempt, e.seq) for e in seen] == [("a-1", 1), ("a-2", 1), ("a-1", 2)]
    assert seen[2].flat() == {"t": 1.5, "kind": "file.changed", "path": "x.py"}


def test_a_failing_subscriber_is_dropped_and_others_still_receive():
    bus = EventBus()
    good = []

    def broken(ev):
        raise RuntimeError("screen crashed")

    bus.subscribe(broken)
    bus.subscribe(good.append)
    bus.publish("a-1", 0.0, "attempt.started")
    bus.publish("a-1", 1.0, "clock.soft_warning")
    assert len(good) == 2


def test_resumed_attempt_continues_its_sequence():
    bus = EventBus()
    bus.start_seq("a-1", after=41)
    assert bus.publish("a-1", 10.0, "attempt.resumed").seq == 42
