"""Following the store: attempts run by other processes (`gauntlet arena`, `gauntlet run`
in another terminal) appear and update live on the dashboard.

Every ``interval`` seconds the follower asks the store (its query methods only) for the
attempts and, for each one not finished yet, the events after the last one it has seen;
they are handed to the adapter (``EngineAdapter.feed``: the screens only, never the
bus, which this process's own store writer listens to). Attempts that run in this
process are skipped (their events come straight from the bus). Between events, a followed
attempt's clock runs from its last event at its time scale (``TimeSource``, injectable).
"""

from __future__ import annotations

import asyncio
import functools
import logging
from pathlib import Path
from typing import Any

from arena.clock import RealTime, TimeSource
from gauntlet_tui.engine import EngineAdapter

log = logging.getLogger(__name__)


class StoreFollower:
    def __init__(
        self,
        adapter: EngineAdapter,
        store_path: Path,
        *,
        interval: float = 1.0,
        limit: int = 200,
        source: TimeSource | None = None,
    ) -> None:
        self.adapter = adapter
        self.store_path = Path(store_path)
        self.interval = interval
        self.limit = limit
        self.source = source or RealTime()
        self._seen: dict[str, int] = {}  # attempt -> last seq delivered
        self._done: set[str] = set()
        self._anchor: dict[str, tuple[float, float, float]] = {}  # attempt -> (t, source now, scale)
        self._store: Any = None

    @property
    def store(self) -> Any:
        """The open store (None before the first poll found it): what a stop asks with."""
        return self._store

    async def poll(self) -> int:
        """One pass; returns how many events were delivered."""
        if self._store is None:
            if not self.store_path.exists():
                return 0
            from store import Store

            self._store = await Store.open(self.store_path)
        delivered = 0
        rows = await self._store.list_attempts(self.limit)
        if rows:  # newest first: the store's current heat (arena.heats)
            self.adapter.newest_heat = str(rows[0].get("run") or "")
        for row in rows:
            aid = row.get("id") or row.get("attempt")
            if aid in self._done or self.adapter.handle(aid) is not None:
                continue  # finished and fully read, or live in this process (even if resumed here)
            events = await self._store.events(aid, after_seq=self._seen.get(aid, 0))
            for ev in events:
                self.adapter.feed(ev)
            if events:
                delivered += len(events)
                self._seen[aid] = events[-1].seq
                scale = float(row.get("time_scale") or 1.0)
                self._anchor[aid] = (events[-1].t, self.source.now(), scale)
                if aid not in self.adapter._clocks:
                    self.adapter.attach_clock(aid, functools.partial(self._elapsed, aid))
            else:
                self._seen.setdefault(aid, 0)
            if row.get("status") not in (None, "running"):  # over: done once fully read
                if not events or any(e.kind == "attempt.finished" for e in events):
                    self._done.add(aid)
        return delivered

    def forget(self, attempt: str) -> None:
        """An attempt removed from the store: nothing more to read of it."""
        self._done.add(attempt)
        self._anchor.pop(attempt, None)

    def _elapsed(self, attempt: str) -> float:
        t, at, scale = self._anchor[attempt]
        return t + (self.source.now() - at) * scale

    async def run(self) -> None:
        try:
            while True:
                try:
                    await self.poll()
                except Exception as exc:  # noqa: BLE001 — a busy or broken store must not end the UI
                    log.warning("following %s failed: %s", self.store_path, exc)
                await asyncio.sleep(self.interval)  # UI polling cadence, not attempt logic
        finally:
            await self.close()

    async def close(self) -> None:
        if self._store is not None:
            store, self._store = self._store, None
            await store.close()
