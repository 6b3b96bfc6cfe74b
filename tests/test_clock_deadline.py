"""A clock with a deadline (the demo's) reaches its grace end by then whatever judging
costs: real-speed judging is repaid by a faster clock afterwards, at most ``catch_up`` x
its scale, so the warnings, cutoff and grace keep room on the source."""

import asyncio

import pytest

from arena.clock import CATCH_UP, AttemptClock, ManualTime
from arena.formats import FORMATS

MARATHON = FORMATS["marathon"]  # 5400 s + 60 s of grace


def _demo_clock(src: ManualTime, wall_s: float = 100.0, **kw) -> AttemptClock:
    scale = (5400 + 60) / wall_s  # the demo's: time limit and grace in wall_s
    return AttemptClock(src, MARATHON, 5400, scale=scale, deadline=src.now() + wall_s, **kw)


async def _fire_times(src: ManualTime, clock: AttemptClock, judge_runs: list[tuple[float, float]]):
    """Run the clock's marks; ``judge_runs`` are (source start, source seconds) at real
    speed. Returns {mark kind: source instant it fired} (the first of each kind)."""
    fired: dict[str, float] = {}
    runner = asyncio.create_task(clock.run(lambda m: fired.setdefault(m.kind, src.now())))
    await src.step(0)
    for start, seconds in judge_runs:
        await _walk(src, start - src.now())
        with clock.unscaled():
            await _walk(src, seconds)
    await _walk(src, 200.0)
    await runner
    return fired


async def _walk(src: ManualTime, seconds: float, dt: float = 0.05) -> None:
    end = src.now() + seconds
    while src.now() < end - 1e-9:
        await src.step(min(dt, end - src.now()))


async def test_without_judging_a_deadline_clock_runs_at_its_scale_and_ends_on_time():
    src = ManualTime()
    clock = _demo_clock(src)
    assert clock.rate == pytest.approx(54.6)
    fired = await _fire_times(src, clock, [])
    assert fired["clock.soft_warning"] == pytest.approx(0.8 * 5400 / 54.6, abs=0.06)
    assert fired["clock.grace_end"] == pytest.approx(100.0, abs=0.06)


async def test_real_speed_judging_is_repaid_and_the_grace_end_stays_on_the_deadline():
    src = ManualTime()
    clock = _demo_clock(src)
    # the naive's seven submissions, each judged for 6 s at real speed (42 s of the 100)
    runs = [(10, 6), (20, 6), (35, 6), (50, 6), (62, 6), (70, 6), (78, 6)]
    fired = await _fire_times(src, clock, runs)
    assert fired["clock.grace_end"] == pytest.approx(100.0, abs=0.06)  # not 100 + 42
    # the clock knows, afterwards, when each instant was reached on the source
    assert clock.when(5460) == pytest.approx(fired["clock.grace_end"], abs=0.06)
    assert clock.when(0.8 * 5400) == pytest.approx(fired["clock.soft_warning"], abs=0.06)
    assert clock.when(10 * 54.6 + 3) == pytest.approx(13.0)  # 3 s into the first judge run
    # the warnings, cutoff and grace keep their order and some room on the source
    order = [fired[k] for k in ("clock.soft_warning", "clock.hard_warning", "clock.cutoff", "clock.grace_end")]
    assert order == sorted(order) and order[-1] - order[0] > 2.0
    assert clock.rate <= CATCH_UP * clock.scale + 1e-9


async def test_a_judge_run_longer_than_the_slack_runs_at_the_catch_up_rate_past_its_limit():
    src = ManualTime()
    clock = _demo_clock(src)
    await src.step(50.0)
    e0 = clock.elapsed()
    with clock.unscaled():
        await src.step(1.0)
        assert clock.elapsed() == pytest.approx(e0 + 1.0)  # real speed while there is room
        await src.step(40.0)  # a 41 s judge run: no room for that much at real speed
        assert clock.rate == pytest.approx(CATCH_UP * clock.scale)
    assert clock.source_time(clock.grace_end_s) == pytest.approx(100.0)


async def test_a_judge_run_ending_just_before_the_deadline_still_ends_on_time():
    src = ManualTime()
    clock = _demo_clock(src)
    await src.step(96.0)
    with clock.unscaled():
        await src.step(3.5)  # ends 0.5 s before the deadline, at the catch-up rate by then
    assert clock.source_time(clock.grace_end_s) == pytest.approx(100.0)
    assert clock.rate == pytest.approx(CATCH_UP * clock.scale)


async def test_sleepers_wake_at_the_planned_switch_inside_a_judge_run():
    src = ManualTime()
    clock = _demo_clock(src)
    woke: list[float] = []
    await src.step(60.0)
    target = clock.elapsed() + 600.0  # 600 attempt seconds ahead

    async def sleeper():
        await clock.sleep_until(target)
        woke.append(src.now())

    task = asyncio.create_task(sleeper())
    with clock.unscaled():
        expected = clock.source_time(target)  # real speed first, then catch_up x scale
        assert 60.0 < expected < 60.0 + 600.0
        await _walk(src, expected - src.now() + 0.1, dt=0.01)
    await task
    assert woke and woke[0] == pytest.approx(expected, abs=0.011)
    assert abs(clock.elapsed() - target) < CATCH_UP * clock.scale * 0.11


async def test_a_clock_that_starts_late_runs_faster_from_its_start_to_keep_the_deadline():
    src = ManualTime()
    deadline = 100.0
    await src.step(20.0)  # setting up (a sandbox, the starter) took 20 s of the 100
    clock = AttemptClock(src, MARATHON, 5400, scale=54.6, deadline=deadline)
    assert clock.rate == pytest.approx(5460 / 80)
    fired = await _fire_times(src, clock, [])
    assert fired["clock.grace_end"] == pytest.approx(deadline, abs=0.06)


def test_no_deadline_changes_nothing_and_a_catch_up_below_one_is_refused():
    src = ManualTime()
    clock = AttemptClock(src, MARATHON, 5400, scale=54.0)
    with clock.unscaled():
        src.advance(10.0)
    assert clock.elapsed() == 10.0 and clock.rate == 54.0  # judging at real speed, nothing repaid
    with pytest.raises(ValueError, match="catch_up"):
        AttemptClock(src, MARATHON, 5400, scale=54.0, deadline=100.0, catch_up=0.5)
