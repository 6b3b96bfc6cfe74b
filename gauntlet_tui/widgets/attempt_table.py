"""The dashboard: ONE DataTable, a row per attempt, updated by row key.

``sync(ids)`` is given the attempts that changed, or whose clock moved, since the last
call; the table reads each one's ``(view, elapsed, total)`` through its ``source``. A
refresh costs what is on screen, not what is in the store:

- only rows in sight are written (and only their cells whose signature changed); the
  others are marked stale and written the moment they scroll into view;
- sorting uses keys from the views (``table_cells.sort_key``), for every row in sight or
  not; new rows and a sort key take their place at once, live changes reorder the rows at
  most once a ``resort_interval`` (1 s: a thousand rows re-sorted and redrawn four times a
  second cost more than anything else on the table, and jumped under the reader's eyes);
- rows are drawn by ``TableRender`` (``table_render``), cached per cell and per line, so
  a sort or a cursor move re-assembles lines from cached cells.
- column widths are the table's own (``fit_columns``): the live columns fixed, the static
  ones as wide as their longest value, noted once per row as it is added; they change
  only with a longer value or a resize (``table_cells.column_widths``), and the dashboard
  gives the detail pane what ``wanted_width`` leaves.

Rows that do not match the filter are left out; sorting is by any column. The Node column
(the cluster node an attempt ran on; "local" for one that ran on the command's machine) is
there only once some attempt has a node: ``show_nodes(True)`` rebuilds the table with it,
keeping the selected row.
"""

from __future__ import annotations

import time
from typing import Any, Callable, Iterable

from rich.cells import cell_len
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.widgets import DataTable
from textual._two_way_dict import TwoWayDict
from textual.widgets.data_table import CellKey, ColumnKey, RowKey

from arena.names import Namer
from arena.view import AttemptView
from gauntlet_tui.widgets.table_cells import (  # noqa: F401 — clock_cell etc. are used from here too
    COLUMNS,
    NAME_LEVELS,
    NODE_COLUMN,
    STATIC,
    _sort_value,
    _text_cells,
    _usage_cell,
    agent_cell,
    clock_cell,
    column_widths,
    columns,
    fitted,
    row_cells,
    score_cell,
    sort_key,
    static_texts,
)
from gauntlet_tui.widgets.table_render import TableRender

# attempt id -> (view, elapsed attempt seconds now, scorecard total or None), or None
Source = Callable[[str], "tuple[AttemptView, float, float | None] | None"]
MARGIN = 2  # rows above and below the window kept up to date too
RESORT_S = 1.0  # live changes reorder a sorted table at most this often (new rows: at once)


class AttemptTable(TableRender, DataTable):
    DEFAULT_CSS = """
    AttemptTable { height: 1fr; scrollbar-size-vertical: 1; }
    """
    BINDINGS = [  # vi keys, besides the arrows and Home/End
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
        Binding("g", "first_row", "First", show=False),
        Binding("G", "last_row", "Last", show=False),
    ]

    def __init__(self, source: Source | None = None, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=False, cursor_foreground_priority="renderable")
        self.source: Source = source or (lambda attempt: None)
        self._cells: dict[str, dict[str, Any]] = {}  # row key -> column -> signature written
        self._stale: set[str] = set()  # rows whose cells may be behind their view
        self._keys: dict[str, Any] = {}  # row key -> sort key of the sort column
        self._rekey: set[str] = set()  # rows whose view changed since their key was read
        self._sorted_at = 0.0  # time.monotonic() of the last reorder
        self.resort_interval = RESORT_S
        self._static: dict[str, dict[str, Any]] = {}  # row key -> sort keys of the STATIC columns
        self._longest: dict[str, int] = {}  # STATIC column -> cells of its longest value so far
        self._floor: dict[str, int] = {}  # column -> cells it may not go below (the agent's shortest name)
        self._need: list[int] = [0] * NAME_LEVELS  # the agent column's cells for every row's name at each level
        self.name_level = 0  # how short every row's agent name is (``Names.at``): one level for all rows
        self.namer = Namer()  # the contestants shown, told apart by their names (``set_namer``)
        self.filter_text = ""
        self.sort_column: str | None = None
        self.sort_reverse = False
        self.updates = 0  # cells written since mount (tests and the benchmark read it)
        self.sorts = 0  # reorders since mount
        self.nodes = False  # the Node column is shown
        self.active = COLUMNS  # the columns shown (``table_cells.columns``)
        self._reselect: RowKey | None = None  # the row to select again after a rebuild

    def on_mount(self) -> None:
        if not self.columns:  # show_nodes may have added them already
            for key, label, width in self.active:
                self.add_column(label, key=key, width=width)

    def show_nodes(self, on: bool) -> bool:
        """Add (or drop) the Node column; True when the table was rebuilt, and then every
        row must be synced again (the caller passes them all)."""
        if on == self.nodes:
            return False
        selected = self.coordinate_to_cell_key(self.cursor_coordinate).row_key if self.row_count else None
        self.nodes, self.active = on, columns(on)
        self.clear_rows(columns=True)
        for key, label, width in self.active:
            self.add_column(label, key=key, width=width)
        if self.sort_column not in (None, *(c for c, _, _ in self.active)):
            self.sort_column, self.sort_reverse = None, False  # sorted by the Node column, now gone
        self._reselect = selected
        if self.is_mounted:
            self.on_resize()
        return True

    def on_resize(self) -> None:
        self.fit_columns()
        self.sync_visible()  # a taller window shows rows not written yet

    def wanted_width(self) -> int:
        """The cells the table needs to show every column whole: the static columns as
        wide as their longest value (``table_cells.fitted``), padding and the scrollbar."""
        widths = fitted(self.active, self._longest, self._floor)
        return sum(widths.values()) + 2 * self.cell_padding * len(widths) + self._scrollbar_w()

    def _scrollbar_w(self) -> int:
        return int(self.styles.scrollbar_size_vertical or 0)

    def fit_columns(self) -> None:
        """Give the columns the room the table has (``table_cells.column_widths``): the
        titles and classes whole when it fits; only a change re-renders the rows."""
        if not self.size.width or not self.columns:
            return
        room = self.size.width - self._scrollbar_w()
        widths = column_widths(self.active, self._longest, room, self.cell_padding, self._floor)
        level = next((i for i, need in enumerate(self._need) if need <= widths["agent"]), NAME_LEVELS - 1)
        if all(self.columns[ColumnKey(k)].width == w for k, w in widths.items()) and level == self.name_level:
            return
        self.name_level = level
        for key, width in widths.items():
            self.columns[ColumnKey(key)].width = width
        self.forget_renders()
        self._clear_caches()
        self._require_update_dimensions = True
        self.refresh()

    def _update_dimensions(self, new_rows: Iterable[RowKey]) -> None:
        """Only the virtual size: the columns have fixed widths and the rows one line, so
        there is nothing to measure (DataTable measures every cell of every new row:
        10,000 renders when 1,000 rows arrive, or come back as a filter is cleared)."""
        if any(c.auto_width for c in self.columns.values()) or any(
            self.rows[k].height != 1 for k in new_rows if k in self.rows
        ):
            return super()._update_dimensions(new_rows)
        header = self.header_height if self.show_header else 0
        width = sum(c.get_render_width(self) for c in self.columns.values()) + self._row_label_column_width
        self.virtual_size = Size(width, self._total_row_height + header)

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if self._stale:
            self.sync_visible()

    def matches(self, view: AttemptView) -> bool:
        if not self.filter_text:
            return True
        hay = " ".join(
            (
                view.attempt,
                view.challenge,
                view.title,
                view.agent,
                view.contestant,
                view.format,
                view.weight_class,
                view.status,
                view.node,
            )
        ).lower()
        return all(word in hay for word in self.filter_text.lower().split())

    # -- rows ------------------------------------------------------------------------
    def sync(self, ids: Iterable[str]) -> int:
        """Add, update or drop these attempts' rows; returns the cells written now."""
        sort, filtering = self.sort_column, bool(self.filter_text)
        static = sort in STATIC  # its keys are known from when each row was added
        reorder = wider = False
        dropped: list[str] = []
        for attempt in ids:
            present = attempt in self._cells
            if present and not filtering:
                self._stale.add(attempt)  # nothing to decide before it is in sight
                if sort and not static:
                    self._rekey.add(attempt)  # its key is read when a re-sort is due
                continue
            row = self.source(attempt)
            if row is None:
                continue
            view, elapsed, total = row
            if filtering and not self.matches(view):
                if present:
                    dropped.append(attempt)
                continue
            if not present:  # written once in sight, like any stale row
                self.add_row(*([""] * len(self.active)), key=attempt, height=1)
                self._cells[attempt] = {}
                texts = static_texts(view)
                self._static[attempt] = {c: _sort_value(text) for c, text in texts.items()}
                wider = wider | self._measure(texts) | self._measure_floor(view)
                reorder = True
            self._stale.add(attempt)
            if sort and not present:
                self._keys[attempt] = sort_key(sort, view, elapsed, total)
            elif sort and not static:
                self._rekey.add(attempt)
        if dropped:
            self._drop_rows(dropped)
        if wider:  # a longer title, agent or class than any before
            self.fit_columns()
        if sort:
            due = time.monotonic() - self._sorted_at >= self.resort_interval
            if reorder or (self._rekey and due):  # new rows sort in at once
                self._resort()
        reselect, self._reselect = self._reselect, None
        if reselect is not None and reselect in self.rows:  # the row selected before a rebuild
            self.move_cursor(row=self.get_row_index(reselect))
        return self.sync_visible()

    def _measure(self, texts: dict[str, str]) -> bool:
        """Note a new row's static cells' lengths; True if one is the longest yet."""
        longest, wider = self._longest, False
        for col, text in texts.items():
            size = cell_len(text)
            if size > longest.get(col, 0):
                longest[col], wider = size, True
        return wider

    def _measure_floor(self, view: AttemptView) -> bool:
        """Note a row's agent name at each level (``Names.at``); True if the agent column
        must widen for its shortest (its floor) or a level must be shorter."""
        names = agent_cell(view, self.namer)
        wider = False
        for level in range(NAME_LEVELS):
            size = cell_len(names.at(level))
            if size > self._need[level]:
                self._need[level], wider = size, True
        self._floor["agent"] = self._need[-1]
        return wider

    def min_width(self) -> int:
        """The cells the table needs with the challenge and the agent at their least (the
        agent's shortest names whole), padding and the scrollbar."""
        widths = column_widths(self.active, self._longest, 0, self.cell_padding, self._floor)
        return sum(widths.values()) + 2 * self.cell_padding * len(widths) + self._scrollbar_w()

    def set_namer(self, namer: Namer) -> None:
        """Name the rows' agents among these contestants (a new one may forbid a shorter
        name): every row's agent cell is written again and the agent column re-measured."""
        if namer.members == self.namer.members:
            return
        self.namer = namer
        self._floor.pop("agent", None)
        self._need = [0] * NAME_LEVELS
        for attempt in self._cells:
            row = self.source(attempt)
            if row is not None:
                self._measure_floor(row[0])
        self._stale.update(self._cells)
        if self.is_mounted:
            self.fit_columns()
            self.sync_visible()

    def _resort(self) -> None:
        """Re-read the keys of rows whose views changed since the last sort; reorder."""
        column = self.sort_column
        if column is None:  # rows are re-keyed only while sorted by a column
            self._rekey.clear()
            return
        for attempt in self._rekey:
            row = self.source(attempt) if attempt in self._cells else None
            if row is not None:
                self._keys[attempt] = sort_key(column, *row)
        self._rekey.clear()
        self._sorted_at = time.monotonic()
        self._reorder()

    def visible_rows(self) -> list[str]:
        """Row keys in the window (and ``MARGIN`` rows either side), top to bottom."""
        header = self.header_height if self.show_header else 0
        top = int(self.scroll_y)
        bottom = min(self.row_count, top + max(0, self.size.height - header) + MARGIN)
        get_key = self._row_locations.get_key
        keys = (get_key(i) for i in range(max(0, top - MARGIN), bottom))
        return [str(k.value) for k in keys if k is not None]

    def sync_visible(self) -> int:
        """Write the stale rows in sight: only the cells whose signature changed."""
        if not self._stale or not self.is_mounted:
            return 0
        colours = self.app.theme_variables
        changed: dict[tuple[str, str], Any] = {}
        wider = False
        for attempt in self.visible_rows():
            if attempt not in self._stale:
                continue
            self._stale.discard(attempt)
            row = self.source(attempt)
            if row is None:
                continue
            old = self._cells[attempt]
            for col, (sig, value) in row_cells(*row, colours, self.nodes, self.namer).items():
                if old.get(col, self) != sig:
                    changed[(attempt, col)] = value
                    old[col] = sig
                    if col == "status" and cell_len(value) > self._floor.get("status", 0):
                        self._floor["status"] = cell_len(value)  # "infra_error": the column widens
                        wider = True
        if changed:
            self._write_cells(changed)
        if wider:
            self.fit_columns()
        self.updates += len(changed)
        return len(changed)

    def _write_cells(self, changed: dict[tuple[str, str], Any]) -> None:
        """Write cell values, dropping only their own cached renders and their lines'
        (``DataTable.update_cell`` would re-render every cell of the table)."""
        rows = set()
        for (attempt, col), value in changed.items():
            row_key = RowKey(attempt)
            self._data[row_key][ColumnKey(col)] = value
            self.forget_cell(row_key, ColumnKey(col))
            rows.add(row_key)
        self._row_renderable_cache.clear()
        if len(rows) > 8:
            self.refresh()
            return
        header = self.header_height if self.show_header else 0
        width = self.virtual_size.width
        for row_key in rows:  # rows are one line high: repaint just those lines
            y = self._row_locations.get(row_key)
            if y is not None:
                self._refresh_region(Region(0, y + header, width, 1))

    def forget(self, attempt: str) -> None:
        if attempt in self._cells:
            self._drop_rows([attempt])

    def _drop_rows(self, attempts: list[str]) -> None:
        """``DataTable.remove_row`` for many rows at once (it renumbers every row for each
        one removed: a filter hiding 900 of 1,000 rows took seconds)."""
        gone = {RowKey(a) for a in attempts}
        for attempt in attempts:
            row_key = RowKey(attempt)
            del self._cells[attempt]
            self._stale.discard(attempt)
            self._keys.pop(attempt, None)
            self._static.pop(attempt, None)
            self.forget_row(row_key)
            for column_key in self._data[row_key]:
                self._updated_cells.discard(CellKey(row_key, column_key))
            del self.rows[row_key]
            del self._data[row_key]
            self._new_rows.discard(row_key)
        kept = sorted((self._row_locations.get(k), k) for k in self._row_locations if k not in gone)
        self._row_locations = TwoWayDict({k: i for i, (_, k) in enumerate(kept)})
        self._require_update_dimensions = True
        self.check_idle()
        self.cursor_coordinate = self.cursor_coordinate
        self.hover_coordinate = self.hover_coordinate
        self._update_count += 1
        self.refresh(layout=True)

    def drop(self, attempts: Iterable[str]) -> None:
        """Take these attempts' rows off the table (they left what it shows)."""
        gone = [a for a in attempts if a in self._cells]
        if gone:
            self._drop_rows(gone)

    def attempt_keys(self) -> list[str]:
        """The attempts that have a row (shown or filtered in), in no particular order."""
        return list(self._cells)

    def clear_rows(self, columns: bool = False, measures: bool = False) -> None:
        """Every row off; ``measures``: the columns' widths are measured afresh from the
        rows added next (another set of attempts)."""
        if measures:
            self._longest.clear()
        self.clear(columns=columns)
        self._cells.clear()
        self._stale.clear()
        self._keys.clear()
        self._static.clear()
        self._floor.clear()
        self._need = [0] * NAME_LEVELS
        self.forget_renders()

    def action_first_row(self) -> None:
        if self.row_count:
            self.move_cursor(row=0)

    def action_last_row(self) -> None:
        if self.row_count:
            self.move_cursor(row=self.row_count - 1)

    # -- sorting ---------------------------------------------------------------------
    def sort_by(self, column: str) -> None:
        """A header click: sort by that column; again: reversed; a third time: unsorted."""
        flip = self.sort_column == column and not self.sort_reverse
        if self.sort_column != column:
            self.sort_column, self.sort_reverse = column, False
        elif not self.sort_reverse:
            self.sort_reverse = True
        else:
            self.sort_column, self.sort_reverse = None, False
        self.apply_sort(reuse=flip)

    def cycle_sort(self) -> str:
        """The s key: each column in turn (the columns shown), up then down, then unsorted."""
        keys = [c for c, _, _ in self.active]
        flip = self.sort_column is not None and not self.sort_reverse
        if self.sort_column is None:
            self.sort_column, self.sort_reverse = keys[0], False
        elif not self.sort_reverse:
            self.sort_reverse = True
        else:
            i = keys.index(self.sort_column) + 1
            self.sort_column, self.sort_reverse = (keys[i], False) if i < len(keys) else (None, False)
        self.apply_sort(reuse=flip)
        return self.sort_column or "none"

    def apply_sort(self, reuse: bool = False) -> None:
        """Sort every row by the sort column, keys read afresh from the views (a column
        that never changes: from when each row was added). ``reuse``: the column is the
        same, only the direction flipped: only rows whose views changed are re-keyed."""
        column = self.sort_column
        if not column:
            self._keys.clear()
            return
        self._sorted_at = time.monotonic()
        if reuse and len(self._keys) == len(self._cells):
            self._resort()  # the rows whose views changed meanwhile are re-keyed
            self.sync_visible()
            return
        self._rekey.clear()
        self._keys.clear()
        if column in STATIC:
            self._keys = {a: keys[column] for a, keys in self._static.items()}
        else:
            for attempt in self._cells:
                row = self.source(attempt)
                if row is not None:
                    self._keys[attempt] = sort_key(column, *row)
        self._reorder()
        self.sync_visible()

    def _reorder(self) -> None:
        """Reorder rows by their keys (rows without one last), keeping every cached cell
        render; only position-dependent caches are dropped, and only if the order moved."""
        keys, missing = self._keys, (2, float("inf"), "")
        locations = self._row_locations
        current = [""] * len(locations)
        for row_key in locations:
            index = locations.get(row_key)
            if index is not None:
                current[index] = str(row_key.value)
        # a stable sort of the rows in the order first added: ties keep that order
        ordered = sorted(self._cells, key=lambda a: keys.get(a, missing), reverse=self.sort_reverse)
        if ordered == current:
            return
        self.sorts += 1
        self._row_locations = TwoWayDict({RowKey(a): i for i, a in enumerate(ordered)})
        for cache in (
            self._row_render_cache,
            self._row_renderable_cache,
            self._line_cache,
            self._ordered_row_cache,
            self._offset_cache,
        ):
            cache.clear()
        self.refresh()

    @property
    def attempt_ids(self) -> list[str]:
        return [str(row.key.value) for row in self.ordered_rows]
