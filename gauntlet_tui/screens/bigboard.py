"""The big board: the dashboard for a projector, one card per attempt filling the screen.

Each card shows the challenge and agent, the time left in large digits, the state as the
card's colour (running, 80% warning, 90% urgent, grace, over, infra error), the score and
its trajectory, and the last feedback in one line. ``v`` toggles it from home; under the
projector theme the app opens it by default. Cards are redrawn by the app's refresh
timer (``refresh_view``) from the engine's views; nothing is computed here.
"""
from __future__ import annotations

import math
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Vertical
from textual.screen import Screen
from textual.widgets import Digits, Sparkline, Static

from arena.view import AttemptView
from gauntlet_tui import keys
from gauntlet_tui.widgets.clock import fmt_clock
from gauntlet_tui.widgets.footer import GauntletFooter

STATES = ("ok", "warning", "urgent", "grace", "over", "infra")


def card_state(view: AttemptView, elapsed: float) -> str:
    if view.status == "infra_error":
        return "infra"
    stage = view.stage(elapsed)
    if view.finished or stage == "over":
        return "over"
    if stage == "grace":
        return "grace"
    return view.clock_level(elapsed)  # ok | warning | urgent


def clock_text(view: AttemptView, elapsed: float) -> str:
    stage = view.stage(elapsed)
    if stage == "grace":
        return fmt_clock(max(0.0, view.cutoff_s() + view.grace_s - elapsed))
    if view.finished or stage == "over":
        return fmt_clock(max(0.0, view.time_limit_s - view.elapsed_s)) if view.finished else "00:00"
    return fmt_clock(view.remaining(elapsed))


def state_line(view: AttemptView, elapsed: float) -> str:
    state = card_state(view, elapsed)
    score = view.last_score
    score_s = "score —" if score is None else f"score {score:.1f}"
    left = max(0.0, view.time_limit_s - view.elapsed_s)
    what = {"ok": "running", "warning": "80% — warning", "urgent": "90% — hurry",
            "grace": "GRACE — final message only",
            "over": (f"done, {fmt_clock(left)} left" if view.finished and left >= 1
                     else f"over — {view.status}"),
            "infra": "INFRA ERROR"}[state]
    phase = f" · phase {view.current_phase}/{len(view.phases)}" if len(view.phases) > 1 else ""
    return f"{what} · {score_s} · sub {view.submissions_used}/{view.budget}{phase}"


def feedback_line(view: AttemptView) -> str:
    if view.status == "infra_error" and view.reason:
        return view.reason[:120]
    if not view.feedback:
        return "no feedback yet"
    n = max(view.feedback)
    doc = view.feedback[n]
    parts = [f"#{n}"]
    for key in ("tests", "hidden", "adversarial"):
        suite = doc.get(key)
        if isinstance(suite, dict) and suite.get("total"):
            parts.append(f"{key} {suite.get('passed', 0)}/{suite['total']}")
    build = doc.get("build")
    if isinstance(build, dict) and build.get("ok") is False:
        parts.append("BUILD FAILED")
    return " · ".join(parts)


class AttemptCard(Vertical):
    DEFAULT_CSS = """
    AttemptCard { border: heavy $primary; padding: 0 1; height: 1fr; }
    AttemptCard .card-title { text-style: bold; height: 1; }
    AttemptCard Digits { width: auto; }
    AttemptCard .card-state { height: 1; }
    AttemptCard Sparkline { height: 1fr; max-height: 6; margin: 1 0 0 0; }
    AttemptCard .card-feedback { height: 1; color: $text-muted; }
    AttemptCard.-warning { border: heavy $warning; }
    AttemptCard.-warning Digits { color: $warning; }
    AttemptCard.-urgent { border: heavy $error; }
    AttemptCard.-urgent Digits { color: $error; text-style: bold; }
    AttemptCard.-grace { border: double $warning; background: $warning 20%; }
    AttemptCard.-grace Digits { color: $warning; }
    AttemptCard.-over { border: heavy $panel; }
    AttemptCard.-over Digits { color: $text-muted; }
    AttemptCard.-infra { border: heavy $error; background: $error 25%; }
    """

    def __init__(self, attempt: str) -> None:
        super().__init__(id=f"card-{attempt}")
        self.attempt = attempt
        self.sig: Any = None

    def compose(self) -> ComposeResult:
        yield Static("", classes="card-title")
        yield Digits("--:--")
        yield Static("", classes="card-state")
        yield Static("", classes="card-feedback")
        yield Sparkline([], summary_function=max)

    def show(self, view: AttemptView, elapsed: float) -> None:
        state = card_state(view, elapsed)
        clock = clock_text(view, elapsed)
        sig = (view.version, state, clock)
        if sig == self.sig:
            return
        self.sig = sig
        for s in STATES:
            self.set_class(s == state, f"-{s}")
        self.query_one(".card-title", Static).update(
            f"{view.title or view.challenge} · {view.agent} · {view.format}")
        self.query_one(Digits).update(clock)
        self.query_one(".card-state", Static).update(state_line(view, elapsed))
        spark = self.query_one(Sparkline)
        if list(spark.data or []) != view.trajectory:
            spark.data = list(view.trajectory)
        self.query_one(".card-feedback", Static).update(feedback_line(view))


class BigBoardScreen(Screen):
    DEFAULT_CSS = """
    BigBoardScreen #board { grid-gutter: 0 1; height: 1fr; }
    BigBoardScreen #board-empty { padding: 2 4; color: $text-muted; }
    """
    BINDINGS = [keys.BACK, Binding("v", "app.back", "Table", id="board-table",
                                   tooltip="Back to the dashboard table")]

    def __init__(self, adapter: Any) -> None:
        super().__init__(name="bigboard")
        self.adapter = adapter
        self.cards: dict[str, AttemptCard] = {}

    def compose(self) -> ComposeResult:
        yield Grid(id="board")
        yield GauntletFooter()

    def on_mount(self) -> None:
        self.refresh_view()

    def on_screen_resume(self) -> None:
        self.refresh_view()

    def _layout(self, n: int) -> None:
        cols = max(1, math.ceil(math.sqrt(n * 2)) // 2 + (1 if n > 1 else 0))
        cols = min(cols, n) if n else 1
        rows = max(1, math.ceil(n / cols))
        grid = self.query_one("#board", Grid)
        grid.styles.grid_size_columns = cols
        grid.styles.grid_size_rows = rows

    def refresh_view(self, changed: Any = None) -> None:
        ids = list(self.adapter.order)
        new = [a for a in ids if a not in self.cards]
        if new:
            grid = self.query_one("#board", Grid)
            for a in new:
                self.cards[a] = AttemptCard(a)
            grid.mount(*(self.cards[a] for a in new))
            self._layout(len(ids))
            return  # the new cards draw on the next tick, once composed
        for a in ids:
            view = self.adapter.views.get(a)
            card = self.cards[a]
            if view is not None and card.is_mounted:
                card.show(view, self.adapter.elapsed(a))
