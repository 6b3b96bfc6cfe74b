"""The score trajectory: a sparkline of each counted submission's objective score,
with the numbers beside it."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Sparkline, Static

from arena.view import AttemptView


class Trajectory(Horizontal):
    DEFAULT_CSS = """
    Trajectory { height: 3; border: round $panel; }
    Trajectory Sparkline { width: 1fr; height: 1; margin: 0 1; }
    Trajectory #trajectory-numbers { width: auto; max-width: 40; }
    """

    def compose(self) -> ComposeResult:
        yield Static("score —", id="trajectory-numbers")
        yield Sparkline([], summary_function=max, id="trajectory-spark")

    def show(self, view: AttemptView) -> None:
        traj = view.trajectory
        spark = self.query_one(Sparkline)
        if list(spark.data or []) != traj:
            spark.data = traj
        text = " → ".join(f"{s:.0f}" for s in traj[-6:]) if traj else "—"
        self.query_one("#trajectory-numbers", Static).update(f"score {text}")
