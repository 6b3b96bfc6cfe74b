"""The home dashboard: one DataTable row per attempt, updated by key and only where a
cell changed; clock bar styles; sort, filter, open, stop with confirmation, pause."""

from __future__ import annotations

from textual.widgets import Input

import tui_scenarios as S
from gauntlet_tui.widgets import AttemptTable
from gauntlet_tui.widgets.clock import fmt_clock


def _three(rig):
    rig.start("a-1", "sprint", challenge="off-by-one", title="The Off-By-One", agent="scripted:elite")
    rig.start("a-2", "standard", challenge="rate-limiter", title="Rate Limiter", agent="scripted:naive")
    rig.start("a-3", "marathon", challenge="kv-store", title="KV Store", agent="human")


def _cell(table: AttemptTable, attempt: str, col: str) -> str:
    value = table.get_cell(attempt, col)
    return getattr(value, "plain", str(value))


def _drawn(table: AttemptTable, attempt: str) -> str:
    """The rendered line of an attempt's row, as the screen gets it."""
    return table.render_line(table.get_row_index(attempt) + 1).text


async def _home(app, pilot):
    app.tick(full=True)
    await pilot.pause()
    return app.screen.query_one(AttemptTable)


async def test_one_row_per_attempt_with_every_column(rig):
    _three(rig)
    app = rig.app()
    async with app.run_test(size=(160, 30)) as pilot:
        table = await _home(app, pilot)
        assert table.row_count == 3
        assert [c.label.plain for c in table.columns.values()] == [
            "Challenge",
            "Agent",
            "Clock",
            "Subs",
            "Score",
            "Phase",
            "Tokens/$",
            "Status",
            "Format",
            "Class",
        ]
        assert [
            _cell(table, "a-3", c)
            for c in ("challenge", "agent", "format", "weight", "subs", "score", "phase", "status")
        ] == ["KV Store", "human", "marathon", "middleweight", "0/6", "—", "1/4", "running"]
        assert _cell(table, "a-1", "clock").endswith("15:00")


async def test_only_changed_cells_are_written(rig):
    _three(rig)
    rig.time.set(10)  # the events below happen before this instant
    app = rig.app()
    async with app.run_test(size=(160, 30)) as pilot:
        table = await _home(app, pilot)
        before = table.updates
        S.activity(rig.bus, "a-2", 5)  # nothing on the dashboard changes
        app.tick()
        await pilot.pause()
        assert table.updates == before
        S.submit(rig.bus, "a-2", 1, 6, S.doc("standard", 1, 6), 55.0)
        app.tick()
        await pilot.pause()
        assert table.updates == before + 2  # subs and score, nothing else
        assert (_cell(table, "a-2", "subs"), _cell(table, "a-2", "score")) == (
            "1/4",
            "obj 55.0",
        )  # obj: the last objective, before the scorecard
        # and what is drawn is the new value (the cached renders of that row were dropped)
        assert "1/4   obj 55.0" in _drawn(table, "a-2")
        assert "0/2   —" in _drawn(table, "a-1")


async def test_clock_cell_turns_warning_at_80_and_urgent_at_90_percent(rig):
    rig.start("a-1", "sprint")
    app = rig.app()
    async with app.run_test(size=(160, 30)) as pilot:
        table = await _home(app, pilot)
        colours = app.theme_variables
        styles = {}
        for frac in (0.79, 0.8, 0.89, 0.9):
            rig.time.set(900 * frac)
            app.tick()
            await pilot.pause()
            styles[frac] = str(table.get_cell("a-1", "clock").style)
            assert fmt_clock(900 * (1 - frac)) in _drawn(table, "a-1")
        assert styles[0.79] == colours["success"]
        assert styles[0.8] == styles[0.89] == colours["warning"]
        assert styles[0.9] == "bold " + colours["error"]
        rig.time.set(900)
        app.tick()
        await pilot.pause()
        assert _cell(table, "a-1", "clock").endswith("over")


async def test_filter_with_slash_and_clear_with_escape(rig):
    _three(rig)
    app = rig.app()
    async with app.run_test(size=(160, 30)) as pilot:
        table = await _home(app, pilot)
        await pilot.press("slash")
        assert isinstance(app.focused, Input)
        await pilot.press(*"naive")
        await pilot.pause()
        assert table.attempt_ids == ["a-2"]
        await pilot.press("enter")  # keep the filter, back to the table
        assert app.focused is table
        S.activity(rig.bus, "a-1", 3)
        app.tick()
        await pilot.pause()
        assert table.attempt_ids == ["a-2"]  # live updates respect the filter
        await pilot.press("slash", "escape")
        await pilot.pause()
        assert sorted(table.attempt_ids) == ["a-1", "a-2", "a-3"]
        await pilot.press("slash", *"[b]x[/")  # markup-looking filter text is just text
        await pilot.pause()
        assert table.attempt_ids == [] and "filter: [b]x[/" in str(app.screen.query_one("#home-title").render())


async def test_sort_cycles_columns_and_direction(rig):
    _three(rig)
    app = rig.app()
    async with app.run_test(size=(160, 30)) as pilot:
        table = await _home(app, pilot)
        await pilot.press("s")
        assert table.sort_column == "challenge" and table.attempt_ids == ["a-3", "a-2", "a-1"]
        await pilot.press("s")
        assert table.sort_reverse and table.attempt_ids == ["a-1", "a-2", "a-3"]
        await pilot.press("s")
        assert table.sort_column == "agent" and table.attempt_ids == ["a-3", "a-1", "a-2"]
        assert [table.render_line(y).text.split()[0] for y in (1, 2, 3)] == ["KV", "The", "Rate"]


async def test_enter_opens_the_selected_attempt_and_escape_comes_back(rig):
    _three(rig)
    app = rig.app()
    async with app.run_test(size=(160, 30)) as pilot:
        await _home(app, pilot)
        await pilot.press("down", "enter")
        await pilot.pause()
        assert type(app.screen).__name__ == "AttemptScreen" and app.screen.attempt_id == "a-2"
        await pilot.press("escape")
        assert type(app.screen).__name__ == "HomeScreen"
        await pilot.press("down", "down", "enter")
        await pilot.pause()
        assert app.screen.attempt_id == "a-3"
        await pilot.press("q")  # q is back everywhere but home
        assert type(app.screen).__name__ == "HomeScreen"


async def test_stop_asks_first_and_only_yes_stops(rig):
    _three(rig)
    handle = S.RecordingHandle(rig, "a-1")
    rig.adapter.attach_handle("a-1", handle)
    app = rig.app()
    async with app.run_test(size=(160, 30)) as pilot:
        table = await _home(app, pilot)
        await pilot.press("x")
        await pilot.pause()
        assert type(app.screen).__name__ == "ConfirmScreen"
        await pilot.press("n")
        await pilot.pause()
        assert handle.stopped == 0
        await pilot.press("x")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
        assert handle.stopped == 1
        app.tick()
        await pilot.pause()
        assert _cell(table, "a-1", "status") == "finished"


async def test_p_pauses_live_updates_and_resumes(rig):
    _three(rig)
    app = rig.app()
    async with app.run_test(size=(160, 30)) as pilot:
        table = await _home(app, pilot)
        await pilot.press("p")
        S.submit(rig.bus, "a-1", 1, 6, S.doc("sprint", 1, 6), 70.0)
        app.tick()
        await pilot.pause()
        assert _cell(table, "a-1", "score") == "—"
        assert app.screen.query_one("#paused-banner").display
        await pilot.press("p")
        await pilot.pause()
        assert _cell(table, "a-1", "score") == "obj 70.0"
