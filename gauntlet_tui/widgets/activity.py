"""The live activity stream of the attempt on screen: only new entries are written.
Colours are looked up in the current theme's variables when a line is written."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import RichLog

from arena.view import AttemptView
from gauntlet_tui.text import plain as plain_text  # agent output: text, never sequences

_STYLE = {
    "edit": "primary",
    "command": "secondary",
    "submit": "accent",
    "feedback": "success",
    "clock": "warning",
    "phase": "accent",
    "refused": "error",
    "infra": "error",
    "integrity": "error",
}


class ActivityStream(RichLog):
    DEFAULT_CSS = """
    ActivityStream { height: 1fr; border: round $panel; background: $surface; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, max_lines=500, wrap=True, markup=False, auto_scroll=True, min_width=20)
        self._seen = 0
        self._view: AttemptView | None = None

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, self._restyle)

    def _restyle(self, _theme: object) -> None:
        """Lines are coloured when written: a new theme rewrites the ones kept."""
        view, self._seen = self._view, 0
        self.clear()
        if view is not None:
            self.show(view)

    def show(self, view: AttemptView) -> None:
        self._view = view
        if view.activity_total < self._seen:  # the view was reset (replay seeking back)
            self.clear()
            self._seen = 0
        new = view.activity_total - self._seen
        if new <= 0:
            return
        colours = self.app.theme_variables
        plain = colours.get("foreground", "")
        for a in list(view.activity)[-min(new, len(view.activity)) :]:
            line = Text(f"{a.t:7.1f}s ", style="dim")
            line.append(plain_text(a.text), style=colours.get(_STYLE.get(a.kind, ""), "") or plain)
            self.write(line)
        self._seen = view.activity_total
