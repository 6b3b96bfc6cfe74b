"""Screens over a real store: home lists stored attempts, past attempts with the
scorecard (arena.scoring), the leaderboard, and replay with speed, pause and seek."""

from __future__ import annotations

import pytest
from textual.widgets import DataTable

import tui_scenarios as S
from arena.clock import ManualTime
from gauntlet_tui.app import GauntletApp
from gauntlet_tui.history import load_events
from gauntlet_tui.screens.replay import ReplayScreen
from gauntlet_tui.widgets import AttemptTable


async def _wait_rows(app, pilot, table, n):
    for _ in range(100):
        if table.row_count >= n:
            return
        await pilot.pause(0.05)
    raise AssertionError(f"{table.row_count} rows, expected {n}")


async def test_home_lists_the_stored_attempts(tmp_path):
    ids = await S.stored_attempts(tmp_path / "g.db")
    app = GauntletApp(store=tmp_path / "g.db", live_refresh=False)
    async with app.run_test(size=(160, 30)) as pilot:
        table = app.screen.query_one(AttemptTable)
        await _wait_rows(app, pilot, table, 2)
        assert sorted(table.attempt_ids) == ids
        from gauntlet_tui.history import load_events, scorecard

        total = scorecard(await load_events(tmp_path / "g.db", "a-0000000a"))["total"]
        for _ in range(200):  # the Score column is the scorecard's total once judged
            if table.get_cell("a-0000000a", "score") == f"{total:.1f}":
                break
            await pilot.pause(0.05)
        assert table.get_cell("a-0000000a", "score") == f"{total:.1f}"
        assert table.get_cell("a-0000000a", "subs") == "3/4"
        assert table.get_cell("a-0000000b", "phase") == "2/4"
        assert table.get_cell("a-0000000a", "clock").plain == "done, 01:40 left"  # ended at 28:20 of 30:00


async def test_past_attempts_show_the_scorecard_from_judging(tmp_path):
    await S.stored_attempts(tmp_path / "g.db")
    app = GauntletApp(store=tmp_path / "g.db", live_refresh=False)
    async with app.run_test(size=(160, 40)) as pilot:
        await _wait_rows(app, pilot, app.screen.query_one(AttemptTable), 2)
        await pilot.press("a")
        await pilot.pause()
        assert type(app.screen).__name__ == "PastScreen"
        table = app.screen.query_one(DataTable)
        assert table.row_count == 2
        body = app.screen.query_one("#scorecard-body")

        async def card_for(attempt):
            from arena.scoring import judge_attempt

            expected = judge_attempt(await load_events(tmp_path / "g.db", attempt))
            needle = f"total {expected.total:.1f}"
            for _ in range(100):
                text = str(body.render())
                if expected.challenge in text:
                    break
                await pilot.pause(0.05)
            assert f"{expected.challenge} — {expected.agent}" in text and needle in text
            return text

        first = str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)
        await card_for(first)
        await pilot.press("down")
        second = str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)
        assert {first, second} == {"a-0000000a", "a-0000000b"}
        text = await card_for(second)
        assert "objective" in text and "integrity" in text
        await pilot.press("enter")  # replay the selected attempt
        for _ in range(100):
            if type(app.screen).__name__ == "ReplayScreen":
                break
            await pilot.pause(0.05)
        assert type(app.screen).__name__ == "ReplayScreen" and app.screen.attempt_id == second


async def test_leaderboard_screen_computes_the_ratings_itself(tmp_path):
    """No `gauntlet leaderboard` ran (the store's rating tables are empty): the screen
    rates the finished attempts itself, exactly as arena.scoring does (one table per class)."""
    from arena.scoring.load import leaderboard
    from gauntlet_tui.widgets.ratings import cells

    await S.stored_attempts(tmp_path / "g.db")
    expected = (await leaderboard(tmp_path / "g.db", persist=False)).class_tables()
    assert expected, "the scenario has finished attempts to rate"
    app = GauntletApp(store=tmp_path / "g.db", live_refresh=False)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("b")
        await pilot.pause(0.5)
        for t in expected:
            table = app.screen.query_one(f"#leaderboard-{t['weight_class']}", DataTable)
            rows = [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]
            assert rows == [[str(c) for c in cells(r, t["ranked"], t["weight_class"])] for r in t["agents"]]


async def test_replay_plays_on_the_clock_with_pause_speed_and_seek(tmp_path):
    await S.stored_attempts(tmp_path / "g.db")
    events = await load_events(tmp_path / "g.db", "a-0000000a")
    time = ManualTime()
    screen = ReplayScreen(events, speed=100.0, source=time, timer_hz=None)
    app = GauntletApp(store=tmp_path / "g.db", live_refresh=False)
    async with app.run_test(size=(140, 45)) as pilot:
        app.push_screen(screen)
        await pilot.pause()
        view = lambda: screen.adapter.views["a-0000000a"]  # noqa: E731
        assert view().started and not view().feedback
        time.advance(3.5)  # 350 attempt seconds at x100
        screen.step()
        await pilot.pause()
        assert sorted(view().feedback) == [1]
        await pilot.press("space")  # pause
        time.advance(100)
        screen.step()
        assert sorted(view().feedback) == [1]
        assert "PAUSED" in str(screen.query_one("#replay-bar").render())
        await pilot.press("minus")
        assert screen.replay.speed == 50.0
        await pilot.press("plus", "space", "plus")  # back to x100, resume, twice as fast
        assert screen.replay.speed == 200.0 and not screen.replay.paused
        time.advance(1.6)  # 320 attempt seconds
        screen.step()
        await pilot.pause()
        assert sorted(view().feedback) == [1, 2] and screen.replay.position() == pytest.approx(670.0)
        await pilot.press("left", "left", "left", "left", "left", "left")  # seek back 180 s
        await pilot.pause()
        assert sorted(view().feedback) == [1] and screen.replay.position() == pytest.approx(490.0)
        assert len(screen.query("FeedbackPane")) == 1
        for _ in range(50):
            await pilot.press("right")
        await pilot.pause()
        assert view().finished and screen.query_one("AttemptClock").has_class("-over")
        assert len(screen.query("FeedbackPane")) == 3
        assert "Adversarial" in str(screen.query_one("#sub-3 .feedback-body").render())


async def test_home_follows_attempts_that_another_process_runs(tmp_path):
    """Events appended to the store by someone else (here: a second Store connection,
    as `gauntlet arena` in another terminal would) show up on the dashboard live."""
    from arena.bus import EventBus
    from store import Store

    db = tmp_path / "g.db"
    writer = await Store.open(db)
    bus = EventBus()
    bus.subscribe(writer.append)
    S.start(bus, "a-000000f1", "sprint", title="Followed")
    await writer.flush()
    app = GauntletApp(store=db)  # live refresh on: the follower polls
    try:
        async with app.run_test(size=(140, 30)) as pilot:
            table = app.screen.query_one(AttemptTable)

            async def until(cond):
                for _ in range(100):
                    if cond():
                        return
                    await pilot.pause(0.1)
                raise AssertionError("not shown in time")

            await until(lambda: table.row_count == 1)
            assert table.get_cell("a-000000f1", "score") == "—"
            S.submit(bus, "a-000000f1", 1, 120.0, S.doc("sprint", 1, 120.0), 66.0)
            await writer.flush()
            await until(lambda: table.get_cell("a-000000f1", "score") == "obj 66.0")
            S.finish(bus, "a-000000f1", 200.0)
            await writer.flush()
            await until(lambda: table.get_cell("a-000000f1", "status") == "finished")
    finally:
        await writer.close()
