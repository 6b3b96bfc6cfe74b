"""Heats and contestants' names on the screens (issue 34): the current heat first and
older attempts a key away, names that keep two models of one family apart at 160 and 200
columns, status words whole ("hung", "infra_error"), the big board's agent on every card,
the heat's Standings with exactly its contestants, toasts for the current heat only, and
removing a stored attempt from past attempts."""

from __future__ import annotations

import pytest

import heat_kit as H
from gauntlet_tui.widgets import AttemptTable

HEAT_IDS = [c[0] for c in H.CONTESTANTS]
OLDER_IDS = [c[0] for c in H.OLDER]


def _line(table: AttemptTable, attempt: str) -> str:
    return table.render_line(table.get_row_index(attempt) + 1).text


async def _ready(pilot) -> None:  # noqa: ANN001
    for _ in range(3):
        pilot.app.tick(full=True)
        await pilot.pause()


@pytest.mark.parametrize("cols", [160, 200])
async def test_the_heat_first_named_whole_and_older_attempts_a_key_away(cols):
    app = H.heat_app(H.heat_rig())
    async with app.run_test(size=(cols, 40)) as pilot:
        await _ready(pilot)
        home = app.screen
        table = home.query_one(AttemptTable)
        assert table.attempt_ids == HEAT_IDS  # this heat only, older attempts not mixed in
        title = str(home.query_one("#home-title").render())
        assert f"heat {H.HEAT}" in title and "2 older" in title and "3 running · 3 finished" in title
        lines = {a: _line(table, a) for a in HEAT_IDS}
        for attempt, agent, _model, name in H.CONTESTANTS:
            assert f" {name or agent} " in lines[attempt], lines[attempt]  # whole: two gpt-4.1s apart
        assert " hung " in lines["a-4ea70004"] and " infra_error " in lines["a-4ea70005"]
        assert table.virtual_size.width <= table.size.width  # nothing scrolls sideways
        await pilot.press("o")
        await _ready(pilot)
        assert table.attempt_ids == OLDER_IDS
        assert "older attempts" in str(home.query_one("#home-title").render())
        await pilot.press("o")
        await _ready(pilot)
        assert table.attempt_ids == HEAT_IDS


async def test_a_narrow_table_shortens_every_name_alike_never_into_the_difference():
    app = H.heat_app(H.heat_rig())
    async with app.run_test(size=(118, 30)) as pilot:
        await _ready(pilot)
        table = app.screen.query_one(AttemptTable)
        seen = {a: _line(table, a) for a in HEAT_IDS}
        assert table.name_level > 0  # shortened …
        assert "codex@…4.1-mini " in seen["a-4ea70001"] and "codex@…4.1 " in seen["a-4ea70002"]
        assert "claude-code@…sonnet-4-5 " in seen["a-4ea70003"]  # … all rows alike, from the left


async def test_big_board_names_the_agent_on_every_card_of_the_heat():
    from gauntlet_tui.screens.bigboard import BigBoardScreen

    app = H.heat_app(H.heat_rig())
    async with app.run_test(size=(160, 44)) as pilot:
        await _ready(pilot)
        app.action_big_board()
        await _ready(pilot)
        board = app.screen
        assert isinstance(board, BigBoardScreen) and sorted(board.cards) == HEAT_IDS
        grid = board.query_one("#board")
        assert (grid.styles.grid_size_columns, grid.styles.grid_size_rows) == (3, 2)
        for attempt, agent, _model, name in H.CONTESTANTS:
            card = board.cards[attempt]
            assert str(card.query_one(".card-title").render()) == (name or agent)
            assert "Rate Limiter with Teeth" in str(card.border_title)
        assert str(board.cards["a-4ea70004"].query_one(".card-state").render()).startswith("hung, 27:50 left")


async def test_toasts_for_the_current_heat_only_cut_at_a_word():
    rig = H.heat_rig()
    app = H.heat_app(rig, toasts=True)
    async with app.run_test(size=(160, 40)) as pilot:
        await _ready(pilot)
        app._notifications.clear()
        detail = "the sandbox of this attempt could not be reached after three tries, giving up on it now"
        rig.bus.publish("a-01d00001", 1200, "infra.error", {"source": "sandbox", "detail": "old heat"})
        rig.bus.publish("a-4ea70003", 1200, "infra.error", {"source": "sandbox", "detail": detail})
        app.tick()
        await pilot.pause()
        msgs = [n.message for n in app._notifications]
        assert len(msgs) == 1 and "claude-code@anthropic/claude-sonnet-4-5" in msgs[0] and "old heat" not in msgs[0]
        last = msgs[0].removesuffix("…").split()[-1]
        assert msgs[0].endswith("…") and last in detail.split()  # cut after a whole word, marked


async def test_the_store_s_newest_heat_its_history_never_toasted_and_its_standings(tmp_path):
    from gauntlet_tui.app import GauntletApp
    from gauntlet_tui.screens.standings import StandingsScreen

    db = tmp_path / "g.db"
    await H.stored_heat(db)
    app = GauntletApp(store=db, live_refresh=False, board=False)  # `gauntlet`, `gauntlet serve`
    async with app.run_test(size=(200, 44)) as pilot:
        await app.workers.wait_for_complete()
        await _ready(pilot)
        assert app.current_heat() == H.HEAT
        assert sorted(app.screen.query_one(AttemptTable).attempt_ids) == HEAT_IDS
        assert not app._notifications  # two stored infra errors: history, not news
        app.own_heat, app.heat = True, H.HEAT  # as `gauntlet arena` has it when its heat ends
        await app.show_standings(HEAT_IDS)
        await _ready(pilot)
        screen = app.screen
        assert isinstance(screen, StandingsScreen)
        text = " ".join(
            " ".join(str(c) for c in t.get_row_at(i)) for t in screen.query("DataTable") for i in range(t.row_count)
        )
        placings = screen.query_one("#standings-0")
        shown = {str(placings.get_row_at(i)[5]): placings.get_row_at(i) for i in range(placings.row_count)}
        assert sorted(shown) == HEAT_IDS  # exactly this heat's contestants
        assert str(shown["a-4ea70006"][1]) == "house-bot" and shown["a-4ea70004"][3] == "hung"
        assert "unrated" in shown["a-4ea70004"][6] and "unrated" in shown["a-4ea70005"][6]
        assert "scripted:naive" not in text  # the older heat's agent: not rated here
        assert "r Another round" not in " ".join(str(k.render()) for k in screen.query("FooterKey"))


async def test_d_removes_the_selected_stored_attempt_after_a_confirm(tmp_path):
    from gauntlet_tui.app import GauntletApp
    from gauntlet_tui.screens.past import PastScreen
    from store import Store

    db = tmp_path / "g.db"
    await H.stored_heat(db)
    app = GauntletApp(store=db, live_refresh=False, board=False, toasts=False)
    async with app.run_test(size=(160, 40)) as pilot:
        await app.workers.wait_for_complete()
        await _ready(pilot)
        await pilot.press("a")
        await pilot.pause()
        past = app.screen
        assert isinstance(past, PastScreen)
        table = past.query_one("#past-table")
        table.move_cursor(row=table.get_row_index("a-01d00002"))
        await pilot.press("d")
        await pilot.pause()
        await pilot.press("n")  # no: nothing removed
        await pilot.pause()
        assert "a-01d00002" in table.rows
        await pilot.press("d")
        await pilot.pause()
        await pilot.press("y")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "a-01d00002" not in table.rows and "a-01d00002" not in app.adapter.views
    store = await Store.open(db)
    try:
        assert await store.get_attempt("a-01d00002") is None
        assert await store.get_attempt("a-01d00001") is not None
    finally:
        await store.close()


async def test_an_arena_heat_ends_on_its_standings_with_exactly_its_contestants(tmp_path):
    """`gauntlet arena` in the TUI (run_cmd.tui_app, the real runner on the local backend):
    the store's older heats stay a key away, and the heat ends on its Standings."""
    from arena.challenge import load_challenge, resolve_challenge
    from arena.sandbox import get_backend
    from gauntlet_tui.cli.run_cmd import tui_app
    from gauntlet_tui.screens.standings import StandingsScreen

    db = tmp_path / "g.db"
    await H.stored_heat(db)  # two older heats
    challenge = load_challenge(resolve_challenge("off-by-one"))
    jobs = [(challenge, "scripted:naive", 600.0), (challenge, "scripted:elite", 600.0)]
    app, done = tui_app(db, get_backend("local"), jobs, parallel=2, kind="arena", argv={})
    async with app.run_test(size=(160, 40)) as pilot:
        for _ in range(600):  # real time: the attempts run and are judged
            await pilot.pause(0.2)
            if isinstance(app.screen, StandingsScreen):
                break
        assert done["statuses"] == ["finished", "finished"], done
        screen = app.screen
        assert isinstance(screen, StandingsScreen) and screen.heat == app.heat
        table = screen.query_one("#standings-0")
        assert sorted(str(table.get_row_at(i)[5]) for i in range(table.row_count)) == sorted(done["ids"])
        home = app.screen_stack[1]
        assert sorted(home.query_one(AttemptTable).attempt_ids) == sorted(done["ids"])  # older ones: o
