"""The dashboard table's cells and sort keys, computed from an ``AttemptView`` (and the
live elapsed time, and the scorecard total once known). No Textual here: the table
(``attempt_table``) writes them and the tests read them.

Every cell has a *signature* (what it shows, as a comparable value), so the table
writes a cell only when its signature changed. Sort keys come from the views, never
from the cells written, so rows out of sight (whose cells are only written when they
scroll into view) still sort where they belong.
"""

from __future__ import annotations

from typing import Any

from rich.cells import cell_len
from rich.text import Text

from arena.names import Namer
from arena.view import AttemptView
from gauntlet_tui.widgets.clock import fmt_clock

# (key, label, width). The columns that change have fixed widths, so a changed cell never
# re-measures its column; they come first, so at 80 columns only the static facts scroll
# off. The static columns (``STATIC``) are as wide as their longest value (at least the
# label, at most ``FIT_MAX``); the width here is what the challenge and the agent give
# way to when the table has less room than that (``column_widths``).
COLUMNS: tuple[tuple[str, str, int], ...] = (
    ("challenge", "Challenge", 14),
    ("agent", "Agent", 14),
    ("clock", "Clock", 16),
    ("subs", "Subs", 4),
    ("score", "Score", 8),
    ("phase", "Phase", 5),
    ("usage", "Tokens/$", 11),
    ("status", "Status", 8),  # widened, never cut, once a row shows "interrupted" or "infra_error"
    ("format", "Format", 8),
    ("weight", "Class", 12),
)
COLUMN_KEYS = tuple(c for c, _, _ in COLUMNS)
# the cluster node an attempt ran on ("local": this machine), after Status, shown only
# once some attempt has a node (``AttemptTable.show_nodes``)
NODE_COLUMN = ("node", "Node", 10)
FIT_MAX = {"challenge": 40, "agent": 44, "format": 12, "weight": 12}
SHRINK = ("challenge", "agent")  # give way, in this order, when the room is short
BAR = 6


def columns(nodes: bool) -> tuple[tuple[str, str, int], ...]:
    """The table's columns, with the Node column or without it."""
    if not nodes:
        return COLUMNS
    at = COLUMN_KEYS.index("status") + 1
    return (*COLUMNS[:at], NODE_COLUMN, *COLUMNS[at:])


def clock_cell(view: AttemptView, elapsed: float, colours: dict[str, str]) -> tuple[Any, Text]:
    """(signature, cell) of the clock bar: warning style at the soft mark, urgent at the hard."""
    stage = view.stage(elapsed)
    level = view.clock_level(elapsed)
    frac = min(1.0, view.fraction(elapsed))
    filled = int(frac * BAR)
    if stage == "running":
        label = fmt_clock(view.remaining(elapsed))
        style = {
            "ok": colours.get("success", ""),
            "warning": colours.get("warning", ""),
            "urgent": "bold " + colours.get("error", ""),
        }[level]
    elif stage == "grace":
        label = fmt_clock(max(0.0, view.cutoff_s() + view.grace_s - elapsed))  # status says "grace"
        style = "bold italic " + colours.get("warning", "")
    else:
        left = max(0.0, view.time_limit_s - view.elapsed_s)
        if view.finished and left >= 1:  # ended early: say so, and how much time was left
            label = f"done, {fmt_clock(left)} left"
            return (0, "done", stage, label, "dim"), Text(label, style="dim")
        label, style, level = "over", "dim", "over"
    style = style.strip()
    sig = (filled, level, stage, label, style)  # the style too: a theme switch restyles it
    return sig, Text("█" * filled + "░" * (BAR - filled) + " " + label, style=style)


def score_cell(view: AttemptView, total: float | None) -> str:
    """The scorecard total once it is known (finished attempts); before that the last
    submission's objective, marked ``obj`` (the scorecard adds process, strategy and
    integrity when the attempt has ended; the dashboard's legend line says so)."""
    if total is not None:
        return f"{total:.1f}"
    score = view.last_score
    if score is None:
        return "—"
    return "obj 100" if score >= 99.95 else f"obj {score:.1f}"  # 8 cells at most


def _usage_cell(view: AttemptView) -> str:
    """Tokens and cost of a real agent's model calls (``—`` for agents without a model)."""
    if not view.model and not view.calls:
        return "—"
    tok = f"{view.tokens / 1000:.1f}k" if view.tokens >= 1000 else str(view.tokens)
    return tok if view.cost_usd is None else f"{tok} ${view.cost_usd:.2f}"


class Names(str):
    """The agent cell: the contestant's full display name (the ``str``), and the shorter
    forms it may show where its column is narrower (``arena.names.Namer.forms``, longest
    first). ``TableRender.cell_segments`` draws the longest form that fits; none is cut."""

    forms: tuple[str, ...]

    def __new__(cls, forms: tuple[str, ...]) -> "Names":
        out = super().__new__(cls, forms[0] if forms else "")
        out.forms = forms or ("",)
        return out

    def fit(self, width: int) -> str:
        return next((f for f in self.forms if cell_len(f) <= width), self.forms[-1])

    def at(self, level: int) -> str:
        """The name at ``level`` of shortening (0: whole; past its shortest: its shortest).
        The table shows every row at one level, so names are shortened alike."""
        return self.forms[min(level, len(self.forms) - 1)]


NAME_LEVELS = 3  # a name's forms at most: whole, without the provider, the family cut (arena.names)


def agent_cell(view: AttemptView, namer: Namer | None = None) -> Names:
    """The agent cell of a row: its name's forms among the contestants ``namer`` knows."""
    return Names((namer or Namer()).forms(view.agent, view.model, view.contestant))


def _status(view: AttemptView, elapsed: float) -> str:
    if view.finished:
        return view.shown_status  # "hung" for an attempt ended as hung
    return "replaced" if view.recently_replaced(elapsed) else view.stage(elapsed)


def _phase(view: AttemptView) -> str:
    phases = len(view.phases)
    return f"{view.current_phase}/{phases}" if phases > 1 else "—"


# column -> text of the cell (every column but the clock)
TEXT: dict[str, Any] = {
    "challenge": lambda v, e, t: v.title or v.challenge or v.attempt,
    "agent": lambda v, e, t: v.name,
    "format": lambda v, e, t: v.format,
    "weight": lambda v, e, t: v.weight_class,
    "subs": lambda v, e, t: f"{v.submissions_used}/{v.budget}",
    "score": lambda v, e, t: score_cell(v, t),
    "phase": lambda v, e, t: _phase(v),
    "usage": lambda v, e, t: _usage_cell(v),
    "status": lambda v, e, t: _status(v, e),
    "node": lambda v, e, t: v.node or "local",
}


def _text_cells(view: AttemptView, elapsed: float, total: float | None = None) -> dict[str, str]:
    return {col: cell(view, elapsed, total) for col, cell in TEXT.items()}


def row_cells(
    view: AttemptView,
    elapsed: float,
    total: float | None,
    colours: dict[str, str],
    nodes: bool = False,
    namer: Namer | None = None,
) -> dict[str, tuple[Any, Any]]:
    """column -> (signature, cell value) for one row (the node cell only with ``nodes``).
    Text cells are plain ``str``: the table draws them as they are, never parsed as
    markup (titles and agents are untrusted). The agent cell carries its name's shorter
    forms (``Names``), told apart from the contestants ``namer`` knows."""
    out: dict[str, tuple[Any, Any]] = {}
    for col, cell in TEXT.items():
        if col == "node" and not nodes:
            continue
        value = cell(view, elapsed, total)
        out[col] = (value, value)
    names = agent_cell(view, namer)
    out["agent"] = (names.forms, names)
    out["clock"] = clock_cell(view, elapsed, colours)
    return out


def _sort_value(plain: str) -> Any:
    head = plain.removeprefix("obj ").split("/")[0]
    if head[:1].isdigit() or head[:1] in ("-", "."):
        try:
            return (0, float(head), plain)
        except ValueError:
            pass
    return (1, 0.0, plain.lower())


# columns whose value never changes once the attempt started: their sort keys are
# computed when a row is added, not on every refresh
STATIC = frozenset({"challenge", "agent", "format", "weight"})


def static_texts(view: AttemptView) -> dict[str, str]:
    """The STATIC columns' cells of a row (their values and widths are read once, when
    the row is added)."""
    return {col: TEXT[col](view, 0.0, None) for col in STATIC}


def fitted(
    active: tuple[tuple[str, str, int], ...], longest: dict[str, int], floor: dict[str, int] | None = None
) -> dict[str, int]:
    """The width each column wants: a static column its longest value (``longest``: cells,
    per column) within its label and ``FIT_MAX``, and at least its ``floor`` (the agent's:
    its longest shortest name, never cut); the others their fixed width, or their ``floor``
    when a value is longer (a status word: never cut)."""
    floor = floor or {}
    return {
        key: max(cell_len(label), min(FIT_MAX[key], longest.get(key, 0)), floor.get(key, 0))
        if key in FIT_MAX
        else max(width, floor.get(key, 0))
        for key, label, width in active
    }


def column_widths(
    active: tuple[tuple[str, str, int], ...],
    longest: dict[str, int],
    room: int,
    padding: int,
    floor: dict[str, int] | None = None,
) -> dict[str, int]:
    """The columns' widths for a table ``room`` cells wide whose cells are padded by
    ``padding`` either side: each as wide as it wants (``fitted``); when that does not fit,
    the challenge and then the agent give up cells down to their ``COLUMNS`` width (the
    agent never below its ``floor``: the shortest name that tells the contestants apart).
    What still does not fit scrolls (the static facts on the right first)."""
    floor = floor or {}
    widths = fitted(active, longest, floor)
    short = sum(widths.values()) + 2 * padding * len(widths) - room
    base = {key: max(width, floor.get(key, 0)) for key, _, width in active}
    for key in SHRINK:
        if short <= 0:
            break
        give = max(0, min(short, widths[key] - base[key]))
        widths[key] -= give
        short -= give
    return widths


def sort_key(column: str, view: AttemptView, elapsed: float, total: float | None) -> Any:
    """The sort key of a row for ``column``: numbers as numbers, text case-blind; the
    clock by the time left (running and grace first, least time left first; then the
    ones that ended, most time left first)."""
    if column == "clock":
        stage = view.stage(elapsed)
        if stage == "running":
            return (0, view.remaining(elapsed))
        if stage == "grace":
            return (0, 0.0)
        return (1, -max(0.0, view.time_limit_s - view.elapsed_s) if view.finished else 0.0)
    return _sort_value(TEXT[column](view, elapsed, total))
