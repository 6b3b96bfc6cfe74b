"""WAL checkpoints run in the store's own thread, not inside the writer's commits."""

from __future__ import annotations

import asyncio
import sqlite3
import threading

from arena.events import Event
from store import Store
from store.checkpoint import SAFETY_PAGES, Checkpointer


def test_a_passive_checkpoint_copies_the_whole_wal_back(tmp_path):
    db = tmp_path / "c.db"
    w = sqlite3.connect(db, isolation_level=None)
    w.execute("PRAGMA journal_mode = WAL")
    w.execute("PRAGMA wal_autocheckpoint = 0")  # only the checkpointer may checkpoint
    w.execute("CREATE TABLE t (x TEXT)")
    w.executemany("INSERT INTO t VALUES (?)", [("x" * 500,)] * 2000)
    cp = Checkpointer(db)
    conn = sqlite3.connect(db, isolation_level=None)
    busy, frames, done = cp.once(conn)
    assert busy == 0 and frames > 100 and done == frames
    assert cp.runs == 1
    conn.close()
    w.close()


def test_the_store_runs_a_checkpoint_thread_and_stops_it_on_close(tmp_path):
    async def main() -> tuple[int, int, bool]:
        store = await Store.open(tmp_path / "s.db")
        names = {t.name for t in threading.enumerate()}
        for i in range(1, 501):
            store.append(Event(attempt="a-1", seq=i, t=i / 10, kind="agent.output", data={"text": "y" * 200}))
        await store.flush()
        async with store._w.execute("PRAGMA wal_autocheckpoint") as cur:
            pages = (await cur.fetchone())[0]
        await store.close()
        alive = any(t.name.startswith("wal-checkpoint:") for t in threading.enumerate())
        return pages, sum(n.startswith("wal-checkpoint:") for n in names), alive

    pages, running, alive_after = asyncio.run(main())
    assert pages == SAFETY_PAGES  # the writer's own checkpoint is only a safety net
    assert running == 1
    assert not alive_after
