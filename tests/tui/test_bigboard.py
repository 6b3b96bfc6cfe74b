"""The big board (one card per attempt, for projectors) and the dashboard's toasts:
cards follow the engine's views (clock, state colour, score, last feedback), the board
opens by default under the projector theme and on ``v``, toasts announce warnings,
cutoff, reveals and infra errors. Snapshots of the board and the standings screen."""

from __future__ import annotations

import tui_scenarios as S
from tui_scenarios import Rig


def _board_rig() -> Rig:
    rig = Rig()
    rig.start(
        "a-00000001", "sprint", challenge="off-by-one", title="The Off-By-One", agent="scripted:elite", head_start=700
    )
    rig.start(
        "a-00000002",
        "standard",
        challenge="rate-limiter",
        title="Rate Limiter",
        agent="scripted:naive",
        head_start=1580,
    )
    rig.start(
        "a-00000003", "marathon", challenge="task-store", title="Task Store", agent="scripted:standard", head_start=1200
    )
    rig.start("a-00000004", "sprint", challenge="off-by-one", title="The Off-By-One", agent="human")
    rig.time.set(65)
    S.submit(rig.bus, "a-00000001", 1, 400, S.doc("sprint", 1, 400), 62.5)
    S.submit(rig.bus, "a-00000002", 1, 600, S.doc("standard", 1, 600), 41.0)
    S.submit(rig.bus, "a-00000002", 2, 1200, S.doc("standard", 2, 1200), 58.0)
    S.reveal(rig.bus, "a-00000003", 2, 1250)
    S.finish(rig.bus, "a-00000004", 375, scored=None)
    return rig


async def _ready(pilot):
    for _ in range(3):
        pilot.app.tick(full=True)
        await pilot.pause()


def test_big_board_snapshot(snap_compare):
    app = _board_rig().app(theme="gauntlet-projector", board=True)
    assert snap_compare(app, terminal_size=(160, 45), run_before=_ready)


async def test_cards_follow_the_views_and_v_toggles():
    from gauntlet_tui.screens.bigboard import BigBoardScreen

    rig = _board_rig()
    app = rig.app(theme="gauntlet-projector", board=None)  # projector: the board by default
    async with app.run_test(size=(160, 45)) as pilot:
        await _ready(pilot)
        board = app.screen
        assert isinstance(board, BigBoardScreen) and len(board.cards) == 4
        assert not board.query_one("#board-pages").display  # one page: no page line, no page keys
        assert "Next page" not in {k.description for k in board.query("FooterKey")}
        card = board.cards["a-00000002"]
        assert card.has_class("-urgent")  # 1645 s of 1800: past 90%
        assert "obj 58.0" in str(card.query_one(".card-state").render())
        assert "#2" in str(card.query_one(".card-feedback").render())
        done = board.cards["a-00000004"]
        assert done.has_class("-over") and "done, 08:45 left" in str(done.query_one(".card-state").render())
        S.clock_mark(rig.bus, "a-00000001", "sprint", "clock.cutoff")
        rig.time.set(400)
        await _ready(pilot)
        assert board.cards["a-00000001"].has_class("-over")
        await pilot.press("v")
        await pilot.pause()
        assert type(app.screen).__name__ == "HomeScreen"
        await pilot.press("v")
        await pilot.pause()
        assert isinstance(app.screen, BigBoardScreen)


async def test_toasts_for_warnings_reveals_and_infra(monkeypatch):
    rig = _board_rig()
    app = rig.app(theme="gauntlet-dark", toasts=True)
    monkeypatch.setenv("GAUNTLET_BELL", "1")
    bells = []
    monkeypatch.setattr(app, "bell", lambda: bells.append(1))
    async with app.run_test(size=(160, 45)) as pilot:
        await _ready(pilot)
        bells.clear()  # the scenario's own reveal rang once already
        S.clock_mark(rig.bus, "a-00000001", "sprint", "clock.soft_warning")
        S.clock_mark(rig.bus, "a-00000002", "standard", "clock.soft_warning")
        S.reveal(rig.bus, "a-00000003", 3, 1400)
        rig.bus.publish("a-00000003", 1401, "infra.error", {"source": "sandbox", "detail": "container died"})
        app.tick()
        await pilot.pause()
        msgs = [n.message for n in app._notifications]
        assert any(m.startswith("80% of the time used: off-by-one") and "rate-limiter" in m for m in msgs)
        assert any("phase revealed: task-store" in m and "phase 3" in m for m in msgs)
        assert any("infrastructure error" in m and "container died" in m for m in msgs)
        assert bells == [1]  # one bell per refresh, not one per toast


def test_standings_snapshot(snap_compare):
    from arena.scoring.standings import Placing, Standings
    from gauntlet_tui.app import GauntletApp
    from gauntlet_tui.screens.standings import StandingsScreen

    s = Standings()
    for ch, rows in {
        "off-by-one": [("scripted:elite", 92.7, 2), ("scripted:naive", 68.0, 2)],
        "rate-limiter": [("scripted:elite", 72.1, 3), ("scripted:naive", 20.3, 3)],
    }.items():
        s.by_challenge[ch] = [
            Placing(f"a-{ch[:4]}{i}", a, ch, "finished", t, n, ch == "rate-limiter") for i, (a, t, n) in enumerate(rows)
        ]
    one = {
        "games": 2,
        "weight_class": "lightweight",
        "rating_games": 2,
        "unverified_attempts": 1,
    }  # Leaderboard.agent_rows()'s shape
    s.ratings = [
        {**one, "agent": "scripted:elite", "elo": 1083.4, "mean_total": 82.4, "ranked_mean_total": 82.4}
        | {"rank": 1, "rank_band": "1", "rating": 1160.0, "low": 1021.3, "high": 1304.0, "one_sided": "lower"},
        {**one, "agent": "scripted:naive", "elo": 1013.8, "mean_total": 44.2, "ranked_mean_total": 44.2}
        | {"rank": 2, "rank_band": "2", "rating": 840.0, "low": 696.0, "high": 978.7, "one_sided": "upper"},
    ]
    row = {"weight_class": "lightweight", "under_review": False, "unverified_attempts": 1}  # rate-limiter's
    s.classes = [
        {
            "weight_class": "lightweight",
            "multiplier": 1.0,
            "ranked": True,
            "agents": [
                {
                    **row,
                    "agent": "scripted:elite",
                    "rank": 1,
                    "rank_band": "1",
                    "rating": 1160.0,
                    "low": 1021.3,
                    "high": 1304.0,
                    "one_sided": "lower",
                    "games": 2,
                    "attempts": 2,
                    "mean_total": 82.4,
                    "elo": 1083.4,
                },
                {
                    **row,
                    "agent": "scripted:naive",
                    "rank": 2,
                    "rank_band": "2",
                    "rating": 840.0,
                    "low": 696.0,
                    "high": 978.7,
                    "one_sided": "upper",
                    "games": 2,
                    "attempts": 2,
                    "mean_total": 44.2,
                    "elo": 1013.8,
                },
            ],
        }
    ]
    app = GauntletApp(live_refresh=False, theme="gauntlet-projector", board=False, toasts=False)

    async def show(pilot):
        app.push_screen(StandingsScreen(s))
        await pilot.pause()

    assert snap_compare(app, terminal_size=(120, 30), run_before=show)


async def test_more_attempts_than_fit_are_paged_and_cards_are_reused():
    """1,000 attempts do not mount 1,000 cards: one page of cards that fit the screen,
    PgDn/PgUp turn it (the same card widgets re-pointed), a line says which page."""
    from textual.widgets._footer import FooterKey

    from gauntlet_tui.screens.bigboard import AttemptCard, BigBoardScreen, grid_for

    rig = Rig()
    for i in range(40):
        rig.start(
            f"a-{i:08d}",
            ("sprint", "standard", "marathon")[i % 3],
            title=f"Challenge {i}",
            agent=f"scripted:agent{i % 5}",
            head_start=10 * i,
        )
    rig.time.set(30)
    S.submit(rig.bus, "a-00000017", 1, 20, S.doc("standard", 1, 20), 77.0)
    app = rig.app(theme="gauntlet-projector", board=True)
    async with app.run_test(size=(160, 45)) as pilot:
        await _ready(pilot)
        board = app.screen
        assert isinstance(board, BigBoardScreen)
        cols, rows, per_page = grid_for(40, 160, 43)
        assert (cols, rows, per_page) == (4, 4, 16) and board.pages == 3
        assert len(board.query(AttemptCard)) == 16 and list(board.cards)[0] == "a-00000000"
        first = dict(board.cards)
        line = str(board.query_one("#board-pages").render())
        assert "page 1/3" in line and "attempts 1–16 of 40" in line
        assert {"Next page", "Prev page"} <= {k.description for k in board.query(FooterKey)}
        await pilot.press("pagedown")
        await _ready(pilot)
        assert list(board.cards)[0] == "a-00000016" and "page 2/3" in str(board.query_one("#board-pages").render())
        assert set(board.cards.values()) == set(first.values())  # the same widgets, re-pointed
        assert "obj 77.0" in str(board.cards["a-00000017"].query_one(".card-state").render())
        await pilot.press("pagedown", "pagedown")  # the last page: 8 cards shown, the rest hidden
        await _ready(pilot)
        assert board.page == 2 and len(board.cards) == 8
        assert sum(1 for c in board.query(AttemptCard) if c.display) == 8
        await pilot.press("pageup")
        await _ready(pilot)
        assert board.page == 1
        app.save_screenshot("paged-board.svg", str(_shots()))


def _shots():
    import os
    from pathlib import Path

    path = Path(os.environ.get("GAUNTLET_SHOTS", "/tmp/gauntlet-shots"))
    path.mkdir(parents=True, exist_ok=True)
    return path


def test_grid_fits_cards_to_the_screen():
    from gauntlet_tui.screens.bigboard import grid_for

    assert grid_for(4, 160, 44) == (2, 2, 4)  # few: a near-square grid, as before
    assert grid_for(6, 160, 44) == (3, 2, 6)
    assert grid_for(16, 160, 44) == (4, 4, 16)
    assert grid_for(1000, 160, 48) == (4, 4, 16)  # many: the page holds what fits
    assert grid_for(1000, 80, 23) == (2, 2, 4)
    assert grid_for(1000, 30, 8) == (1, 1, 1)  # never less than one card


async def test_a_theme_switch_while_the_board_is_away_restyles_it_on_return():
    """The board stays mounted between toggles and skips Textual's restyle on return
    when nothing changed (screens.kept); a theme switch meanwhile must still restyle it."""
    from textual.color import Color

    rig = _board_rig()
    app = rig.app(theme="gauntlet-dark", board=True)
    async with app.run_test(size=(160, 45)) as pilot:
        await _ready(pilot)
        board = app.screen
        card = board.cards["a-00000003"]  # marathon, 1200 s of 3600: ok, the primary border
        before = card.styles.border_top[1]
        await pilot.press("v")
        await pilot.pause()
        assert type(app.screen).__name__ == "HomeScreen"
        await pilot.press("v")
        await _ready(pilot)
        assert app.screen is board and card.styles.border_top[1] == before  # back, same styles
        await pilot.press("v")
        await pilot.pause()
        app.theme = "gauntlet-light"
        await pilot.pause()
        await pilot.press("v")
        await _ready(pilot)
        assert app.screen is board
        assert card.styles.border_top[1] == Color.parse(app.theme_variables["primary"]) != before
