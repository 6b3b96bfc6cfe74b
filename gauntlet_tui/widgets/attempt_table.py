"""The dashboard: ONE DataTable, a row per attempt, updated by row key.

``sync(rows)`` takes ``(attempt_id, view, elapsed)`` triples (only the attempts that
changed or whose clock moved) and touches only the cells whose value changed; the
caller wraps it in ``app.batch_update()`` and calls it a few times a second. Rows that
do not match the filter are left out; sorting is by any column.
"""
from __future__ import annotations

from typing import Any, Iterable

from rich.text import Text
from textual.widgets import DataTable

from arena.view import AttemptView
from gauntlet_tui.widgets.clock import fmt_clock

COLUMNS: tuple[tuple[str, str], ...] = (
    ("challenge", "Challenge"),
    ("agent", "Agent"),
    ("format", "Format"),
    ("weight", "Class"),
    ("clock", "Clock"),
    ("subs", "Subs"),
    ("score", "Score"),
    ("phase", "Phase"),
    ("status", "Status"),
)
BAR = 10


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
        label = "GRACE " + fmt_clock(max(0.0, view.cutoff_s() + view.grace_s - elapsed))
        style = "bold italic " + colours.get("warning", "")
    else:
        label, style, level = "over", "dim", "over"
    sig = (filled, level, stage, label)
    return sig, Text("█" * filled + "░" * (BAR - filled) + " " + label, style=style.strip())


def _text_cells(view: AttemptView, elapsed: float) -> dict[str, str]:
    score = view.last_score
    phases = len(view.phases)
    return {
        "challenge": view.title or view.challenge or view.attempt,
        "agent": view.agent,
        "format": view.format,
        "weight": view.weight_class,
        "subs": f"{view.submissions_used}/{view.budget}",
        "score": "—" if score is None else f"{score:.1f}",
        "phase": f"{view.current_phase}/{phases}" if phases > 1 else "—",
        "status": view.status if view.finished else view.stage(elapsed),
    }


def _sort_value(value: Any) -> Any:
    plain = value.plain if isinstance(value, Text) else str(value)
    try:
        return (0, float(plain.split("/")[0]), plain)
    except ValueError:
        return (1, 0.0, plain.lower())


class AttemptTable(DataTable):
    DEFAULT_CSS = """
    AttemptTable { height: 1fr; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True, cursor_foreground_priority="renderable")
        self._cells: dict[str, dict[str, Any]] = {}  # row key -> column -> signature
        self.filter_text = ""
        self.sort_column: str | None = None
        self.sort_reverse = False
        self.updates = 0  # cells written since mount (the benchmark reads it)

    def on_mount(self) -> None:
        for key, label in COLUMNS:
            self.add_column(label, key=key)

    def matches(self, view: AttemptView) -> bool:
        if not self.filter_text:
            return True
        hay = " ".join((view.attempt, view.challenge, view.title, view.agent, view.format,
                        view.weight_class, view.status)).lower()
        return all(word in hay for word in self.filter_text.lower().split())

    def sync(self, rows: Iterable[tuple[str, AttemptView, float]]) -> int:
        """Add, update or drop the given attempts' rows; returns cells written."""
        colours = self.app.theme_variables
        written = 0
        for attempt, view, elapsed in rows:
            present = attempt in self._cells
            if not self.matches(view):
                if present:
                    self.remove_row(attempt)
                    del self._cells[attempt]
                continue
            sigs: dict[str, Any] = {}
            cells: dict[str, Any] = {}
            for col, value in _text_cells(view, elapsed).items():
                sigs[col] = cells[col] = value
            sigs["clock"], cells["clock"] = clock_cell(view, elapsed, colours)
            if not present:
                self.add_row(*(cells[c] for c, _ in COLUMNS), key=attempt)
                self._cells[attempt] = sigs
                written += len(COLUMNS)
                continue
            old = self._cells[attempt]
            for col, sig in sigs.items():
                if old.get(col) != sig:
                    self.update_cell(attempt, col, cells[col], update_width=True)
                    old[col] = sig
                    written += 1
        if written and self.sort_column:
            self.apply_sort()
        self.updates += written
        return written

    def forget(self, attempt: str) -> None:
        if attempt in self._cells:
            self.remove_row(attempt)
            del self._cells[attempt]

    def clear_rows(self) -> None:
        self.clear()
        self._cells.clear()

    def cycle_sort(self) -> str:
        keys = [c for c, _ in COLUMNS]
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
        if self.sort_column:
            self.sort(self.sort_column, key=_sort_value, reverse=self.sort_reverse)

    @property
    def attempt_ids(self) -> list[str]:
        return [str(row.key.value) for row in self.ordered_rows]
