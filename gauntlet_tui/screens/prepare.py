"""Preparing a run: one progress bar per image build / warm-up, before any clock starts.

Shows ``arena.attempt.prepare.Preparation.steps`` (polled four times a second): what is
being built, how long it has taken and how long it took last time (the bar fills against
that; unknown: an indeterminate bar). Steps run side by side; one found already there is
ready at once, one waiting for another says which. It closes itself when everything is
ready; on a failure it stays up with the reason and the way out (``--sandbox local``),
Esc closes.
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, ProgressBar, Static

from gauntlet_tui.text import as_text  # labels, build output and errors name agents and images


def step_text(step: Any, waits_for: str = "") -> str:
    """One line for a step: mark, label, where it is, last time's duration, its detail."""
    mark = {"done": "✓", "failed": "✗", "running": "…", "pending": "·", "skipped": "–"}[step.state]
    if step.state == "done" and getattr(step, "present", False):
        return f"{mark} {step.label} — ready (already there)"
    if step.state == "skipped":
        return f"{mark} {step.label} — {step.detail}"
    last = f"last time {step.last_s:.0f}s" if step.last_s else "first build: no previous time"
    if step.state == "pending":
        took = f"after {waits_for}" if waits_for else "checking"
    else:
        took = f"{step.elapsed():.0f}s"
    detail = f"  {step.detail}" if step.state == "running" and step.detail else ""
    return f"{mark} {step.label} — {took} ({last}){detail}"


def _waits_for(steps: list[Any], step: Any) -> str:
    """The label of the first step ``step`` still waits for ("" when none)."""
    for other in steps:
        if other is not step and other.key in getattr(step, "after", ()) and other.state in ("pending", "running"):
            return str(other.label)
    return ""


class PrepareScreen(ModalScreen[bool]):
    DEFAULT_CSS = """
    PrepareScreen { align: center middle; }
    PrepareScreen > Vertical { width: 90%; max-width: 110; height: auto; border: thick $accent;
                               background: $panel; padding: 1 2; }
    PrepareScreen #prep-title { text-style: bold; }
    PrepareScreen .prep-step { margin-top: 1; }
    PrepareScreen #prep-error { color: $error; margin-top: 1; }
    """
    BINDINGS = [Binding("escape", "close", "Close", id="prep-close")]

    def __init__(self, prep: Any) -> None:
        super().__init__()
        self.prep = prep

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Preparing images and warm sandboxes — no clock has started", id="prep-title")
            for i, step in enumerate(self.prep.steps):
                yield Static(
                    as_text(step_text(step, _waits_for(self.prep.steps, step))),
                    id=f"prep-label-{i}",
                    classes="prep-step",
                )
                yield ProgressBar(total=100, show_eta=False, id=f"prep-bar-{i}")
            yield Static("", id="prep-error")

    def on_mount(self) -> None:
        self.refresh_view()
        self.set_interval(0.25, self.refresh_view)

    def refresh_view(self) -> None:
        for i, step in enumerate(self.prep.steps):
            self.query_one(f"#prep-label-{i}", Static).update(
                as_text(step_text(step, _waits_for(self.prep.steps, step)))
            )
            bar = self.query_one(f"#prep-bar-{i}", ProgressBar)
            frac = step.fraction()
            if step.state == "running" and frac is None:
                bar.update(total=None)
            else:
                bar.update(total=100, progress=round(100 * (frac or 0.0)))
        if self.prep.error:
            self.query_one("#prep-error", Static).update(
                as_text(f"{self.prep.error}\nNo attempt was started. Esc closes this.")
            )

    def action_close(self) -> None:
        if self.prep.finished:
            self.dismiss(self.prep.error is None)
