"""A sped-up attempt charges infrastructure work (judging) at real speed."""

import asyncio

from arena.clock import AttemptClock, ManualTime
from arena.formats import FORMATS


def test_unscaled_section_runs_at_real_speed_and_the_clock_never_stops():
    src = ManualTime()
    clock = AttemptClock(src, FORMATS["sprint"], 900, scale=60)
    src.advance(1.0)
    assert clock.elapsed() == 60.0
    with clock.unscaled():
        src.advance(2.0)  # a 2-second judge run
        assert clock.elapsed() == 62.0  # not 180: but the clock did move
    src.advance(1.0)
    assert clock.elapsed() == 122.0


def test_unscaled_does_nothing_at_real_speed():
    src = ManualTime()
    clock = AttemptClock(src, FORMATS["standard"], 1800, scale=1)
    with clock.unscaled():
        src.advance(5.0)
    assert clock.elapsed() == 5.0


async def test_sleepers_are_replanned_when_the_rate_changes():
    src = ManualTime()
    clock = AttemptClock(src, FORMATS["sprint"], 900, scale=60)
    woke = []

    async def sleeper():
        await clock.sleep_until(720.0)  # the soft warning
        woke.append(clock.elapsed())

    task = asyncio.create_task(sleeper())
    await src.step(0)
    with clock.unscaled():
        await src.step(100.0)  # 100 attempt seconds at real speed
        assert clock.elapsed() == 100.0 and not woke
    # back at 60x: 620 attempt seconds left = 10.333 source seconds
    await src.step(10.0)
    assert not woke
    await src.step(0.34)
    assert woke and abs(woke[0] - 720.4) < 1e-6
    await task


async def test_marks_fire_at_their_instant_across_an_unscaled_section():
    src = ManualTime()
    clock = AttemptClock(src, FORMATS["sprint"], 900, scale=60)
    fired = []
    runner = asyncio.create_task(clock.run(lambda m: fired.append((m.kind, m.t))))
    await src.step(0)
    with clock.unscaled():
        await src.step(719.0)  # just before the soft warning, at real speed
        assert fired == []
        await src.step(1.0)
        assert fired == [("clock.soft_warning", 720.0)]
    await src.step(3.0)  # 180 attempt seconds at 60x: hard (810), cutoff and grace end (900)
    assert [k for k, _ in fired] == ["clock.soft_warning", "clock.hard_warning", "clock.cutoff", "clock.grace_end"]
    await runner
