"""Writer failures are surfaced, never swallowed, and lose nothing already committed.

Faults are real SQLite conditions: a duplicate key, a lock held by another
connection, and a full database (``PRAGMA max_page_count`` on the writer's own
connection is SQLite's way of making the disk full at a size we choose).
"""

from __future__ import annotations

import sqlite3

import pytest

from arena.events import Event
from store import Store, StoreWriteError


def ev(attempt: str, seq: int, **data) -> Event:
    return Event(attempt=attempt, seq=seq, t=float(seq), kind="file.changed", data=data)


async def seqs(store: Store, attempt: str) -> list[int]:
    return [e.seq for e in await store.events(attempt)]


async def test_a_duplicate_event_is_refused_alone_and_reported(tmp_path):
    store = await Store.open(tmp_path / "g.db")
    for i in range(1, 6):
        store.append(ev("a-00000001", i, path="x"))
    await store.flush()
    for i in (6, 7, 3, 8):  # 3 again: a duplicate (attempt, seq) in the middle of a group
        store.append(ev("a-00000001", i, path="dup" if i == 3 else "y"))
    with pytest.raises(StoreWriteError, match=r"refused 1 event\(s\) \(a-00000001#3 file.changed\); every other"):
        await store.flush()
    assert await seqs(store, "a-00000001") == list(range(1, 9))
    assert (await store.events("a-00000001"))[2].data == {"path": "x"}  # the original stays
    assert [e.seq for e in store.rejected] == [3]
    await store.flush()  # reported once; later flushes are clean
    await store.close()


async def test_data_that_is_not_json_is_refused_at_append_without_raising(tmp_path):
    store = await Store.open(tmp_path / "g.db")
    loop: dict = {}
    loop["self"] = loop
    store.append(ev("a-00000002", 1, ok=True))
    store.append(ev("a-00000002", 2, bad=loop))  # must not raise: the bus would drop the store
    store.append(ev("a-00000002", 3, ok=True))
    with pytest.raises(StoreWriteError, match=r"a-00000002#2"):
        await store.flush()
    assert await seqs(store, "a-00000002") == [1, 3]
    await store.close()


async def test_a_locked_database_fails_the_flush_then_recovers_with_nothing_lost(tmp_path):
    path = tmp_path / "g.db"
    store = await Store.open(path, busy_timeout_ms=50)
    for i in range(1, 51):
        store.append(ev("a-00000003", i, path="before"))
    await store.flush()

    blocker = sqlite3.connect(path, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")  # another process holds the write lock
    for i in range(51, 101):
        store.append(ev("a-00000003", i, path="during"))
    with pytest.raises(StoreWriteError, match=r"events not committed: database is locked"):
        await store.flush()
    assert "locked" in str(store.writer_error)
    assert await seqs(store, "a-00000003") == list(range(1, 51))  # committed ones intact

    blocker.execute("ROLLBACK")
    blocker.close()
    await store.flush()  # the kept group is retried
    assert store.writer_error is None
    assert await seqs(store, "a-00000003") == list(range(1, 101))
    await store.close()


async def test_a_full_disk_fails_the_flush_then_recovers_with_nothing_lost(tmp_path):
    store = await Store.open(tmp_path / "g.db")
    for i in range(1, 21):
        store.append(ev("a-00000004", i, path="small"))
    await store.flush()
    async with store._w.execute("PRAGMA page_count") as cur:  # fault injection: cap the size
        (pages,) = await cur.fetchone()
    await store._proc.request("sql", f"PRAGMA max_page_count = {pages}")  # the writer process
    for i in range(21, 2021):
        store.append(ev("a-00000004", i, text="x" * 200))
    with pytest.raises(StoreWriteError, match=r"database or disk is full"):
        await store.flush()
    assert await seqs(store, "a-00000004") == list(range(1, 21))
    await store._proc.request("sql", "PRAGMA max_page_count = 1073741823")
    await store.flush()
    assert await seqs(store, "a-00000004") == list(range(1, 2021))
    await store.close()


async def test_close_reports_events_it_could_not_commit(tmp_path):
    path = tmp_path / "g.db"
    store = await Store.open(path, busy_timeout_ms=20)
    blocker = sqlite3.connect(path, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")
    for i in range(1, 11):
        store.append(ev("a-00000005", i))
    with pytest.raises(StoreWriteError, match=r"10 events could not be committed before close"):
        await store.close()
    blocker.execute("ROLLBACK")
    blocker.close()


async def test_acknowledged_groups_commit_with_full_sync_telemetry_with_normal(tmp_path):
    """Power loss cannot be staged in a test; what is checked is that SQLite is told to
    fsync exactly where the durability contract needs it (docs/store.md)."""
    import asyncio

    store = await Store.open(tmp_path / "g.db", interval=0.01)
    await store._proc.request("trace", True)  # observe the writer process's connection
    committed = asyncio.Event()
    store.on_commit(lambda evs: committed.set())
    seen: list[str] = []

    async def modes() -> list[str]:
        """The synchronous mode in force at each COMMIT since the last call."""
        seen[:] = await store._proc.request("trace", True)
        mode, out = None, []
        for stmt in seen:
            if stmt.startswith("PRAGMA synchronous"):
                mode = stmt.split("=")[1].strip()
            elif stmt == "COMMIT":
                out.append(mode)
        return out

    store.append(ev("a-00000006", 1, path="x"))
    await asyncio.wait_for(committed.wait(), 10)  # committed by the timer, no flush
    assert await modes() == ["NORMAL"]
    store.append(ev("a-00000006", 2, path="x"))
    await store.flush()  # an acknowledged point
    assert (await modes())[-1] == "FULL"
    store.append(ev("a-00000006", 3, path="x"))
    committed.clear()
    await asyncio.wait_for(committed.wait(), 10)
    assert await modes() == ["NORMAL"]
    await store.flush()  # nothing new, but seq 3 was only NORMAL-committed: a sync point
    assert await modes() == ["FULL"] and any("store_meta" in s for s in seen)
    await store.flush()  # already durable: nothing to do
    assert await modes() == []
    await store.close()


async def test_set_status_is_not_blocked_by_an_earlier_refused_event(tmp_path):
    store = await Store.open(tmp_path / "g.db")
    aid = await store.create_attempt(challenge="c", agent="a", format="sprint")
    store.append(ev(aid, 1))
    store.append(ev(aid, 1))  # a duplicate, refused
    await store.set_status(aid, "interrupted", "arena restarted")
    assert (await store.get_attempt(aid))["status"] == "interrupted"
    assert [e.seq for e in store.rejected] == [1]
    await store.close()


async def test_a_killed_writer_process_fails_the_flush_then_a_new_one_commits_everything(tmp_path):
    import os
    import signal

    store = await Store.open(tmp_path / "g.db")
    for i in range(1, 11):
        store.append(ev("a-00000007", i, path="before"))
    await store.flush()
    first = store._proc.pid
    os.kill(first, signal.SIGKILL)  # fault injection: the writer process dies
    for i in range(11, 21):
        store.append(ev("a-00000007", i, path="after"))
    with pytest.raises(StoreWriteError, match=r"writer process (exited|is gone)"):
        await store.flush()
    assert await seqs(store, "a-00000007") == list(range(1, 11))
    await store.flush()  # the kept group goes to a new writer process
    assert store._proc.pid != first and store.writer_error is None
    assert await seqs(store, "a-00000007") == list(range(1, 21))
    await store.close()


async def test_the_writer_process_starts_with_the_first_write_and_ends_with_the_store(tmp_path):
    from pathlib import Path

    store = await Store.open(tmp_path / "g.db")
    assert await store.list_attempts() == [] and store._proc.pid is None  # only read: none
    await store.close()
    store = await Store.open(tmp_path / "g.db")
    store.append(ev("a-00000008", 1, path="x"))
    await store.flush()
    pid = store._proc.pid
    assert b"writer_proc.py" in Path(f"/proc/{pid}/cmdline").read_bytes()
    await store.close()
    assert not Path(f"/proc/{pid}").exists()  # exited and reaped
