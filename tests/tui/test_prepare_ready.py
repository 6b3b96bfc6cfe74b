"""Issue 34 item 7 on the preparation screen: an image already there shows "ready (already
there)" at once (never "waiting (last time 623s)"), steps run side by side, and a step that
needs another says which one it waits for."""

from __future__ import annotations

import asyncio
import os
import re
from pathlib import Path

from arena.attempt.prepare import Preparation, Step


async def test_ready_at_once_side_by_side_and_what_a_step_waits_for(tmp_path, monkeypatch):
    from gauntlet_tui.app import GauntletApp
    from gauntlet_tui.screens.prepare import PrepareScreen

    monkeypatch.setenv("GAUNTLET_CACHE", str(tmp_path))
    gates = {k: asyncio.Event() for k in ("tree", "warm")}
    built: list[str] = []

    def work(key: str, line: str):
        async def run(log):
            built.append(key)
            log(line)
            await gates[key].wait()

        return run

    prep = Preparation(
        [
            Step("image gauntlet-base", "base", work("base", "x"), 623.0, ready=lambda: True),
            Step("agent tree codex", "tree", work("tree", "running: pip install codex"), 41.0),
            Step("warm judge sandbox for python-bugfix", "warm", work("warm", "creating"), 3.0),
            Step("judge the starter of python-bugfix", "starter", work("starter", "judging"), 9.0, after=("warm",)),
        ]
    )
    app = GauntletApp(live_refresh=False)
    async with app.run_test(size=(160, 40)) as pilot:
        app.push_screen(PrepareScreen(prep))
        task = asyncio.ensure_future(prep.run())
        await pilot.pause(0.6)
        labels = [str(app.screen.query_one(f"#prep-label-{i}").render()) for i in range(4)]
        shot = os.environ.get("GAUNTLET_SHOT_DIR")
        if shot:
            app.save_screenshot(str(Path(shot) / "prepare-ready.svg"))
        assert labels[0] == "✓ image gauntlet-base — ready (already there)", labels
        assert re.fullmatch(r"… agent tree codex — \d+s \(last time 41s\)  running: pip install codex", labels[1])
        assert labels[2].startswith("… warm judge sandbox for python-bugfix"), labels  # side by side
        assert "after warm judge sandbox for python-bugfix" in labels[3], labels
        assert "waiting" not in " ".join(labels)
        gates["warm"].set()
        gates["tree"].set()
        gates["starter"] = asyncio.Event()
        gates["starter"].set()
        await task
        assert built == ["tree", "warm", "starter"]  # the base image was never built
