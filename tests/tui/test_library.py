"""The challenge library: bundled packages plus given directories, the manifest summary,
validation findings, and starting an attempt with a chosen agent, sandbox and scale."""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual.widgets import Input, ListView, Select

from arena.challenge import bundled_challenges
from gauntlet_tui.app import GauntletApp
from gauntlet_tui.widgets import AttemptTable

MALFORMED = Path(__file__).resolve().parents[1] / "malformed" / "bad_category"


async def test_library_lists_bundled_and_given_dirs_with_summary_and_findings(tmp_path):
    app = GauntletApp(store=tmp_path / "g.db", live_refresh=False, library_dirs=[MALFORMED])
    async with app.run_test(size=(150, 40)) as pilot:
        await pilot.press("l")
        await pilot.pause()
        assert type(app.screen).__name__ == "LibraryScreen"
        bundled = bundled_challenges()
        assert len(bundled) >= 1
        items = app.screen.query_one(ListView).children
        assert len([i for i in items if not i.disabled]) == len(bundled) + 1  # category headers are disabled
        summary = str(app.screen.query_one("#library-summary").render())
        first = bundled[0]
        assert first.name in summary and "format" in summary and "budget" in summary and "profile" in summary
        await pilot.press(*["down"] * len(bundled))
        await pilot.pause()
        findings = str(app.screen.query_one("#library-findings").render())
        assert "error" in findings and "category" in findings
        await pilot.press("escape")
        assert type(app.screen).__name__ == "HomeScreen"


async def test_start_from_the_library_runs_a_real_attempt(tmp_path):
    app = GauntletApp(store=tmp_path / "g.db", live_refresh=False)
    async with app.run_test(size=(150, 40)) as pilot:
        await pilot.press("l")
        await pilot.pause()
        await pilot.press("r")
        await pilot.pause()
        assert type(app.screen).__name__ == "StartScreen"
        app.screen.query_one("#start-sandbox", Select).value = "local"
        app.screen.query_one("#start-agent", Select).value = "human"
        scale = app.screen.query_one("#start-scale", Input)
        scale.value = "abc"
        await pilot.press("enter")  # focus starts on the agent select: go to the scale input
        scale.focus()
        await pilot.press("enter")
        await pilot.pause()
        assert "expected a positive number" in str(app.screen.query_one("#start-error").render())
        scale.value = "30"
        await pilot.press("enter")
        for _ in range(200):  # Start opens the new attempt's view
            if type(app.screen).__name__ == "AttemptScreen":
                break
            await pilot.pause(0.05)
        assert type(app.screen).__name__ == "AttemptScreen"
        await pilot.press("escape", "escape")  # back to the library, then the dashboard
        await pilot.pause()
        table = app.screen.query_one(AttemptTable)
        for _ in range(200):
            app.tick()
            if table.row_count:
                break
            await asyncio.sleep(0.05)
        assert table.row_count == 1
        attempt = table.attempt_ids[0]
        view = app.adapter.views[attempt]
        assert (view.agent, view.time_scale, view.sandbox) == ("human", 30.0, "local")
        assert app.adapter.is_live(attempt)
        await app.stop_attempt(attempt)
        for _ in range(200):
            app.tick()
            if view.finished:
                break
            await asyncio.sleep(0.05)
        assert view.status == "interrupted"
