"""The dashboard gives titles and classes the room the terminal has (issue 25), and its
Score column says what it shows: the scorecard total once known, else the objective so far."""

from __future__ import annotations

from textual.widgets import Static

import tui_scenarios as S
from arena.challenge import bundled_challenges, load_challenge
from gauntlet_tui.widgets import AttemptTable
from gauntlet_tui.widgets.detail import PANE_MAX, PANE_MIN, DetailPane
from gauntlet_tui.widgets.table_cells import COLUMNS, column_widths

CLASSES = ("lightweight", "middleweight", "heavyweight")


def _bundled() -> list[tuple[str, str, str, str]]:
    """(challenge, title, class, format) of every bundled challenge, from its manifest."""
    out = []
    for path in bundled_challenges():
        m = load_challenge(path).manifest
        out.append((path.name, m.title, str(m.weight_class), str(m.format)))
    return out


def _rows(rig, extra: int = 0) -> list[tuple[str, str, str]]:
    """Two attempts per bundled challenge, one per class of ``CLASSES`` on a bundled title
    too, and ``extra`` more (enough to need the vertical scrollbar): (attempt, title, class)."""
    shown = []
    for i, (name, title, cls, fmt) in enumerate(_bundled()):
        for agent in ("scripted:elite", "scripted:naive"):
            aid = f"a-{len(shown):08x}"
            rig.start(aid, fmt, challenge=name, title=title, agent=agent, extra={"weight_class": cls})
            shown.append((aid, title, cls))
    title = max((t for _, t, _, _ in _bundled()), key=len)
    for cls in CLASSES:
        aid = f"a-{len(shown):08x}"
        rig.start(aid, "standard", challenge="x", title=title, agent="scripted:elite", extra={"weight_class": cls})
        shown.append((aid, title, cls))
    for j in range(extra):
        rig.start(f"b-{j:08x}", "sprint", challenge="y", title=f"Extra {j}", agent="human")
    return shown


def _seen(table: AttemptTable, attempt: str) -> str:
    """The part of a row's line the reader sees: cropped where the scrollbar begins."""
    line = table.render_line(table.get_row_index(attempt) + 1).text
    return line[: table.scrollable_content_region.width]


async def test_full_titles_and_classes_at_160_columns(rig):
    shown = _rows(rig, extra=60)
    app = rig.app()
    async with app.run_test(size=(160, 50)) as pilot:
        app.tick(full=True)
        await pilot.pause()
        table = app.screen.query_one(AttemptTable)
        assert table.show_vertical_scrollbar  # the widths leave it its room
        for attempt, title, cls in shown:
            seen = _seen(table, attempt)
            assert f" {title}  " in seen and f" {cls} " in seen, seen
        assert table.virtual_size.width <= table.scrollable_content_region.width  # nothing scrolls sideways
        pane = app.screen.query_one(DetailPane)
        assert pane.display and PANE_MIN <= pane.outer_size.width <= PANE_MAX


async def test_a_longer_title_widens_its_column_and_a_wide_terminal_keeps_the_whole_pane(rig):
    rig.start("a-1", "sprint", challenge="kv", title="KV Store", agent="human")
    app = rig.app()
    async with app.run_test(size=(160, 50)) as pilot:
        app.tick(full=True)
        await pilot.pause()
        table = app.screen.query_one(AttemptTable)
        pane = app.screen.query_one(DetailPane)
        assert pane.outer_size.width == PANE_MAX  # short titles: the table leaves the pane all it wants
        long = "A Title Longer Than Bundled"
        rig.start(
            "a-2", "standard", challenge="long", title=long, agent="human", extra={"weight_class": "middleweight"}
        )
        app.tick(full=True)
        await pilot.pause()
        await pilot.pause()
        assert f" {long}  " in _seen(table, "a-2")
        assert PANE_MIN <= pane.outer_size.width < PANE_MAX  # it gave way to the title
        await pilot.resize_terminal(200, 50)
        await pilot.pause()
        await pilot.pause()
        assert pane.outer_size.width == PANE_MAX and f" {long}  " in _seen(table, "a-2")


def test_short_room_costs_the_challenge_then_the_agent_never_below_their_base():
    base = {k: w for k, _, w in COLUMNS}
    longest = {"challenge": 30, "agent": 20, "format": 8, "weight": 12}
    wide = column_widths(COLUMNS, longest, room=1000, padding=1)
    assert (wide["challenge"], wide["agent"], wide["weight"]) == (30, 20, 12)
    need = sum(wide.values()) + 2 * len(wide)
    less = column_widths(COLUMNS, longest, room=need - 10, padding=1)
    assert (less["challenge"], less["agent"]) == (20, 20)
    least = column_widths(COLUMNS, longest, room=need - 40, padding=1)
    assert (least["challenge"], least["agent"]) == (base["challenge"], base["agent"])
    assert {k: v for k, v in least.items() if k not in ("challenge", "agent")} == {
        k: v for k, v in wide.items() if k not in ("challenge", "agent")
    }


async def test_score_column_says_objective_so_far_until_the_total_is_known(rig):
    rig.start("a-1", "sprint", challenge="off-by-one", title="The Off-By-One", agent="scripted:elite")
    rig.start("a-2", "standard", challenge="rate-limiter", title="Rate Limiter", agent="scripted:naive")
    rig.start("a-3", "standard", challenge="rate-limiter", title="Rate Limiter", agent="scripted:elite")
    S.submit(rig.bus, "a-1", 1, 400, S.doc("sprint", 1, 400), 100.0)
    S.finish(rig.bus, "a-1", 500, scored=1)
    S.submit(rig.bus, "a-2", 1, 600, S.doc("standard", 1, 600), 62.5)
    S.submit(rig.bus, "a-3", 1, 600, S.doc("standard", 1, 600), 9.0)
    app = rig.app()
    async with app.run_test(size=(160, 50)) as pilot:
        app.tick(full=True)
        await pilot.pause()
        table = app.screen.query_one(AttemptTable)
        assert "obj 100 " in _seen(table, "a-1")  # finished, no scorecard total yet: still the objective
        app.totals.values["a-1"] = 91.9  # what the scorecard says (gauntlet_tui.totals)
        app.refresh_rows({"a-1"})
        app.tick(full=True)
        await pilot.pause()
        assert " 91.9 " in _seen(table, "a-1") and "obj" not in _seen(table, "a-1")
        assert " obj 62.5 " in _seen(table, "a-2")
        legend = str(app.screen.query_one("#score-legend", Static).render())
        assert legend.startswith("Score: 91.9 = the scorecard total")
        assert "obj 62.5 = objective so far" in legend and "before process, strategy, integrity" in legend
        assert app.screen.query_one("#score-legend").region.width == 160  # on screen, one line
        assert app.screen.query_one("#score-legend").region.height == 1
        await pilot.press("down")  # the detail pane beside it says the same
        await pilot.pause()
        assert "obj 62.5" in str(app.screen.query_one(DetailPane).render())
        table.sort_column = "score"
        table.apply_sort()
        assert table.attempt_ids == ["a-3", "a-2", "a-1"]  # by the number: obj 9.0, obj 62.5, 91.9
