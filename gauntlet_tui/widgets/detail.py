"""The dashboard's detail pane: the selected attempt's state, latest feedback line and
last activity, beside the table (hidden on terminals narrower than ``MIN_WIDTH``). The dashboard gives it
what the table leaves of the terminal's width, within ``PANE_MIN`` and ``PANE_MAX``: the
table's titles and classes come first."""

from __future__ import annotations

from textual.widgets import Static

from arena.view import AttemptView
from gauntlet_tui.text import esc
from gauntlet_tui.widgets.attempt_lines import feedback_line, state_line
from gauntlet_tui.widgets.clock import fmt_clock

MIN_WIDTH = 110  # terminal columns below which the table keeps the whole width
PANE_MIN, PANE_MAX = 30, 44  # the pane's width: what the table leaves, within these
ACTIVITY_LINES = 12


def detail_text(attempt: str, view: AttemptView, elapsed: float) -> str:
    lines = [
        f"[b]{esc(view.title or view.challenge or attempt)}[/]",
        f"{esc(view.name)} · {view.format} · {esc(view.weight_class)}",
        f"[$text-muted]{esc(attempt)}[/]" + (f" · node [b]{esc(view.node)}[/]" if view.node else ""),
        "",
        esc(state_line(view, elapsed)),
        f"elapsed {fmt_clock(elapsed)} of {fmt_clock(view.time_limit_s)}",
        "",
        "[b]latest feedback[/]",
        esc(feedback_line(view)),
        "",
        "[b]activity[/]",
    ]
    recent = list(view.activity)[-ACTIVITY_LINES:]
    lines += [f"[$text-muted]{fmt_clock(a.t)} [/]{esc(a.text)}" for a in reversed(recent)] or ["—"]
    return "\n".join(lines)


class DetailPane(Static):
    DEFAULT_CSS = """
    DetailPane { width: 44; height: 1fr; border-left: vkey $panel; padding: 0 1; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.attempt: str | None = None
        self._shown: tuple | None = None

    def show(self, attempt: str | None, view: AttemptView | None, elapsed: float) -> None:
        """Redraw only when the attempt, its version or its clock's second changed."""
        key = None if view is None else (attempt, view.version, int(elapsed))
        if key == self._shown:
            return
        self._shown = key
        self.attempt = attempt
        self.update(
            "Select an attempt." if view is None or attempt is None else detail_text(attempt, view, elapsed),
            layout=False,
        )  # fixed size: no re-layout
