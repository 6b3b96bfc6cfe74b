"""The dashboard: ONE DataTable, a row per attempt, updated by row key.

``sync(rows)`` takes ``(attempt_id, view, elapsed)`` triples (only the attempts that
changed or whose clock moved) and touches only the cells whose value changed; the
caller wraps it in ``app.batch_update()`` and calls it a few times a second. Rows that
do not match the filter are left out; sorting is by any column. The Node column (the
cluster node an attempt ran on; "local" for one that ran on the command's machine) is
there only once some attempt has a node: ``show_nodes(True)`` rebuilds the table with it.
"""
from __future__ import annotations

from typing import Any, Iterable

from rich.text import Text
from textual.binding import Binding
from textual.widgets import DataTable
from textual._two_way_dict import TwoWayDict
from textual.widgets.data_table import ColumnKey, RowKey

from arena.view import AttemptView
from gauntlet_tui.widgets.clock import fmt_clock

# (key, label, width): fixed widths, so a changed cell never re-measures its column. The
# columns that change come first, so at 80 columns only the static facts scroll off.
COLUMNS: tuple[tuple[str, str, int], ...] = (
    ("challenge", "Challenge", 14),
    ("agent", "Agent", 14),
    ("clock", "Clock", 16),
    ("subs", "Subs", 4),
    ("score", "Score", 6),
    ("phase", "Phase", 5),
    ("usage", "Tokens/$", 11),
    ("status", "Status", 9),
    ("format", "Format", 8),
    ("weight", "Class", 12),
)
NODE_COLUMN = ("node", "Node", 10)  # after Status, when some attempt ran on a cluster node
BAR = 6


def columns(nodes: bool) -> tuple[tuple[str, str, int], ...]:
    if not nodes:
        return COLUMNS
    at = [c for c, _, _ in COLUMNS].index("status") + 1
    return (*COLUMNS[:at], NODE_COLUMN, *COLUMNS[at:])


def clock_cell(view: AttemptView, elapsed: float, colours: dict[str, str]) -> tuple[Any, Text]:
    """(signature, cell) of the clock bar: warning style at the soft mark, urgent at the hard."""
    stage = view.stage(elapsed)
    level = view.clock_level(elapsed)
    frac = min(1.0, view.fraction(elapsed))
    filled = int(frac * BAR)
    if stage == "running":
        label = fmt_clock(view.remaining(elapsed))
        style = {"ok": colours.get("success", ""), "warning": colours.get("warning", ""),
                 "urgent": "bold " + colours.get("error", "")}[level]
    elif stage == "grace":
        label = fmt_clock(max(0.0, view.cutoff_s() + view.grace_s - elapsed))  # status says "grace"
        style = "bold italic " + colours.get("warning", "")
    else:
        left = max(0.0, view.time_limit_s - view.elapsed_s)
        if view.finished and left >= 1:  # ended early: say so, and how much time was left
            label = f"done, {fmt_clock(left)} left"
            return (0, "done", stage, label), Text(label, style="dim")
        label, style, level = "over", "dim", "over"
    sig = (filled, level, stage, label)
    return sig, Text("█" * filled + "░" * (BAR - filled) + " " + label, style=style.strip())


def score_cell(view: AttemptView, total: float | None) -> str:
    """The scorecard total once it is known (finished attempts); before that the last
    submission's score, marked ``~`` (provisional: the scorecard adds process and
    strategy adjustments)."""
    if total is not None:
        return f"{total:.1f}"
    score = view.last_score
    return "—" if score is None else f"~{score:.1f}"


def _text_cells(view: AttemptView, elapsed: float, total: float | None = None) -> dict[str, str]:
    phases = len(view.phases)
    return {
        "challenge": view.title or view.challenge or view.attempt,
        "agent": view.agent,
        "format": view.format,
        "weight": view.weight_class,
        "subs": f"{view.submissions_used}/{view.budget}",
        "score": score_cell(view, total),
        "phase": f"{view.current_phase}/{phases}" if phases > 1 else "—",
        "usage": _usage_cell(view),
        "status": view.status if view.finished else
        ("replaced" if view.recently_replaced(elapsed) else view.stage(elapsed)),
        "node": view.node or "local",
    }


def _usage_cell(view: AttemptView) -> str:
    """Tokens and cost of a real agent's model calls (``—`` for agents without a model)."""
    if not view.model and not view.calls:
        return "—"
    tok = f"{view.tokens / 1000:.1f}k" if view.tokens >= 1000 else str(view.tokens)
    return tok if view.cost_usd is None else f"{tok} ${view.cost_usd:.2f}"


def _sort_value(value: Any) -> Any:
    plain = value.plain if isinstance(value, Text) else str(value)
    try:
        return (0, float(plain.lstrip("~").split("/")[0]), plain)
    except ValueError:
        return (1, 0.0, plain.lower())


class AttemptTable(DataTable):
    DEFAULT_CSS = """
    AttemptTable { height: 1fr; }
    """
    BINDINGS = [  # vi keys, besides the arrows and Home/End
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
        Binding("g", "first_row", "First", show=False),
        Binding("G", "last_row", "Last", show=False),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=False, cursor_foreground_priority="renderable")
        self._cells: dict[str, dict[str, Any]] = {}  # row key -> column -> signature
        self.filter_text = ""
        self.sort_column: str | None = None
        self.sort_reverse = False
        self.updates = 0  # cells written since mount (the benchmark reads it)
        self._strip_cache: dict[tuple, Any] = {}
        self.nodes = False  # the Node column is shown
        self.active = COLUMNS
        self._reselect: RowKey | None = None  # the row to select again after a rebuild

    def on_mount(self) -> None:
        for key, label, width in self.active:
            self.add_column(label, key=key, width=width)

    def show_nodes(self, on: bool) -> bool:
        """Add (or drop) the Node column; True when the table was rebuilt, and then every
        row must be synced again (the caller passes them all)."""
        if on == self.nodes:
            return False
        selected = self.coordinate_to_cell_key(self.cursor_coordinate).row_key if self.row_count else None
        self.nodes, self.active = on, columns(on)
        self.clear(columns=True)
        self._cells.clear()
        self._strip_cache.clear()
        for key, label, width in self.active:
            self.add_column(label, key=key, width=width)
        self._reselect = selected
        self.on_resize()
        return True

    def on_resize(self) -> None:
        """Give wide terminals' spare columns to the challenge and agent names."""
        base = {key: width for key, _, width in self.active}
        spare = self.size.width - sum(base.values()) - 2 * len(self.active) - 2
        widths = dict(base)
        if spare > 0:
            widths["challenge"] += min(22, spare * 2 // 3)
            widths["agent"] += min(10, spare - (widths["challenge"] - base["challenge"]))
        if all(self.columns[ColumnKey(k)].width == w for k, w in widths.items()):
            return
        for key, width in widths.items():
            self.columns[ColumnKey(key)].width = width
        self._strip_cache.clear()
        self._clear_caches()
        self._require_update_dimensions = True
        self.refresh()

    def matches(self, view: AttemptView) -> bool:
        if not self.filter_text:
            return True
        hay = " ".join((view.attempt, view.challenge, view.title, view.agent, view.format,
                        view.weight_class, view.status, view.node)).lower()
        return all(word in hay for word in self.filter_text.lower().split())

    def sync(self, rows: Iterable[tuple[str, AttemptView, float]],
             totals: dict[str, float] | None = None) -> int:
        """Add, update or drop the given attempts' rows; returns cells written.
        ``totals``: scorecard totals of finished attempts (the Score column shows them)."""
        totals = totals or {}
        colours = self.app.theme_variables
        written = 0
        changed: dict[tuple[str, str], Any] = {}
        added = False
        for attempt, view, elapsed in rows:
            present = attempt in self._cells
            if not self.matches(view):
                if present:
                    self.remove_row(attempt)
                    del self._cells[attempt]
                continue
            sigs: dict[str, Any] = {}
            cells: dict[str, Any] = {}
            for col, value in _text_cells(view, elapsed, totals.get(attempt)).items():
                sigs[col] = cells[col] = value
            sigs["clock"], cells["clock"] = clock_cell(view, elapsed, colours)
            if not self.nodes:
                del sigs["node"], cells["node"]
            if not present:
                self.add_row(*(cells[c] for c, _, _ in self.active), key=attempt)
                self._cells[attempt] = sigs
                written += len(self.active)
                added = True
                continue
            old = self._cells[attempt]
            for col, sig in sigs.items():
                if old.get(col) != sig:
                    changed[(attempt, col)] = cells[col]
                    old[col] = sig
                    written += 1
        if changed:
            self._write_cells(changed)
        if self.sort_column and (added or any(col == self.sort_column for _, col in changed)):
            self.apply_sort()  # new rows (a new attempt, or back after a filter) sort in too
        reselect, self._reselect = self._reselect, None
        if reselect is not None and reselect in self.rows:  # the row selected before a rebuild
            self.move_cursor(row=self.get_row_index(reselect))
        self.updates += written
        return written

    def _write_cells(self, changed: dict[tuple[str, str], Any]) -> None:
        """Write cells, dropping only their own cached renders and their rows'.

        ``DataTable.update_cell`` bumps a counter that is part of every cache key, so one
        changed cell re-renders every visible cell; at 100 live rows that cost most of a
        core. Here the unchanged cells keep their cached renders (Textual is pinned, so
        these private caches are a known shape: cells by (row_key, column_key), rows by
        row_key, row renderables by (count, row_index), lines by y).
        """
        rows = {RowKey(a) for a, _ in changed}
        cells = {(RowKey(a), ColumnKey(c)) for a, c in changed}
        for (attempt, col), value in changed.items():
            self._data[RowKey(attempt)][ColumnKey(col)] = value
        for key in [k for k in self._cell_render_cache.keys() if (k[0], k[1]) in cells]:
            self._cell_render_cache.discard(key)
        for key in [k for k in self._row_render_cache.keys() if k[0] in rows]:
            self._row_render_cache.discard(key)
        for key in [k for k in self._strip_cache if k[0] in rows]:
            del self._strip_cache[key]
        indexes = [self.get_row_index(row) for row in rows]
        at = set(indexes)
        for key in [k for k in self._row_renderable_cache.keys() if k[1] in at]:
            self._row_renderable_cache.discard(key)
        header = 1 if self.show_header else 0
        lines = {i + header for i in indexes}  # rows are one line high
        for key in [k for k in self._line_cache.keys() if k[0] in lines]:
            self._line_cache.discard(key)
        self.refresh()  # unchanged lines come straight from the line cache

    def _render_line(self, y: int, x1: int, x2: int, base_style: Any) -> Any:
        """Rendered rows are cached by row key (not by position), so a sort or a cursor
        move re-renders only the rows whose cursor/hover state changed; ``_write_cells``
        drops the changed rows' entries."""
        try:
            row_key, line_no = self._get_offsets(y)
        except LookupError:
            return super()._render_line(y, x1, x2, base_style)
        if row_key == self._header_row_key:
            return super()._render_line(y, x1, x2, base_style)
        index = self._row_locations.get(row_key)
        key = (row_key, line_no, x1, x2, self.size.width, base_style,
               self.show_cursor and self.cursor_row == index, self.hover_row == index,
               self._pseudo_class_state)
        strip = self._strip_cache.get(key)
        if strip is None:
            strip = self._strip_cache[key] = super()._render_line(y, x1, x2, base_style)
        return strip

    def forget(self, attempt: str) -> None:
        if attempt in self._cells:
            self.remove_row(attempt)
            del self._cells[attempt]

    def clear_rows(self) -> None:
        self.clear()
        self._cells.clear()

    def action_first_row(self) -> None:
        if self.row_count:
            self.move_cursor(row=0)

    def action_last_row(self) -> None:
        if self.row_count:
            self.move_cursor(row=self.row_count - 1)

    def sort_by(self, column: str) -> None:
        """A header click: sort by that column; again: reversed; a third time: unsorted."""
        if self.sort_column != column:
            self.sort_column, self.sort_reverse = column, False
        elif not self.sort_reverse:
            self.sort_reverse = True
        else:
            self.sort_column, self.sort_reverse = None, False
        self.apply_sort()

    def cycle_sort(self) -> str:
        keys = [c for c, _, _ in self.active]
        if self.sort_column is None:
            self.sort_column, self.sort_reverse = keys[0], False
        elif not self.sort_reverse:
            self.sort_reverse = True
        else:
            i = keys.index(self.sort_column) + 1
            self.sort_column, self.sort_reverse = (keys[i], False) if i < len(keys) else (None, False)
        self.apply_sort()
        return self.sort_column or "none"

    def apply_sort(self) -> None:
        """Reorder rows by the sort column, keeping every cell's cached render (the base
        ``sort`` invalidates them all); only position-dependent caches are dropped."""
        if not self.sort_column:
            return
        column = ColumnKey(self.sort_column)
        ordered = sorted(self._data.items(), key=lambda item: _sort_value(item[1][column]),
                         reverse=self.sort_reverse)
        self._row_locations = TwoWayDict({row_key: i for i, (row_key, _) in enumerate(ordered)})
        for cache in (self._row_render_cache, self._row_renderable_cache, self._line_cache,
                      self._ordered_row_cache, self._offset_cache):
            cache.clear()
        self.refresh()

    @property
    def attempt_ids(self) -> list[str]:
        return [str(row.key.value) for row in self.ordered_rows]
