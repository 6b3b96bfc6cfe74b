"""The attempt clock on ManualTime: every mark exactly at its instant, never paused."""

import asyncio

import pytest

from arena.clock import CUTOFF, GRACE_END, HARD, REVEAL, SOFT, AttemptClock, ManualTime, marks_for
from arena.formats import FORMATS

EPS = 1e-6
CASES = [  # format, time limit (s), expected instants
    ("sprint", 15 * 60, {SOFT: 720.0, HARD: 810.0, CUTOFF: 900.0, GRACE_END: 900.0}),
    ("standard", 30 * 60, {SOFT: 1440.0, HARD: 1620.0, CUTOFF: 1800.0, GRACE_END: 1830.0}),
    ("marathon", 100 * 60, {SOFT: 4800.0, HARD: 5400.0, CUTOFF: 6000.0, GRACE_END: 6060.0}),
]


@pytest.mark.parametrize("fmt, limit, instants", CASES)
def test_marks_fire_exactly_at_their_instant(fmt, limit, instants):
    src = ManualTime()
    clock = AttemptClock(src, FORMATS[fmt], limit)
    by_instant: dict[float, list[str]] = {}
    for kind, t in instants.items():
        by_instant.setdefault(t, []).append(kind)
    if fmt == "marathon":
        for frac in (0.35, 0.65, 0.80):
            by_instant.setdefault(frac * limit, []).append(REVEAL)
    for t in sorted(by_instant):
        src.set(t - EPS)
        assert clock.due() == [], f"{fmt}: something fired before {t}"
        src.set(t)
        assert sorted(m.kind for m in clock.due()) == sorted(by_instant[t]), f"{fmt} at {t}"
    src.advance(10_000)
    assert clock.due() == []


@pytest.mark.parametrize("fmt, limit, instants", CASES)
def test_stage_boundaries(fmt, limit, instants):
    src = ManualTime()
    clock = AttemptClock(src, FORMATS[fmt], limit)
    src.set(instants[CUTOFF] - EPS)
    assert clock.stage() == "running"
    src.set(instants[CUTOFF])
    assert clock.stage() == ("grace" if FORMATS[fmt].grace_s else "over")
    if FORMATS[fmt].grace_s:
        src.set(instants[GRACE_END] - EPS)
        assert clock.stage() == "grace"
    src.set(instants[GRACE_END])
    assert clock.stage() == "over"


def test_marathon_reveal_marks_name_their_phase_and_follow_the_manifest():
    marks = [m for m in marks_for(FORMATS["marathon"], 6000, [0.3, 0.6, 0.85]) if m.kind == REVEAL]
    assert [(m.t, m.phase) for m in marks] == [(1800.0, 2), (3600.0, 3), (5100.0, 4)]
    default = [m for m in marks_for(FORMATS["marathon"], 6000) if m.kind == REVEAL]
    assert [(m.t, m.phase) for m in default] == [(2100.0, 2), (3900.0, 3), (4800.0, 4)]


async def test_run_announces_each_mark_at_its_instant_on_manual_time():
    src = ManualTime()
    clock = AttemptClock(src, FORMATS["standard"], 1800)
    seen: list[tuple[str, float]] = []
    task = asyncio.create_task(clock.run(lambda m: seen.append((m.kind, clock.elapsed()))))
    await src.step(1440 - EPS)
    assert seen == []
    await src.step(EPS)
    assert seen == [(SOFT, pytest.approx(1440.0))]
    await src.step(1620 - 1440)
    await src.step(1800 - 1620)
    assert [k for k, _ in seen] == [SOFT, HARD, CUTOFF]
    await src.step(29.999)
    assert GRACE_END not in [k for k, _ in seen]
    await src.step(0.001)
    await asyncio.wait_for(task, 1)
    assert [k for k, _ in seen] == [SOFT, HARD, CUTOFF, GRACE_END]
    assert [t for _, t in seen] == pytest.approx([1440, 1620, 1800, 1830])


async def test_clock_never_pauses_through_feedback_or_iterations():
    """Seed 000: iteration boundaries and feedback reading do not stop the clock."""
    src = ManualTime()
    clock = AttemptClock(src, FORMATS["sprint"], 900)
    src.advance(100)  # the agent works, then submits
    at_submit = clock.elapsed()
    src.advance(45)  # the judge runs and feedback is read: time still passes
    assert clock.elapsed() == at_submit + 45
    assert clock.remaining() == 900 - 145


def test_scaled_clock_runs_a_sprint_in_30_seconds():
    src = ManualTime()
    clock = AttemptClock(src, FORMATS["sprint"], 900, scale=30)
    src.set(24 - EPS)
    assert [m.kind for m in clock.due()] == []
    src.set(24)  # 720 attempt seconds = soft warning
    assert [m.kind for m in clock.due()] == [SOFT]
    src.set(30)
    assert [m.kind for m in clock.due()] == [HARD, CUTOFF, GRACE_END]
    assert clock.stage() == "over"


def test_resume_keeps_elapsed_and_skips_fired_marks():
    src = ManualTime(start=1000)
    clock = AttemptClock(src, FORMATS["standard"], 1800, elapsed_at_start=1500)
    clock.skip_past(1500)
    assert clock.elapsed() == 1500
    src.advance(120)
    assert [m.kind for m in clock.due()] == [HARD]


def test_manual_time_does_not_go_backwards():
    src = ManualTime(5)
    with pytest.raises(ValueError):
        src.set(4)
