"""Issue 21 item 7: a headless first-use build prints one progress line per change of a
step's detail, not the same line every few seconds (70 identical lines were seen)."""

from __future__ import annotations

import asyncio
import io

from arena.attempt.prepare import Preparation, Step, run_printing


async def test_one_progress_line_per_change():
    async def work(log):
        log("downloading")
        await asyncio.sleep(0.2)  # the step's own work: the printer looks every 1 ms meanwhile
        log("installing")
        await asyncio.sleep(0.2)

    prep = Preparation(steps=[Step("building the tree", "k", work)])
    out = io.StringIO()
    await run_printing(prep, out, every_s=0.001)
    lines = out.getvalue().splitlines()
    ticks = [line for line in lines if line.startswith("gauntlet:   ... ")]
    assert 1 <= len(ticks) <= 2, lines  # hundreds of looks, at most one line per detail
    assert len({t.rsplit(" ", 1)[-1] for t in ticks}) == len(ticks), ticks
    assert lines[0] == "gauntlet: preparing: building the tree"
    assert lines[-1].startswith("gauntlet: ready: building the tree in ")
