"""Operator and author comforts (issue 13, item 7): the honest clock and score cells, the
detail pane, vi keys and header sorting, the palette's room actions, the footer at 80
columns, the screenshot key, the briefing tab and the submit warnings."""

from __future__ import annotations

import os

import tui_scenarios as S
from gauntlet_tui.screens.attempt import AttemptScreen, edited_since_submit
from gauntlet_tui.widgets import AttemptTable
from gauntlet_tui.widgets.attempt_table import clock_cell, score_cell
from gauntlet_tui.widgets.detail import DetailPane
from gauntlet_tui.widgets.footer import GauntletFooter


def _cell(table, attempt, col):
    value = table.get_cell(attempt, col)
    return getattr(value, "plain", str(value))


async def test_an_attempt_that_ended_early_says_done_and_the_time_left(rig):
    rig.start("a-1", "sprint", title="The Off-By-One")  # sprint: 15 minutes
    S.finish(rig.bus, "a-1", 375.0)  # 06:15 in: 08:45 left
    app = rig.app()
    async with app.run_test(size=(160, 30)) as pilot:
        app.tick(full=True)
        await pilot.pause()
        table = app.screen.query_one(AttemptTable)
        assert _cell(table, "a-1", "clock") == "done, 08:45 left"


def test_score_cell_is_the_scorecard_total_once_known_and_marked_before(rig):
    rig.start("a-1", "standard")
    S.submit(rig.bus, "a-1", 1, 100, S.doc("standard", 1, 100), 41.0)
    rig.adapter.flush()
    view = rig.adapter.views["a-1"]
    assert score_cell(view, None) == "obj 41.0"
    assert score_cell(view, 47.25) == "47.2"
    sig, text = clock_cell(view, 100.0, {})
    assert "done" not in text.plain  # still running: the bar and time left


async def test_dashboard_score_equals_the_scorecard_total_of_a_stored_attempt(tmp_path):
    from gauntlet_tui.app import GauntletApp
    from gauntlet_tui.history import load_events, scorecard

    db = tmp_path / "g.db"
    ids = await S.stored_attempts(db)
    card = scorecard(await load_events(db, ids[0]))
    app = GauntletApp(store=db, live_refresh=False, board=False, toasts=False)
    async with app.run_test(size=(160, 30)) as pilot:
        for _ in range(200):
            await pilot.pause(0.05)
            if ids[0] in app.totals.values:
                break
        await pilot.pause()
        table = app.screen.query_one(AttemptTable)
        assert app.totals.values[ids[0]] == card["total"]
        assert _cell(table, ids[0], "score") == f"{card['total']:.1f}"


async def test_detail_pane_follows_the_cursor_and_vi_keys_move_it(rig):
    rig.start("a-1", "sprint", title="Bravo")
    rig.start("a-2", "standard", title="Alpha")
    S.submit(rig.bus, "a-2", 1, 100, S.doc("standard", 1, 100, fails=1), 41.0)
    S.activity(rig.bus, "a-2", 120)
    app = rig.app()
    async with app.run_test(size=(160, 30)) as pilot:
        app.tick(full=True)
        await pilot.pause()
        pane = app.screen.query_one(DetailPane)
        assert pane.display and pane.attempt == "a-1"
        await pilot.press("j")
        await pilot.pause()
        assert pane.attempt == "a-2"
        text = str(pane.render())
        assert "Alpha" in text and "#1" in text and "fixing the boundary" in text
        await pilot.press("g")
        await pilot.pause()
        assert pane.attempt == "a-1"
        await pilot.press("G", "k")
        await pilot.pause()
        assert pane.attempt == "a-1"
    async with rig.app().run_test(size=(80, 24)) as pilot:  # narrow: the table keeps the width
        await pilot.pause()
        assert not pilot.app.screen.query_one(DetailPane).display


async def test_clicking_a_header_sorts_by_it_then_reverses(rig):
    rig.start("a-1", "sprint", title="Bravo")
    rig.start("a-2", "standard", title="Alpha")
    rig.start("a-3", "marathon", title="Charlie")
    app = rig.app()
    async with app.run_test(size=(160, 30)) as pilot:
        app.tick(full=True)
        await pilot.pause()
        table = app.screen.query_one(AttemptTable)
        await pilot.click(AttemptTable, offset=(3, 0))  # the Challenge header
        await pilot.pause()
        assert table.sort_column == "challenge" and table.attempt_ids == ["a-2", "a-1", "a-3"]
        await pilot.click(AttemptTable, offset=(3, 0))
        await pilot.pause()
        assert table.attempt_ids == ["a-3", "a-1", "a-2"]
        assert "sorted by challenge ▼" in str(app.screen.query_one("#home-title").render())


async def test_help_and_quit_stay_visible_at_80_columns(rig):
    rig.start("a-1", "sprint")
    app = rig.app()
    async with app.run_test(size=(80, 24)) as pilot:
        app.tick(full=True)
        await pilot.pause()
        footer = app.screen.query_one(GauntletFooter)
        keys = [k for k in footer.children]
        assert [k.key for k in keys[:2]] == ["question_mark", "q"]
        for key in keys[:2]:
            assert key.region.right <= 80 and key.region.width > 0


async def test_palette_offers_the_rooms_actions(rig):
    from gauntlet_tui.palette import app_commands

    rig.start("a-1", "sprint")
    app = rig.app()
    async with app.run_test(size=(160, 30)) as pilot:
        app.tick(full=True)
        await pilot.pause()
        titles = [c.title for c in app.get_system_commands(app.screen)]
        for want in ("Library", "Start an attempt…", "Leaderboard", "Open a-1", "Stop a-1", "Replay a-1", "Screenshot"):
            assert want in titles
        assert sum("screenshot" in t.lower() for t in titles) == 1
        open_cmd = next(c for c in app_commands(app) if c.title == "Open a-1")
        open_cmd.callback()
        await pilot.pause()
        assert isinstance(app.screen, AttemptScreen) and app.screen.attempt_id == "a-1"


async def test_the_screenshot_key_writes_to_the_current_directory_and_says_where(rig, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rig.start("a-1", "sprint")
    app = rig.app()
    async with app.run_test(size=(100, 24)) as pilot:
        await pilot.press("ctrl+s")
        await pilot.pause()
        shots = list(tmp_path.glob("*.svg"))
        assert len(shots) == 1 and shots[0].stat().st_size > 1000
        assert any(str(shots[0]) in str(n.message) for n in app._notifications)


async def test_briefing_tab_in_the_attempt_view_and_in_the_library(rig):
    from arena.challenge import load_challenge, resolve_challenge
    from gauntlet_tui.screens.library import LibraryScreen

    rig.start("a-1", "sprint", challenge="off-by-one", title="The Off-By-One")
    app = rig.app()
    briefing = load_challenge(resolve_challenge("off-by-one")).briefing
    async with app.run_test(size=(140, 40)) as pilot:
        app.tick(full=True)
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        app.tick()
        await pilot.pause()
        assert isinstance(app.screen, AttemptScreen)
        assert app.screen.briefing.strip() == briefing.strip()
        await pilot.press("escape", "l")
        await pilot.pause()
        assert isinstance(app.screen, LibraryScreen)
        assert app.screen.briefing and app.screen.briefing in {load_challenge(p).briefing for p in app.screen.paths[:1]}


def test_submit_warnings_replacing_sprint_resubmit_and_unchanged_workspace(rig):
    rig.start("a-1", "sprint")
    rig.adapter.flush()
    view = rig.adapter.views["a-1"]
    assert not edited_since_submit(view) and view.would_replace(10.0) is None
    S.activity(rig.bus, "a-1", 20)
    rig.adapter.flush()
    assert edited_since_submit(view)
    S.submit(rig.bus, "a-1", 1, 100, S.doc("sprint", 1, 100), 50.0)
    rig.adapter.flush()
    assert not edited_since_submit(view)  # nothing edited since submission 1
    window = view.rules.double_submit_window_s
    assert window > 0 and view.would_replace(100 + window / 2) == 1
    assert view.would_replace(100 + window + 1) is None
    rig.start("a-2", "standard")
    S.submit(rig.bus, "a-2", 1, 100, S.doc("standard", 1, 100), 50.0)
    rig.adapter.flush()
    assert rig.adapter.views["a-2"].would_replace(101) is None  # Standard never replaces


def test_swap_files_are_not_edits_and_the_store_dir_is_ignored(tmp_path):
    from arena.telemetry.watch import _walk, editor_temp

    for name in ("a.py.swp", ".a.py.swo", "a.py~", ".#a.py", "4913"):
        assert editor_temp(name)
        (tmp_path / name).write_text("x")
    (tmp_path / "a.py").write_text("print(1)\n")
    entries, _ = _walk(tmp_path)
    assert list(entries) == ["a.py"]
    root = os.path.dirname(os.path.dirname(os.path.dirname(__file__)))
    assert "*.db.d/" in open(os.path.join(root, ".gitignore")).read()
