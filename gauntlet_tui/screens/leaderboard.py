"""The leaderboard: first the one list (one pairwise rating over every ranked class, rank bands
where 95% intervals overlap: issue 38), then per weight class the agents ordered by their pairwise rating with its 95%
interval (one-sided after a sweep, said so), then the agents with no opponent there, unrated
with their mean total and attempts; frontier shown, never ranked; Elo a secondary column,
within the bracket. Computed from the store's finished attempts when the screen opens (so it
is never empty just because `gauntlet leaderboard` has not run), by ``arena.pipeline.boards``
(which also counts the attempts run under an unverified publication); no SQL and no rating
rule here."""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Static

from gauntlet_tui import keys
from gauntlet_tui.widgets.footer import GauntletFooter
from gauntlet_tui.widgets.ratings import ELO_NOTE, class_widgets, overall_widgets
from gauntlet_tui.text import as_text


class LeaderboardScreen(Screen):
    DEFAULT_CSS = """
    LeaderboardScreen #leaderboard-note { height: auto; padding: 0 1; color: $text-muted; }
    LeaderboardScreen .ratings-class { padding: 1 1 0 1; text-style: bold; }
    LeaderboardScreen .ratings-overall { padding: 1 1 0 1; text-style: bold; }
    LeaderboardScreen .ratings-table { height: auto; margin: 0 1; }
    """
    BINDINGS = [keys.BACK]

    def __init__(self, store_path: Path | None) -> None:
        super().__init__(name="leaderboard")
        self.store_path = store_path
        self.class_rows: list[dict] = []
        self.agent_rows: list[dict] = []  # the one list (issue 38)

    def compose(self) -> ComposeResult:
        yield Static(
            "Ratings of agents per weight class, computed from every finished attempt of the store.",
            id="leaderboard-note",
        )
        yield VerticalScroll(id="leaderboard-tables")
        yield GauntletFooter()

    async def on_mount(self) -> None:
        from arena.pipeline.boards import leaderboard

        note = self.query_one("#leaderboard-note", Static)
        try:
            board = await leaderboard(self.store_path, persist=False) if self.store_path else None
            self.class_rows = board.class_tables() if board is not None else []
            self.agent_rows = board.agent_rows() if board is not None else []
        except Exception as exc:  # noqa: BLE001
            note.update(as_text(f"could not read ratings: {exc}"))
            return
        if not self.class_rows:
            note.update("No ratings yet: no attempt of this store has finished normally.")
            return
        note.update(f"{note.render()}\n{ELO_NOTE}")
        box = self.query_one("#leaderboard-tables", VerticalScroll)
        await box.mount_all(
            [*overall_widgets(self.agent_rows, "leaderboard"), *class_widgets(self.class_rows, "leaderboard")]
        )
        self.query(DataTable).first().focus()
