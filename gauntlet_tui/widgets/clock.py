"""The attempt clock: time left, a bar, the stage; styled from the deadline.

The parent sets ``elapsed`` (attempt seconds, read from the injected clock) and the
view; style follows the fraction of the time limit used — ``-warning`` from the soft
mark (80%), ``-urgent`` from the hard mark (90%) — and the stage: ``-grace`` inside the
grace period, ``-over`` after. Nothing here counts ticks. Under the projector theme the
time is drawn in large ``Digits`` (``PROJECTOR_CSS``, which the app loads: a widget's
own CSS is scoped to it and cannot select on the app's theme class).
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import Digits, Static

from arena.view import AttemptView


PROJECTOR_CSS = """
    .-theme-gauntlet-projector AttemptClock Digits { display: block; }
    .-theme-gauntlet-projector AttemptClock { border: heavy $primary; }
    .-theme-gauntlet-projector AttemptClock.-warning { border: heavy $warning; }
    .-theme-gauntlet-projector AttemptClock.-urgent { background: $error; border: heavy $error; }
    .-theme-gauntlet-projector AttemptClock.-grace { background: $warning; border: heavy $warning; }
    .-theme-gauntlet-projector AttemptClock.-grace #clock-line,
    .-theme-gauntlet-projector AttemptClock.-grace Digits { color: $background; }
    .-theme-gauntlet-projector AttemptClock.-over { border: heavy $panel; }
    .-theme-gauntlet-projector AttemptClock.-urgent #clock-line,
    .-theme-gauntlet-projector AttemptClock.-urgent Digits { color: $background; }
"""


def fmt_clock(seconds: float) -> str:
    seconds = max(0, int(seconds + 0.999))  # never show 00:00 while time remains
    h, rem = divmod(seconds, 3600)
    m, s = divmod(rem, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"


class AttemptClock(Widget):
    DEFAULT_CSS = """
    AttemptClock { height: auto; padding: 0 1; border: round $primary; }
    AttemptClock #clock-line { height: 1; }
    AttemptClock Digits { display: none; width: auto; }
    AttemptClock.-warning { border: round $warning; }
    AttemptClock.-warning #clock-line, AttemptClock.-warning Digits { color: $warning; }
    AttemptClock.-urgent { border: heavy $error; }
    AttemptClock.-urgent #clock-line, AttemptClock.-urgent Digits { color: $error; text-style: bold; }
    AttemptClock.-grace { border: double $warning; }
    AttemptClock.-grace #clock-line, AttemptClock.-grace Digits { color: $warning; text-style: bold italic; }
    AttemptClock.-over { border: round $panel; }
    AttemptClock.-over #clock-line, AttemptClock.-over Digits { color: $text-muted; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.level = "ok"
        self.stage = "running"

    def compose(self) -> ComposeResult:
        yield Digits("--:--", id="clock-digits")
        yield Static("", id="clock-line")

    def show(self, view: AttemptView, elapsed: float, *, bar_width: int = 30) -> None:
        stage = view.stage(elapsed)
        frac = view.fraction(elapsed)
        level = view.clock_level(elapsed)
        self.level, self.stage = level, stage
        self.set_class(level == "warning" and stage == "running", "-warning")
        self.set_class(level == "urgent" and stage == "running", "-urgent")
        self.set_class(stage == "grace", "-grace")
        self.set_class(stage == "over", "-over")
        if stage == "running":
            big = fmt_clock(view.remaining(elapsed))
            label = f"{big} left of {fmt_clock(view.time_limit_s)}"
        elif stage == "grace":
            grace_left = max(0.0, view.cutoff_s() + view.grace_s - elapsed)
            big = fmt_clock(grace_left)
            label = f"GRACE {big} — final message only"
        else:
            big = "00:00"
            label = f"OVER — {view.shown_status}" if view.finished else "TIME UP"
        tail = f" {min(frac, 9.99) * 100:3.0f}%  {label}"
        if self.content_size.width:  # the bar takes what the label leaves (narrow terminals)
            bar_width = max(4, min(bar_width, self.content_size.width - len(tail)))
        filled = int(round(min(1.0, frac) * bar_width))
        line = Text()
        line.append("█" * filled + "░" * (bar_width - filled))
        line.append(tail)
        self.query_one("#clock-digits", Digits).update(big)
        self.query_one("#clock-line", Static).update(line)
