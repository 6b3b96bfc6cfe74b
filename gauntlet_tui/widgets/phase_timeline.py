"""The Marathon phase timeline: open phases in colour, locked ones visibly locked,
and the briefing of the phase opened most recently shown under the line."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from gauntlet_tui.text import esc as escape
from textual.widgets import Static

from arena.view import AttemptView, Phase


class PhaseBadge(Static):
    DEFAULT_CSS = """
    PhaseBadge { width: auto; padding: 0 1; margin-right: 1; }
    PhaseBadge.-open { background: $primary; color: $background; }
    PhaseBadge.-current { text-style: bold; }
    PhaseBadge.-locked { color: $gauntlet-locked; border-left: outer $gauntlet-locked; padding: 0 1 0 0; }
    PhaseBadge.-revealed { background: $accent; color: $background; text-style: bold; }
    """

    def show(self, phase: Phase, *, current: bool, fresh: bool) -> None:
        state = "open" if phase.open else "locked"
        icon = "▶" if phase.open else "□"
        self.update(f"{icon} {phase.number} {escape(phase.id)}" + ("" if phase.open else " (locked)"))
        self.set_class(phase.open and not fresh, "-open")
        self.set_class(not phase.open, "-locked")
        self.set_class(fresh, "-revealed")
        self.set_class(current, "-current")
        self.tooltip = f"phase {phase.number}: {state}"


class PhaseTimeline(Vertical):
    DEFAULT_CSS = """
    PhaseTimeline { height: auto; }
    PhaseTimeline #phase-row { height: 1; }
    PhaseTimeline #phase-briefing { height: auto; max-height: 4; overflow-y: auto; color: $foreground; padding: 0 1; border-left: thick $accent; }
    PhaseTimeline #phase-briefing.-empty { display: none; }
    """

    def compose(self) -> ComposeResult:
        yield Horizontal(id="phase-row")
        yield Static("", id="phase-briefing", classes="-empty")

    def show(self, view: AttemptView, *, fresh: int | None = None) -> None:
        """Draw the phases; ``fresh`` is the number of a phase revealed just now."""
        row = self.query_one("#phase-row", Horizontal)
        badges = list(row.query(PhaseBadge))
        for _ in range(len(view.phases) - len(badges)):
            badge = PhaseBadge()
            row.mount(badge)
            badges.append(badge)
        current = view.current_phase
        for phase, badge in zip(view.phases, badges):
            badge.show(phase, current=phase.number == current, fresh=phase.number == fresh)
        latest = max((p for p in view.phases if p.open and p.number > 1), key=lambda p: p.number, default=None)
        briefing = self.query_one("#phase-briefing", Static)
        if latest is not None and (latest.briefing or latest.hint):
            text = f"[b]Phase {latest.number} — {escape(latest.id)}[/] (opened by {escape(str(latest.by))})\n"
            text += escape(latest.briefing or "")
            if latest.hint:
                text += f"\n[i]hint: {escape(latest.hint)}[/]"
            briefing.update(text)
            briefing.remove_class("-empty")
        else:
            briefing.add_class("-empty")
