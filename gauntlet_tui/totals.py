"""Scorecard totals for the dashboard's Score column, so it says what the scorecard says.

A finished attempt's total is ``arena.scoring.judge_attempt`` over its stored events
(through ``gauntlet_tui.history``: no SQL, no rules here), computed once per attempt in
a thread, one attempt at a time, newest first. Until it is known the column shows the
last submission's score marked ``~``.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any


class Totals:
    def __init__(self) -> None:
        self.values: dict[str, float] = {}  # attempt -> scorecard total
        self._failed: set[str] = set()
        self._running = False

    def missing(self, adapter: Any) -> list[str]:
        return [
            a
            for a in reversed(adapter.order)
            if a not in self.values
            and a not in self._failed
            and adapter.views[a].finished
            and adapter.views[a].submissions_used > 0
        ]

    def wake(self, app: Any) -> None:
        """Start the worker if finished attempts lack a total and a store is there."""
        if self._running or app.store_path is None or not self.missing(app.adapter):
            return
        self._running = True
        app.run_worker(self._run(app), group="totals", exclusive=True)

    async def _run(self, app: Any) -> None:
        try:
            while todo := self.missing(app.adapter):
                attempt = todo[0]
                total = await total_of(app.store_path, attempt)
                if total is None:
                    self._failed.add(attempt)
                else:
                    self.values[attempt] = total
                    app.refresh_rows({attempt})
        finally:
            self._running = False


async def total_of(store_path: Path, attempt: str) -> float | None:
    """The scorecard total of a stored attempt, or None (not stored, or not judgeable)."""
    from gauntlet_tui.history import load_events, scorecard

    try:
        events = await load_events(store_path, attempt)
        if not events:
            return None
        card = await asyncio.to_thread(scorecard, events)
    except Exception:  # noqa: BLE001 — the column falls back to the last score, marked ~
        return None
    return None if card is None else float(card["total"])
