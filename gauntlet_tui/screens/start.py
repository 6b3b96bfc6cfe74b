"""Choose how to start an attempt: agent, sandbox and time scale. Dismisses with
``{"agent", "sandbox", "time_scale"}`` or None."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from gauntlet_tui.text import esc as escape
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Select, Static


class StartScreen(ModalScreen[dict | None]):
    DEFAULT_CSS = """
    StartScreen { align: center middle; }
    StartScreen > Vertical { width: 64; max-width: 95%; height: auto; border: thick $primary; background: $surface; padding: 1 2; }
    StartScreen Label { margin-top: 1; }
    StartScreen #start-error { color: $error; height: auto; }
    StartScreen Horizontal { height: auto; align-horizontal: right; margin-top: 1; }
    StartScreen Button { margin-left: 2; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="start-cancel", tooltip="Do not start")]

    def __init__(self, challenge: str, agents: list[str]) -> None:
        super().__init__()
        self.challenge = challenge
        self.agents = agents

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(f"[b]Start an attempt on {escape(self.challenge)}[/]")
            yield Label("Agent")
            yield Select([(a, a) for a in self.agents], value=self.agents[0], allow_blank=False, id="start-agent")
            yield Label("Sandbox")
            yield Select(
                [("auto (Docker if it answers, else local)", "auto"), ("docker", "docker"), ("local", "local")],
                value="auto",
                allow_blank=False,
                id="start-sandbox",
            )
            yield Label("Time scale (1 = real time, 60 = a minute per second)")
            yield Input("1", id="start-scale")
            yield Static("", id="start-error")
            with Horizontal():
                yield Button("Start", variant="primary", id="start-go")
                yield Button("Cancel", id="start-cancel")

    @on(Button.Pressed, "#start-cancel")
    def action_cancel(self) -> None:
        if self.is_current:
            self.dismiss(None)

    @on(Button.Pressed, "#start-go")
    @on(Input.Submitted, "#start-scale")
    def _go(self) -> None:
        raw = self.query_one("#start-scale", Input).value.strip()
        try:
            scale = float(raw)
            if scale <= 0:
                raise ValueError
        except ValueError:
            self.query_one("#start-error", Static).update(
                f"time scale: expected a positive number, got {escape(raw)!r}"
            )
            return
        sandbox = self.query_one("#start-sandbox", Select).value
        self.dismiss(
            {
                "agent": self.query_one("#start-agent", Select).value,
                "sandbox": None if sandbox == "auto" else sandbox,
                "time_scale": scale,
            }
        )
