"""The dashboard table draws its rows itself (``widgets.table_render``, cached by row key
and fast): every line must be what DataTable's own renderer draws for the same data,
with the cursor on it or not, in each theme, after a sort; a click after a sort selects
the row under the mouse; markup-looking titles are drawn as text."""

from __future__ import annotations

import pytest
from textual.widgets import DataTable

import tui_scenarios as S
from gauntlet_tui.widgets import AttemptTable
from themes import THEME_NAMES

WIDE = "Task \u6f22\u5b57 Store"  # double-width characters cropped at the column edge


def _rows(rig):
    rig.start("a-1", "sprint", title="The Off-By-One", agent="scripted:elite", head_start=700)
    rig.start(
        "a-2",
        "standard",
        title="Rate Limiter, a title far too long for its column",
        agent="scripted:naive",
        head_start=1580,
    )
    rig.start("a-3", "marathon", title=WIDE, agent="human", head_start=1200)
    rig.start("a-4", "sprint", title="Done Early", agent="scripted:standard")
    rig.time.set(65)
    S.submit(rig.bus, "a-2", 1, 600, S.doc("standard", 1, 600), 41.0)
    S.finish(rig.bus, "a-4", 60, scored=None)


def _theirs(table: AttemptTable, y: int):
    """DataTable's own line for table line ``y`` (its caches dropped first)."""
    table._clear_caches()
    table._update_count += 1
    return DataTable._render_line(table, y, 0, table.size.width, table.rich_style)


def _differences(table: AttemptTable) -> list[str]:
    table._pseudo_class_state = table.get_pseudo_class_state()
    out = []
    for y in range(1, table.row_count + 1):
        ours = table._render_line(y, 0, table.size.width, table.rich_style)
        theirs = _theirs(table, y)
        if list(ours) != list(theirs):
            pairs = [(a, b) for a, b in zip(ours, theirs) if a != b] or [(len(ours), len(theirs))]
            out.append(f"line {y}: {pairs[0]!r}")
    return out


@pytest.mark.parametrize("theme", THEME_NAMES)
async def test_lines_are_what_datatable_draws(rig, theme):
    _rows(rig)
    app = rig.app(theme=theme)
    async with app.run_test(size=(150, 20)) as pilot:
        app.tick(full=True)
        await pilot.pause()
        table = app.screen.query_one(AttemptTable)
        assert _differences(table) == []
        await pilot.press("down", "down")
        await pilot.press("s")  # sort by challenge: the rows move, their cached cells stay
        await pilot.pause()
        assert _differences(table) == []


async def test_a_click_after_a_sort_selects_the_row_clicked(rig):
    _rows(rig)
    app = rig.app()
    async with app.run_test(size=(150, 20)) as pilot:
        app.tick(full=True)
        await pilot.pause()
        table = app.screen.query_one(AttemptTable)
        await pilot.press("s", "s")  # challenge, descending: a-2's row moves from 2nd to 3rd
        await pilot.pause()
        assert table.attempt_ids == ["a-1", "a-3", "a-2", "a-4"]
        await pilot.click(AttemptTable, offset=(5, 3))  # the third row
        await pilot.pause()
        assert app.screen.selected() == "a-2"


async def test_markup_in_a_title_is_drawn_as_text(rig):
    rig.start("a-1", "sprint", title="[b]Bold[/b] [red]x", agent="scripted:elite")
    app = rig.app()
    async with app.run_test(size=(150, 20)) as pilot:
        app.tick(full=True)
        await pilot.pause()
        table = app.screen.query_one(AttemptTable)
        assert table.render_line(1).text.startswith(" [b]Bold[/b] [r")  # cropped at the column
