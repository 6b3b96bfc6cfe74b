"""The dashboard table at scale: a refresh writes only the rows in sight, rows out of sight
are written the moment they scroll into view, and sorting uses every row's current
view, in sight or not (issue 13: 1,000 live attempts)."""

from __future__ import annotations

import tui_scenarios as S
from gauntlet_tui.widgets import AttemptTable

N = 300


def _many(rig):
    for i in range(N):
        rig.start(
            f"a-{i:04d}", ("sprint", "standard", "marathon")[i % 3], title=f"Challenge {i:04d}", agent="scripted:elite"
        )
    rig.time.set(30)


def _cell(table: AttemptTable, attempt: str, col: str) -> str:
    value = table.get_cell(attempt, col)
    return getattr(value, "plain", str(value))


async def _home(app, pilot) -> AttemptTable:
    app.tick(full=True)
    await pilot.pause()
    return app.screen.query_one(AttemptTable)


async def test_a_refresh_writes_the_rows_in_sight_only(rig):
    _many(rig)
    app = rig.app()
    async with app.run_test(size=(160, 30)) as pilot:
        table = await _home(app, pilot)
        assert table.row_count == N
        in_sight = len(table.visible_rows())
        assert in_sight < 40
        before = table.updates
        rig.time.advance(5)  # every clock moves
        app.tick()
        await pilot.pause()
        assert 0 < table.updates - before <= in_sight  # one clock cell per row in sight
        assert _cell(table, f"a-{N - 1:04d}", "clock") == ""  # out of sight: not written yet


async def test_a_row_is_written_when_it_scrolls_into_view(rig):
    _many(rig)
    app = rig.app()
    async with app.run_test(size=(160, 30)) as pilot:
        table = await _home(app, pilot)
        last = f"a-{N - 1:04d}"
        S.submit(rig.bus, last, 1, 20, S.doc("marathon", 1, 20), 61.0)
        app.tick()
        await pilot.pause()
        await pilot.press("G")  # to the last row
        await pilot.pause()
        assert _cell(table, last, "score") == "obj 61.0" and _cell(table, last, "subs") == "1/6"
        assert _cell(table, last, "challenge") == f"Challenge {N - 1:04d}"
        assert any("Challenge 0299" in table.render_line(y).text for y in range(table.size.height))
        assert app.screen.query_one("#home-detail").attempt == last


async def test_sorting_uses_rows_out_of_sight_too(rig):
    _many(rig)
    app = rig.app()
    async with app.run_test(size=(160, 30)) as pilot:
        table = await _home(app, pilot)
        far, farther = f"a-{N - 20:04d}", f"a-{N - 1:04d}"
        S.submit(rig.bus, far, 1, 20, S.doc("marathon", 1, 20), 50.0)
        app.tick()
        await pilot.pause()
        for _ in range(4):  # score is the 5th column: s cycles asc/desc per column
            await pilot.press("s", "s")
        await pilot.press("s")  # score, ascending: scored rows first
        assert (table.sort_column, table.sort_reverse) == ("score", False)
        assert table.attempt_ids[0] == far
        table.resort_interval = 0  # live changes reorder at the next refresh (default: within 1 s)
        S.submit(rig.bus, farther, 1, 20, S.doc("marathon", 1, 20), 40.0)  # while sorted: re-sorts
        app.tick()
        await pilot.pause()
        assert table.attempt_ids[:2] == [farther, far]
        assert [table.render_line(y).text.split()[1] for y in (1, 2)] == ["0299", "0280"]
        assert "obj 40.0" in table.render_line(1).text and "obj 50.0" in table.render_line(2).text


async def test_live_changes_reorder_a_sorted_table_at_most_once_an_interval(rig):
    _many(rig)
    app = rig.app()
    async with app.run_test(size=(160, 30)) as pilot:
        table = await _home(app, pilot)
        for _ in range(9):  # score, ascending
            await pilot.press("s")
        table.resort_interval = 3600.0
        S.submit(rig.bus, "a-0100", 1, 20, S.doc("standard", 1, 20), 10.0)
        app.tick()
        await pilot.pause()
        assert table.attempt_ids[0] != "a-0100"  # not yet: the last reorder was just now
        assert _cell(table, "a-0000", "score") == "—"  # rows in sight are written meanwhile
        table.resort_interval = 0.0  # the interval has passed
        app.tick()
        await pilot.pause()
        assert table.attempt_ids[0] == "a-0100"
        rig.start("a-9999", "sprint", title="Challenge new")  # a new row sorts in at once
        table.resort_interval = 3600.0
        S.submit(rig.bus, "a-0200", 1, 20, S.doc("marathon", 1, 20), 5.0)
        app.tick()
        await pilot.pause()
        assert table.attempt_ids[0] == "a-0200"  # the re-sort the new row made took it along
        assert "a-9999" in table.attempt_ids


async def test_the_app_freezes_what_is_there_once_up_and_releases_it_on_exit(rig):
    """gcpolicy: full collections skip what exists once the app is up (they paused the
    room for 0.2 s at 1,000 attempts); after the app ends it can all be collected."""
    import gc

    _many(rig)
    before = gc.get_threshold()
    app = rig.app()
    async with app.run_test(size=(160, 30)) as pilot:
        await _home(app, pilot)
        await pilot.pause()
        assert gc.get_freeze_count() > 10_000 and gc.get_threshold()[0] > before[0]
    assert gc.get_freeze_count() == 0 and gc.get_threshold() == before
