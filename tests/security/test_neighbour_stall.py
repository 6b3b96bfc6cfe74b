"""One attempt's diff never stalls its neighbours: a 24 KB file of repeated lines changed
between submissions (quadratic-or-worse for difflib: it once held the loop 43 s) while
an honest attempt runs beside it in the same arena. Loop lag is measured on the real
clock by a ticker task; the neighbour must see no stall over 1 s and score as usual."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # attempt_kit

from arena.challenge import load_challenge  # noqa: E402
from arena.clock import ManualTime  # noqa: E402
from arena import events as ev  # noqa: E402
from arena.textdiff import line_delta  # noqa: E402
from attempt_kit import drive, make_package, of, open_arena, stored  # noqa: E402

TICK = 0.02


async def _max_lag(stop: asyncio.Event) -> float:
    worst = 0.0
    while not stop.is_set():
        t0 = time.monotonic()
        await asyncio.sleep(TICK)
        worst = max(worst, time.monotonic() - t0 - TICK)
    return worst


def test_line_delta_bounded_on_repeated_lines():
    t0 = time.monotonic()
    d = line_delta(["x"] * 12000, ["x", "y"] * 6000)
    assert time.monotonic() - t0 < 1.0
    assert (d.added, d.removed) == (6000, 6000)  # the LCS keeps the 6,000 x lines
    d = line_delta(["a", "b", "c"], ["a", "B", "c", "d"])
    assert (d.added, d.removed, d.exact) == (2, 1, True)


async def test_repeated_lines_diff_never_stalls_the_neighbour(tmp_path):
    pkg = make_package(
        tmp_path / "pkg",
        fmt="sprint",
        agents={
            "repeat": [{"overlay": "agents/rep1"}, "submit", {"overlay": "agents/rep2"}, "submit"],
            "honest": [{"overlay": "agents/half"}, "submit", {"overlay": "agents/fixed"}, "submit"],
        },
    )
    for name, text in (("rep1", "x\n" * 12000), ("rep2", "x\ny\n" * 6000)):  # 24 KB each
        (pkg / "agents" / name).mkdir()
        (pkg / "agents" / name / "big.txt").write_text(text)
    ch = load_challenge(pkg)
    clock = ManualTime()
    arena = await open_arena(tmp_path, clock)
    stop = asyncio.Event()
    ticker = asyncio.create_task(_max_lag(stop))
    try:
        rep, honest = arena.attempt(ch, "scripted:repeat"), arena.attempt(ch, "scripted:honest")
        statuses = await asyncio.wait_for(drive(arena, [rep, honest], clock, step=5.0), 180)
        stop.set()
        lag = await ticker
        rep_events, honest_events = await stored(arena, rep.id), await stored(arena, honest.id)
    finally:
        stop.set()
        await arena.close()
    assert statuses == ["finished", "finished"]
    assert lag < 1.0, f"event loop stalled {lag:.2f} s"
    received = of(rep_events, ev.SUBMISSION_RECEIVED)
    assert len(received) == 2 and (
        received[1].data["diff"]["lines_added"],
        received[1].data["diff"]["lines_removed"],
    ) == (6000, 6000)
    fb = [e.data["feedback"]["tests"] for e in of(honest_events, ev.FEEDBACK_DELIVERED)]
    assert [f["failed"] for f in fb] == [fb[0]["failed"], 0] and fb[0]["failed"] > 0
    assert honest_events[-1].data["scored_submission"] == 2
