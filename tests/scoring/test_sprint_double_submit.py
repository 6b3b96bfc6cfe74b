"""Sprint double submit (seed 001): a submission replaced by a second one within 30 s is
judged but its feedback is never delivered, so two submissions within 30 s yield exactly
one feedback document. A real attempt (local sandbox, real judge runs, real store) on a
manual clock; the test plays the agent, sending two concurrent submits over the protocol."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/attempt_kit.py

from attempt_kit import make_package, of, open_arena, stored  # noqa: E402

from arena import events as ev  # noqa: E402
from arena.challenge import load_challenge  # noqa: E402
from arena.clock import ManualTime  # noqa: E402


async def _settle(a, *tasks) -> None:
    """Let real work (snapshots, judge runs) finish before the clock moves."""
    for _ in range(4000):
        await asyncio.sleep(0.005)
        if not a.io_busy:
            return
    raise AssertionError("the attempt stayed busy")


async def _until(clock: ManualTime, a, t: float, *tasks) -> None:
    while a.clock.elapsed() < t:
        await _settle(a, *tasks)
        await clock.step(1.0)


async def test_two_submissions_within_30s_yield_one_feedback(tmp_path):
    steps = [{"wait": "100s"}, {"overlay": "agents/half"}, {"wait": "600s"}]
    pkg = make_package(tmp_path / "pkg", fmt="sprint", agents={"quiet": steps})
    clock = ManualTime()
    arena = await open_arena(tmp_path, clock)
    try:
        a = arena.attempt(load_challenge(pkg), "scripted:quiet")
        run = asyncio.create_task(arena.run_one(a))
        while not a.ready:
            await asyncio.sleep(0.005)
        await _until(clock, a, 101.0)
        first = asyncio.create_task(a.request({"op": "submit"}))
        await _settle(a, first)
        assert not first.done()  # judged, but its feedback is held for the 30 s window
        await _until(clock, a, 111.0, first)
        second = asyncio.create_task(a.request({"op": "submit"}))
        await _until(clock, a, 150.0, first, second)
        r1, r2 = await asyncio.wait_for(asyncio.gather(first, second), 60)
        while not run.done():
            await _settle(a, run)
            await clock.step(10.0)
        events = await stored(arena, a.id)
    finally:
        await arena.close()
    assert r1["ok"] is False and r1["code"] == "replaced" and "withheld" in r1["reason"]
    assert r2["ok"] is True and r2["submission"] == 2 and r2["feedback"]["submission"] == 2
    assert of(events, ev.SUBMISSION_REPLACED)[0].data == {"submission": 1, "by": 2}
    assert [e.data["submission"] for e in of(events, ev.SUBMISSION_JUDGED)] == [1, 2]
    delivered = of(events, ev.FEEDBACK_DELIVERED)
    assert [e.data["submission"] for e in delivered] == [2]  # exactly one feedback document
    assert delivered[0].t >= 111.0


async def test_unreplaced_sprint_feedback_arrives_after_its_window(tmp_path):
    steps = [{"wait": "100s"}, {"overlay": "agents/fixed"}, "submit", {"wait": "60s"}]
    pkg = make_package(tmp_path / "pkg", fmt="sprint", agents={"once": steps})
    clock = ManualTime()
    arena = await open_arena(tmp_path, clock)
    try:
        a = arena.attempt(load_challenge(pkg), "scripted:once")
        run = asyncio.create_task(arena.run_one(a))
        while not run.done():
            await _settle(a, run)
            await clock.step(5.0)
        events = await stored(arena, a.id)
    finally:
        await arena.close()
    (got,) = of(events, ev.FEEDBACK_DELIVERED)
    received = of(events, ev.SUBMISSION_RECEIVED)[0]
    assert got.t >= received.t + 30.0
