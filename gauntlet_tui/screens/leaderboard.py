"""The leaderboard: the agents' Elo ratings and weight classes, computed from the store's
finished attempts by ``arena.scoring`` when the screen opens (so it is never empty just
because `gauntlet leaderboard` has not run); no SQL and no rating rule here."""
from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import DataTable, Static

from gauntlet_tui import keys
from gauntlet_tui.widgets.footer import GauntletFooter


class LeaderboardScreen(Screen):
    DEFAULT_CSS = """
    LeaderboardScreen #leaderboard-note { height: auto; padding: 0 1; color: $text-muted; }
    """
    BINDINGS = [keys.BACK]

    def __init__(self, store_path: Path | None) -> None:
        super().__init__(name="leaderboard")
        self.store_path = store_path

    def compose(self) -> ComposeResult:
        yield Static("Elo ratings of agents, computed from every finished attempt of the store.",
                     id="leaderboard-note")
        yield DataTable(cursor_type="row", zebra_stripes=True, id="leaderboard-table")
        yield GauntletFooter()

    async def on_mount(self) -> None:
        from arena.scoring.load import leaderboard

        table = self.query_one(DataTable)
        for key, label in (("rank", "#"), ("agent", "Agent"), ("rating", "Elo"), ("games", "Games"),
                           ("weight_class", "Class")):
            table.add_column(label, key=key)
        try:
            board = await leaderboard(self.store_path, persist=False) if self.store_path else None
            rows = board.agent_rows() if board is not None else []
        except Exception as exc:  # noqa: BLE001
            self.query_one("#leaderboard-note", Static).update(f"could not read ratings: {exc}")
            return
        for i, r in enumerate(rows, 1):
            table.add_row(str(i), r["agent"], f"{r['elo']:.0f}", str(r["games"]),
                          str(r.get("weight_class") or "—"))
        if not rows:
            self.query_one("#leaderboard-note", Static).update(
                "No ratings yet: no attempt of this store has finished normally.")
        table.focus()
