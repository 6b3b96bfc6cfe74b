"""The keys of the screen underneath, from its active bindings (with their tooltips)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from gauntlet_tui.text import esc as escape
from textual.screen import ModalScreen
from textual.widgets import Static


class HelpScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll { width: 70; max-width: 95%; height: auto; max-height: 90%; border: thick $primary; background: $surface; padding: 0 2; }
    """
    BINDINGS = [Binding("escape,q,question_mark", "close", "Close", id="help-close", tooltip="Close help")]

    def __init__(self, title: str, bindings: list[tuple[str, str, str]]) -> None:
        super().__init__()
        self.title_text = title
        self.rows = bindings

    def action_close(self) -> None:
        if self.is_current:  # a second key of a burst finds it already closing
            self.dismiss()

    def compose(self) -> ComposeResult:
        lines = [f"[b]{escape(self.title_text)} — keys[/]", ""]
        for key, desc, tip in self.rows:
            lines.append(f"[b $accent]{escape(key):>8}[/]  {escape(desc):<12} {escape(tip)}")
        lines += ["", "[b $accent]  ctrl+p[/]  Palette      Commands, including the theme switcher"]
        with VerticalScroll():
            yield Static("\n".join(lines))
