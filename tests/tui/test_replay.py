"""arena.replay: stored events re-published on a scaled clock, with pause and seek."""

from __future__ import annotations

import asyncio

import pytest

from arena.bus import EventBus
from arena.clock import ManualTime
from arena.replay import Replay
from arena.events import Event


def _events() -> list[Event]:
    return [
        Event(attempt="a-1", t=t, kind="file.changed", data={"path": f"f{i}"}, seq=i + 1)
        for i, t in enumerate([0.0, 10.0, 20.0, 60.0])
    ]


def _rig(speed: float = 1.0):
    bus, time = EventBus(), ManualTime()
    got: list[Event] = []
    bus.subscribe(got.append)
    return Replay(_events(), bus, time, speed=speed), time, got


def test_pump_delivers_events_as_their_time_comes_at_the_given_speed():
    replay, time, got = _rig(speed=10.0)
    assert replay.pump() == 1  # t=0
    time.advance(1.5)  # 15 attempt seconds
    assert replay.pump() == 1 and [e.t for e in got] == [0.0, 10.0]
    time.advance(10.0)
    replay.pump()
    assert [e.t for e in got] == [0.0, 10.0, 20.0, 60.0] and replay.done
    assert replay.position() == 60.0  # never past the end


def test_pause_freezes_the_replay_clock_and_resume_continues():
    replay, time, got = _rig()
    time.advance(5)
    replay.pause()
    time.advance(100)
    assert replay.position() == 5.0 and replay.pump() == 1
    replay.resume()
    time.advance(6)
    assert replay.position() == 11.0
    replay.pump()
    assert [e.t for e in got] == [0.0, 10.0]


def test_seek_forward_delivers_skipped_events_and_back_resets_subscribers():
    replay, time, got = _rig()
    resets = []
    replay.on_reset(lambda: (resets.append(1), got.clear()))
    assert replay.seek(25.0) == 3
    assert resets == []
    assert replay.seek(5.0) == 1  # back: reset, then the events up to 5 s again
    assert resets == [1] and [e.t for e in got] == [0.0]


def test_speed_change_keeps_the_position():
    replay, time, _ = _rig()
    time.advance(10)
    replay.set_speed(4)
    assert replay.position() == 10.0
    time.advance(5)
    assert replay.position() == 30.0
    with pytest.raises(ValueError, match="positive"):
        replay.set_speed(0)


async def test_run_delivers_everything_on_the_manual_clock_and_wakes_on_control():
    replay, time, got = _rig(speed=2.0)
    task = asyncio.create_task(replay.run())
    await time.step(0)
    assert [e.t for e in got] == [0.0]
    await time.step(5)  # 10 attempt seconds
    assert [e.t for e in got] == [0.0, 10.0]
    replay.seek(59.0)  # wakes the sleeping run loop
    await time.step(0)
    assert [e.t for e in got] == [0.0, 10.0, 20.0]
    await time.step(0.5)
    await asyncio.wait_for(task, 1)
    assert [e.t for e in got] == [0.0, 10.0, 20.0, 60.0]
