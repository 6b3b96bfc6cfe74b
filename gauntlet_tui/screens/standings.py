"""The final standings of a round: per challenge the winner and every attempt's total
(the scorecard's, ``arena.scoring.standings``; an attempt run under a publication whose
calibration was not verified says so), then the agents' ratings over the store: per weight
class the pairwise rating with its interval, unrated agents with their mean total, frontier
never ranked, Elo within the bracket as a secondary column (``gauntlet_tui.widgets.ratings``).
It stays up until dismissed; ``r`` runs another round on the same store (when the round
came from the demo)."""

from __future__ import annotations

from typing import Any, Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Static

from gauntlet_tui import keys
from gauntlet_tui.screens.host import may_act
from gauntlet_tui.widgets.footer import GauntletFooter
from gauntlet_tui.widgets.ratings import ELO_NOTE, class_widgets

UNVERIFIED = "unverified calibration"


def winner_line(challenge: str, rows: list[Any], success: str = "") -> Text:
    best = rows[0] if rows and rows[0].status == "finished" else None
    line = Text(f"{challenge}: ", style="bold")
    if best is None:
        line.append("no winner (no attempt finished normally)", style="italic")
    else:
        line.append(f"winner {best.agent}", style=f"bold {success}".strip())  # the theme's $success
        line.append(f" with {best.total:.1f}")
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
    """
    BINDINGS = [keys.BACK, Binding("r", "again", "Another round", id="standings-again")]

    def __init__(self, standings: Any, *, again: Callable[[], Any] | None = None, title: str = "Standings") -> None:
        super().__init__(name="standings")
        self.standings = standings
        self.again = again
        self.title_text = title

    def compose(self) -> ComposeResult:
        s = self.standings
        n = sum(len(r) for r in s.by_challenge.values())
        yield Static(f"{self.title_text} — {n} attempt(s) on {len(s.by_challenge)} challenge(s)", id="standings-title")
        with VerticalScroll():
            for i, (challenge, rows) in enumerate(sorted(s.by_challenge.items())):
                yield Static(
                    winner_line(challenge, rows, self.app.theme_variables.get("success", "")),
                    classes="standings-winner",
                )
                table: DataTable = DataTable(cursor_type="none", zebra_stripes=True, id=f"standings-{i}")
                table.add_columns("#", "Agent", "Total", "Status", "Submissions", "Attempt", "Note")
                for rank, p in enumerate(rows, 1):
                    table.add_row(
                        str(rank),
                        Text(p.agent),
                        f"{p.total:.1f}",
                        p.status,
                        str(p.submissions),
                        p.attempt,
                        UNVERIFIED if p.unverified else "",
                    )
                yield table
            yield Static("Ratings (every finished attempt of the store)", id="standings-ratings-title")
            classes = s.classes
            yield Static(
                ELO_NOTE if classes else "No ratings yet: no attempt of this store has finished normally.",
                id="standings-ratings-note",
            )
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
