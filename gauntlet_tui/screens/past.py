"""Past attempts: the finished ones, and the scorecard of the selected attempt
(``arena.scoring.judge_attempt`` over its events; nothing is scored here). ``d`` removes
the selected attempt from the store, with its files, after a confirmation
(``arena.attempt.remove``, as ``gauntlet attempts rm``); a running attempt is refused."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from gauntlet_tui.text import cell, esc as escape
from textual.screen import Screen
from textual.widgets import DataTable, Static

from gauntlet_tui import keys
from gauntlet_tui.engine import EngineAdapter
from gauntlet_tui.screens.confirm import ConfirmScreen
from gauntlet_tui.screens.host import host, may_act
from gauntlet_tui.widgets.footer import GauntletFooter


def render_scorecard(card: dict[str, Any] | None) -> str:
    if card is None:
        return "[$text-muted]no scorecard (judging unavailable)[/]"
    lines = [
        f"[b]{escape(card['challenge'])}[/] — {escape(card['agent'])} · {card['format']} · {escape(card['weight_class'])}",
        f"[b]total {card['total']:.1f}[/]   trajectory " + " → ".join(f"{x:.0f}" for x in card.get("trajectory", [])),
        "",
    ]
    for name, value in card.get("components", {}).items():
        weight = card.get("weights", {}).get(name, 0)
        lines.append(f"  {name:<10} {value:6.1f}  × {weight:.2f}")
    adjustments = card.get("process_adjustments", []) + card.get("strategy_adjustments", [])
    if adjustments:
        lines += ["", "[b]adjustments[/]"]
        for a in adjustments:
            colour = "$success" if a.get("points", 0) >= 0 else "$error"
            lines.append(
                f"  [{colour}]{a.get('points', 0):+g}[/] {escape(a.get('rule', ''))}: {escape(str(a.get('evidence', '')))}"
            )
    if card.get("flags"):
        lines += ["", "[b]flags[/]"] + [
            f"  [$warning]{escape(f.get('rule', ''))}[/] {escape(str(f.get('detail', '')))}" for f in card["flags"]
        ]
    for p in card.get("phases", []):
        lines.append(f"  phase {escape(str(p.get('id')))}: {p.get('objective', 0):.1f}")
    return "\n".join(lines)


class PastScreen(Screen):
    DEFAULT_CSS = """
    PastScreen DataTable { width: 3fr; }
    PastScreen #scorecard { width: 2fr; border: round $panel; padding: 0 1; }
    """
    BINDINGS = [keys.BACK, keys.OPEN, keys.TRANSCRIPT, keys.COMPARE, keys.REMOVE]

    def __init__(self, adapter: EngineAdapter) -> None:
        super().__init__(name="past")
        self.adapter = adapter

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield DataTable(cursor_type="row", zebra_stripes=True, id="past-table")
            with VerticalScroll(id="scorecard"):
                yield Static("Select a finished attempt for its scorecard.", id="scorecard-body")
        yield GauntletFooter()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        for key, label in (
            ("attempt", "Attempt"),
            ("challenge", "Challenge"),
            ("agent", "Agent"),
            ("format", "Format"),
            ("status", "Status"),
            ("score", "Last score"),
        ):
            table.add_column(label, key=key)
        for aid in self.adapter.order:
            v = self.adapter.views[aid]
            if v.finished:
                score = "—" if v.last_score is None else f"{v.last_score:.1f}"
                table.add_row(*map(cell, (aid, v.challenge, v.name, v.format, v.shown_status, score)), key=aid)
        table.focus()

    @on(DataTable.RowHighlighted)
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.row_key is None or event.row_key.value is None:
            return  # the table was cleared under the cursor
        self.show_scorecard(str(event.row_key.value))

    @work(exclusive=True, group="scorecard")
    async def show_scorecard(self, attempt: str) -> None:
        import asyncio

        from gauntlet_tui.history import load_events, scorecard

        body = self.query_one("#scorecard-body", Static)
        store = getattr(self.app, "store_path", None)
        events = await load_events(store, attempt) if store is not None else None
        if not events:
            body.update(f"no events stored for {escape(attempt)}")
            return
        try:
            card = await asyncio.to_thread(scorecard, events)
        except Exception as exc:  # noqa: BLE001 — show why, never crash the screen
            body.update(f"[$error]could not judge {escape(attempt)}: {escape(str(exc))}[/]")
            return
        body.update(render_scorecard(card))

    @on(DataTable.RowSelected)
    def _selected(self, event: DataTable.RowSelected) -> None:
        host(self).open_replay(str(event.row_key.value))

    def action_open(self) -> None:
        table = self.query_one(DataTable)
        if table.row_count:
            host(self).open_replay(str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value))

    def selected(self) -> str | None:
        table = self.query_one("#past-table", DataTable)
        if not table.row_count:
            return None
        return str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)

    @work(exclusive=True, group="remove")
    async def action_remove(self) -> None:
        """Remove the selected attempt from the store (asks first; never a running one)."""
        attempt = self.selected()
        if attempt is None or not may_act(self, "remove an attempt"):
            return
        store = getattr(self.app, "store_path", None)
        view = self.adapter.views.get(attempt)
        if store is None:
            self.notify("no store here: nothing to remove", severity="warning")
            return
        if self.adapter.is_live(attempt) or (view is not None and not view.finished):
            self.notify(f"{attempt} is running: stop it first (x on the dashboard).", severity="error", timeout=8)
            return
        what = f"{view.challenge} — {view.name}, {view.shown_status}" if view is not None else attempt
        if not await self.app.push_screen_wait(
            ConfirmScreen(
                f"Remove attempt {attempt} ({what}) from the store?\n"
                "Its events, scorecard, transcript and workspace are deleted; this cannot be undone."
            )
        ):
            return
        from arena.attempt.remove import remove_attempts

        try:
            result = await remove_attempts(Path(store), [attempt])
        except Exception as exc:  # noqa: BLE001 — a busy or broken store: say so, keep the screen
            self.notify(f"could not remove {attempt}: {exc}", severity="error", timeout=10)
            return
        if not result.ok:
            self.notify(result.refusal(Path(store)), severity="error", timeout=10)
            return
        table = self.query_one("#past-table", DataTable)
        if attempt in table.rows:
            table.remove_row(attempt)
        host(self).forget_attempt(attempt)
        left = f"; could not delete {', '.join(result.left)}" if result.left else ""
        self.notify(f"removed {attempt} ({result.files} file(s) beside the store){left}", timeout=6)
        if not table.row_count:
            self.query_one("#scorecard-body", Static).update("No finished attempts left.")

    def action_compare(self) -> None:
        from gauntlet_tui.screens.compare import mark_or_compare

        mark_or_compare(self, self.query_one(DataTable))

    def action_transcript(self) -> None:
        """The highlighted attempt's model calls, decoded (issue 35)."""
        from gauntlet_tui.screens.transcript import open_transcript  # noqa: PLC0415

        table = self.query_one(DataTable)
        if table.row_count:
            open_transcript(self, str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value))
