"""The leaderboard: the agents' Elo ratings and weight classes, as the store keeps them
(rated by the judging module); nothing is computed here."""
from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from gauntlet_tui import keys


class LeaderboardScreen(Screen):
    DEFAULT_CSS = """
    LeaderboardScreen #leaderboard-note { height: auto; padding: 0 1; color: $text-muted; }
    """
    BINDINGS = [keys.BACK]

    def __init__(self, store_path: Path | None) -> None:
        super().__init__(name="leaderboard")
        self.store_path = store_path

    def compose(self) -> ComposeResult:
        yield Static("Elo ratings of agents (from `gauntlet judge` / `gauntlet leaderboard`).", id="leaderboard-note")
        yield DataTable(cursor_type="row", zebra_stripes=True, id="leaderboard-table")
        yield Footer()

    async def on_mount(self) -> None:
        from gauntlet_tui.history import ratings

        table = self.query_one(DataTable)
        for key, label in (("rank", "#"), ("agent", "Agent"), ("rating", "Elo"), ("games", "Games"),
                           ("weight_class", "Class")):
            table.add_column(label, key=key)
        try:
            rows = await ratings(self.store_path)
        except Exception as exc:  # noqa: BLE001
            self.query_one("#leaderboard-note", Static).update(f"could not read ratings: {exc}")
            return
        rows = sorted(rows, key=lambda r: -(r.get("rating") or 0))
        for i, r in enumerate(rows, 1):
            table.add_row(str(i), str(r.get("agent") or r.get("name") or r.get("id")),
                          f"{r.get('rating') or 0:.0f}", str(r.get("rated_games", r.get("games", ""))),
                          str(r.get("weight_class") or "—"))
        if not rows:
            self.query_one("#leaderboard-note", Static).update(
                "No ratings yet: judge some finished attempts (`gauntlet leaderboard`).")
        table.focus()
