"""The live activity stream of the attempt on screen: only new entries are written.

By default it shows the readable lines (``AttemptView.readable``): the agent's steps
(parsed from its own output, marked ``▸``) merged in time with what was observed
(commands, reads, edits), submissions, feedback, warnings and model calls (what the model
said or called) — one row each (cut with … at the pane's width), never the raw output.
``toggle_raw`` switches to every line, wrapped, the agent's raw output and the gateway's
per-tool lines included. Agent text is
shown literally: lines are plain ``Text`` (never markup), control characters and escape
sequences are shown as ``?`` or dropped, and a line is cut at ``LINE_LIMIT``.
Colours are looked up in the current theme's variables when a line is written."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import RichLog

from arena.text import escaped
from arena.view import AttemptView
from gauntlet_tui.text import plain

LINE_LIMIT = 600  # characters of one activity line on screen
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
    "step.command": "secondary",
    "step.edit": "primary",
    "step.read": "primary",
    "step.tool": "accent",
    "step.error": "error",
}
_DIM = {"output", "model", "agent"}  # raw output, model calls and lifecycle: quieter


class ActivityStream(RichLog):
    DEFAULT_CSS = """
    ActivityStream { height: 1fr; border: round $panel; background: $surface; border-title-color: $text-muted; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, max_lines=500, wrap=True, markup=False, auto_scroll=True, min_width=20)
        self._seen = 0
        self._view: AttemptView | None = None
        self.raw = False  # every line (raw output too), or the readable ones
        self._title()

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, self._restyle)

    def _title(self) -> None:
        self.border_title = "Activity — raw output (R: steps)" if self.raw else "Activity (R: raw output)"

    def toggle_raw(self) -> bool:
        """Switch between the readable lines and every line; True when now raw."""
        self.raw = not self.raw
        self._title()
        self._restyle(None)
        return self.raw

    def _restyle(self, _theme: object) -> None:
        """Lines are coloured when written: a new theme (or mode) rewrites the ones kept."""
        view, self._seen = self._view, 0
        self.clear()
        if view is not None:
            self.show(view)

    def show(self, view: AttemptView) -> None:
        self._view = view
        ring, total = (view.activity, view.activity_total) if self.raw else (view.readable, view.readable_total)
        if total < self._seen:  # the view was reset (replay seeking back)
            self.clear()
            self._seen = 0
        new = total - self._seen
        if new <= 0:
            return
        colours = self.app.theme_variables
        fg = colours.get("foreground", "")
        width = self.scrollable_content_region.width  # readable lines: one row each, cut with …
        for a in list(ring)[-min(new, len(ring)) :]:
            line = Text(f"{a.t:7.1f}s ", style="dim")
            style = colours.get(_STYLE.get(a.kind, ""), "") or fg
            shown = plain(escaped(a.text[: LINE_LIMIT * 2]), limit=LINE_LIMIT, newlines=False)
            line.append(shown, style=("dim " + style) if a.kind in _DIM else style)
            if not self.raw and width > 20:
                line.truncate(width, overflow="ellipsis")
            self.write(line)
        self._seen = total
