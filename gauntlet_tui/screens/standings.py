"""The final standings of a round: per challenge the winner and every attempt's total
(the scorecard's, ``arena.scoring.standings``; an attempt run under a publication whose
calibration was not verified says so), then the agents' ratings over the store: per weight
class the pairwise rating with its interval, unrated agents with their mean total, frontier
never ranked, Elo within the bracket as a secondary column (``gauntlet_tui.widgets.ratings``).
It stays up until dismissed; ``r`` runs another round on the same store (when the round
came from the demo).

Contestants are named as on the dashboard (the plan's name, else adapter and model:
``AttemptView.name``) and their status words are the other screens' (``hung`` for an
attempt ended as hung, ``arena.names.shown_status``); an unrated attempt (hung, infra
error) says so in the Note column. A heat's Standings rate that heat only."""

from __future__ import annotations

from typing import Any, Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Static

from arena.names import HUNG, shown_status
from arena.scoring.standings import placing_ranks
from gauntlet_tui import keys
from gauntlet_tui.screens.host import may_act
from gauntlet_tui.widgets.footer import GauntletFooter
from gauntlet_tui.widgets.ratings import ELO_NOTE, class_widgets, overall_widgets

UNVERIFIED = "unverified calibration"


def placed(p: Any) -> bool:
    """Whether a placing can win (``Placing.placed``: finished and rated)."""
    return bool(getattr(p, "placed", p.status == "finished"))


def winner_line(challenge: str, rows: list[Any], success: str = "", name: Any = None) -> Text:
    """The winner, or every attempt sharing the best total (a tie is shown as one, issue 38)."""
    best = [p for p, r in zip(rows, placing_ranks(rows, placed)) if r == 1]
    line = Text(f"{challenge}: ", style="bold")
    if not best:
        line.append("no winner (no attempt finished normally)", style="italic")
        return line
    who = ", ".join(name(p) if name is not None else p.agent for p in best)
    line.append(f"{'tie: ' if len(best) > 1 else 'winner '}{who}", style=f"bold {success}".strip())  # $success
    line.append(f" with {best[0].total:.1f}")
    return line


class StandingsScreen(Screen):
    DEFAULT_CSS = """
    StandingsScreen #standings-title { text-style: bold; padding: 0 1; background: $accent;
                                       color: $text; width: 100%; }
    StandingsScreen .standings-winner { padding: 1 1 0 1; }
    StandingsScreen DataTable { height: auto; margin: 0 1; }
    StandingsScreen #standings-ratings-title { padding: 1 1 0 1; text-style: bold; }
    StandingsScreen #standings-ratings-note { padding: 0 1; color: $text-muted; }
    StandingsScreen .ratings-class { padding: 1 1 0 1; text-style: bold; }
    StandingsScreen .ratings-overall { padding: 1 1 0 1; text-style: bold; }
    """
    BINDINGS = [keys.BACK, Binding("r", "again", "Another round", id="standings-again")]

    def __init__(
        self,
        standings: Any,
        *,
        again: Callable[[], Any] | None = None,
        title: str = "Standings",
        views: dict[str, Any] | None = None,
        heat: str | None = None,
    ) -> None:
        super().__init__(name="standings")
        self.standings = standings
        self.again = again
        self.title_text = title
        self.views = views or {}  # attempt -> AttemptView: the names and statuses the screens show
        self.heat = heat

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``r`` (another round) only where a round can be run again (the demo)."""
        return self.again is not None if action == "again" else True

    def who(self, p: Any) -> str:
        view = self.views.get(p.attempt)
        return view.name if view is not None and view.agent else p.agent

    def status_of(self, p: Any) -> str:
        view = self.views.get(p.attempt)
        if getattr(p, "unrated", None) == HUNG:
            return HUNG
        return shown_status(p.status, view.reason if view is not None else "")

    def note_of(self, p: Any) -> str:
        notes = [UNVERIFIED] if p.unverified else []
        if getattr(p, "unrated", None):
            notes.append("unrated")
        return ", ".join(notes)

    def compose(self) -> ComposeResult:
        s = self.standings
        n = sum(len(r) for r in s.by_challenge.values())
        heat = f" · heat {self.heat}" if self.heat else ""
        yield Static(
            Text(f"{self.title_text}{heat} — {n} attempt(s) on {len(s.by_challenge)} challenge(s)"),
            id="standings-title",
        )
        with VerticalScroll():
            for i, (challenge, rows) in enumerate(sorted(s.by_challenge.items())):
                yield Static(
                    winner_line(challenge, rows, self.app.theme_variables.get("success", ""), self.who),
                    classes="standings-winner",
                )
                table: DataTable = DataTable(cursor_type="none", zebra_stripes=True, id=f"standings-{i}")
                table.add_columns("#", "Agent", "Total", "Status", "Submissions", "Attempt", "Note")
                for p, rank in zip(rows, placing_ranks(rows, placed)):
                    unrated = bool(getattr(p, "unrated", None))
                    table.add_row(
                        "—" if rank is None else str(rank),  # hung, infra error, not finished: unplaced
                        Text(self.who(p)),
                        "—" if unrated else f"{p.total:.1f}",
                        self.status_of(p),
                        str(p.submissions),
                        p.attempt,
                        self.note_of(p),
                    )
                yield table
            scope = "this heat's rated attempts" if self.heat else "every finished attempt of the store"
            yield Static(f"Ratings ({scope})", id="standings-ratings-title")
            classes = s.classes
            yield Static(
                ELO_NOTE
                if classes
                else f"No ratings yet: no attempt of this {'heat' if self.heat else 'store'} has finished normally.",
                id="standings-ratings-note",
            )
            yield from overall_widgets(s.ratings, "standings-ratings")
            yield from class_widgets(classes, "standings-ratings")
        yield GauntletFooter()

    def action_again(self) -> None:
        if not may_act(self, "run another round"):
            return
        if self.again is None:
            self.notify("this round cannot be run again from here", severity="warning")
            return
        self.app.pop_screen()
        self.again()
