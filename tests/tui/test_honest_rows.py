"""Screens that never lie (issue 13): rows catch up when the dashboard returns to the
top, sort holds for rows a filter brings back and for new attempts, and a theme switch
restyles the activity stream."""

from __future__ import annotations

import tui_scenarios as S
from gauntlet_tui.widgets import AttemptTable


def _cell(table: AttemptTable, attempt: str, col: str) -> str:
    value = table.get_cell(attempt, col)
    return getattr(value, "plain", str(value))


async def test_a_row_that_finished_behind_the_help_screen_is_not_left_running(rig):
    rig.start("a-1", "sprint", title="The Off-By-One")
    rig.start("a-2", "standard", title="Rate Limiter")
    app = rig.app()
    async with app.run_test(size=(160, 30)) as pilot:
        app.tick(full=True)
        await pilot.pause()
        table = app.screen.query_one(AttemptTable)
        assert _cell(table, "a-1", "status") == "running"
        await pilot.press("question_mark")
        await pilot.pause()
        assert type(app.screen).__name__ == "HelpScreen"
        rig.time.advance(120)
        S.finish(rig.bus, "a-1", 120.0)
        app.tick()  # the help screen is on top: the finish is folded while it is drawn
        await pilot.press("escape")
        await pilot.pause()
        assert type(app.screen).__name__ == "HomeScreen"
        assert _cell(table, "a-1", "status") == "finished"
        assert "running" not in _cell(table, "a-1", "clock")
        frozen = _cell(table, "a-2", "clock")
        rig.time.advance(60)
        app.tick()
        await pilot.pause()
        assert _cell(table, "a-2", "clock") != frozen  # the live one still moves


async def test_sort_holds_after_a_filter_and_for_new_attempts(rig):
    rig.start("a-1", "sprint", title="Bravo", agent="scripted:elite")
    rig.start("a-2", "standard", title="Delta", agent="scripted:naive")
    rig.start("a-3", "marathon", title="Alpha", agent="scripted:naive")
    app = rig.app()
    async with app.run_test(size=(160, 30)) as pilot:
        app.tick(full=True)
        await pilot.pause()
        table = app.screen.query_one(AttemptTable)
        await pilot.press("s")  # by challenge, ascending
        assert table.attempt_ids == ["a-3", "a-1", "a-2"]
        await pilot.press("slash", *"naive")
        await pilot.pause()
        assert table.attempt_ids == ["a-3", "a-2"]
        await pilot.press("escape")  # clear the filter: a-1 comes back, in its sorted place
        await pilot.pause()
        assert table.attempt_ids == ["a-3", "a-1", "a-2"]
        rig.start("a-4", "sprint", title="Charlie")  # a new attempt sorts in too
        app.tick()
        await pilot.pause()
        assert table.attempt_ids == ["a-3", "a-1", "a-4", "a-2"]
        assert [table.render_line(y).text.split()[0] for y in (1, 2, 3, 4)] == ["Alpha", "Bravo", "Charlie", "Delta"]


async def test_a_theme_switch_restyles_the_activity_stream(rig):
    from rich.color import Color

    from gauntlet_tui.widgets import ActivityStream

    rig.start("a-1", "sprint", title="The Off-By-One")
    S.activity(rig.bus, "a-1", 5)
    app = rig.app(theme="gauntlet-dark")
    async with app.run_test(size=(140, 40)) as pilot:
        app.tick(full=True)
        app.open_attempt_screen("a-1")
        await pilot.pause()
        app.tick()
        await pilot.pause()
        stream = app.screen.query_one(ActivityStream)

        def colours() -> set[str]:
            return {
                seg.style.color.triplet.hex
                for strip in stream.lines
                for seg in strip
                if seg.style and seg.style.color and seg.style.color.triplet and seg.text.strip()
            }

        dark = colours()
        assert len(stream.lines) >= 3 and dark
        app.theme = "gauntlet-light"
        await pilot.pause()
        light_vars = app.theme_variables
        light = colours()
        wanted = {Color.parse(light_vars[k]).triplet.hex for k in ("primary", "secondary", "foreground")}
        assert light and light <= wanted | {Color.parse(light_vars["foreground"]).triplet.hex}
        assert light != dark
        background = Color.parse(light_vars["surface"]).triplet.hex
        assert background not in light  # no text in the background colour (white on white)
