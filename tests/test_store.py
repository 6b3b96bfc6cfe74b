"""The store on real SQLite files: opening, migrations, the event log, derived tables."""

from __future__ import annotations

import re
import sqlite3
import threading
from pathlib import Path

import pytest

from arena.bus import EventBus
from arena.events import Event
from store import SCHEMA_VERSION, Store, StoreError


@pytest.fixture
async def store(tmp_path):
    s = await Store.open(tmp_path / "g.db")
    yield s
    await s.close()


def ev(attempt: str, seq: int, t: float, kind: str, **data) -> Event:
    return Event(attempt=attempt, seq=seq, t=t, kind=kind, data=data)


# -- opening and migrations ------------------------------------------------------------


async def test_open_creates_a_wal_store_at_the_current_schema(tmp_path):
    path = tmp_path / "sub" / "g.db"
    s = await Store.open(path)
    assert s.migrated_from == 0
    await s.close()
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 1
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"runs", "attempts", "events", "submissions", "feedback", "agents", "challenges"} <= tables


async def test_reopen_is_idempotent_and_keeps_data(tmp_path):
    path = tmp_path / "g.db"
    s = await Store.open(path)
    aid = await s.create_attempt(challenge="off-by-one", agent="scripted:elite", format="sprint")
    s.append(ev(aid, 1, 0.0, "attempt.started", challenge="off-by-one"))
    await s.close()
    for _ in range(2):
        s = await Store.open(path)
        assert s.migrated_from == SCHEMA_VERSION
        assert (await s.get_attempt(aid))["challenge"] == "off-by-one"
        assert [e.seq for e in await s.events(aid)] == [1]
        await s.close()


async def test_store_from_a_newer_version_is_refused_by_name(tmp_path):
    path = tmp_path / "g.db"
    await (await Store.open(path)).close()
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version = 99")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match=r"g\.db: store schema version 99 is newer .* \(up to 1\)"):
        await Store.open(path)


async def test_a_file_that_is_not_sqlite_is_refused_by_name(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("hello, this is not a database\n" * 200)
    with pytest.raises(StoreError, match=r"notes\.txt: not a Gauntlet store .*expected a SQLite database file"):
        await Store.open(path)
    assert path.read_text().startswith("hello")  # left untouched


async def test_a_directory_is_refused_by_name(tmp_path):
    with pytest.raises(StoreError, match=r"is a directory, expected a store file"):
        await Store.open(tmp_path)


async def test_another_applications_database_is_refused(tmp_path):
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE invoices (id INTEGER)")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match=r"other\.db: a SQLite database but not a Gauntlet store"):
        await Store.open(path)


# -- attempts and runs --------------------------------------------------------------------


async def test_create_attempt_is_committed_at_once_with_an_a_hex_id(store):
    run = await store.create_run("run", {"agent": "scripted:elite"})
    aid = await store.create_attempt(
        challenge="off-by-one",
        agent="scripted:elite",
        format="sprint",
        run=run,
        budget=2,
        time_limit_s=900.0,
        workspace=Path("/w/x"),
    )
    assert re.fullmatch(r"a-[0-9a-f]{8}", aid)
    other = sqlite3.connect(store.path)  # another connection sees it: committed
    row = other.execute("SELECT run, budget, workspace, status FROM attempts WHERE id = ?", (aid,)).fetchone()
    assert row == (run, 2, "/w/x", "running")
    assert (await store.runs())[0]["args"] == {"agent": "scripted:elite"}
    assert await store.get_attempt("a-00000000") is None


async def test_unknown_attempt_field_is_a_clear_error(store):
    with pytest.raises(StoreError, match=r"attempt fields \['colour'\]: unknown"):
        await store.create_attempt(challenge="c", agent="a", format="sprint", colour="red")


async def test_list_attempts_newest_first_with_limit(tmp_path):
    stamps = iter(f"2026-11-29T10:00:0{i}.000000Z" for i in range(10))
    s = await Store.open(tmp_path / "g.db", wall=lambda: next(stamps))
    ids = [await s.create_attempt(challenge=f"c{i}", agent="a", format="sprint") for i in range(4)]
    assert [a["id"] for a in await s.list_attempts()] == ids[::-1]
    assert [a["id"] for a in await s.list_attempts(limit=2)] == ids[:1:-1]
    await s.close()


async def test_set_status_and_running_attempts(store):
    a = await store.create_attempt(challenge="c", agent="a", format="sprint")
    b = await store.create_attempt(challenge="c", agent="b", format="sprint")
    await store.set_status(a, "interrupted", "arena crashed")
    assert [r["id"] for r in await store.running_attempts()] == [b]
    got = await store.get_attempt(a)
    assert (got["status"], got["reason"]) == ("interrupted", "arena crashed")
    assert got["finished_at"] is not None
    assert [r["id"] for r in await store.all_finished_attempts()] == [a]
    with pytest.raises(StoreError, match=r"status 'done': expected one of running, finished"):
        await store.set_status(a, "done")


# -- the event log ------------------------------------------------------------------------


async def test_events_round_trip_in_seq_order_with_filters(store):
    aid = await store.create_attempt(challenge="c", agent="a", format="sprint")
    bus = EventBus()
    bus.subscribe(store.append)
    bus.publish(aid, 0.0, "attempt.started", {"challenge": "c"})
    for i in range(5):
        bus.publish(aid, 1.0 + i, "file.changed", {"path": f"f{i}.py", "change": "modified"})
    bus.publish(aid, 9.5, "agent.output", {"stream": "stdout", "text": "héllo ✓"})
    await store.flush()
    got = await store.events(aid)
    assert [e.seq for e in got] == list(range(1, 8))
    assert got[-1] == Event(
        attempt=aid, seq=7, t=9.5, kind="agent.output", data={"stream": "stdout", "text": "héllo ✓"}
    )
    assert [e.seq for e in await store.events(aid, kinds=["agent.output", "attempt.started"])] == [1, 7]
    assert [e.seq for e in await store.events(aid, after_seq=5)] == [6, 7]
    assert await store.max_seq(aid) == 7
    assert await store.max_seq("a-ffffffff") == 0
    assert (await store.get_attempt(aid))["last_t"] == 9.5


async def test_flush_means_visible_to_another_process_connection(store):
    for i in range(1, 301):
        store.append(ev("a-0000000a", i, i * 0.1, "file.read", path="x.py"))
    await store.flush()
    other = sqlite3.connect(store.path)
    assert other.execute("SELECT count(*), max(seq) FROM events").fetchone() == (300, 300)


async def test_the_event_log_is_append_only(store):
    store.append(ev("a-0000000b", 1, 0.0, "file.read", path="x.py"))
    await store.flush()
    other = sqlite3.connect(store.path)
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        other.execute("UPDATE events SET kind = 'x'")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        other.execute("DELETE FROM events")


async def test_append_is_thread_safe(store):
    def produce(n: int) -> None:
        for i in range(1, 2001):
            store.append(ev(f"a-0000010{n}", i, i * 0.01, "command.run", command="pytest", exit_code=0))

    threads = [threading.Thread(target=produce, args=(n,)) for n in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    await store.flush()
    for n in range(4):
        assert [e.seq for e in await store.events(f"a-0000010{n}")] == list(range(1, 2001))


async def test_commit_listener_sees_committed_events(store):
    seen: list[int] = []
    store.on_commit(lambda evs: seen.extend(e.seq for e in evs))
    for i in range(1, 11):
        store.append(ev("a-0000000c", i, float(i), "file.read", path="x"))
    await store.flush()
    assert seen == list(range(1, 11))


async def test_append_after_close_is_refused(tmp_path):
    s = await Store.open(tmp_path / "g.db")
    await s.close()
    with pytest.raises(StoreError, match="store is closed"):
        s.append(ev("a-0000000d", 1, 0.0, "file.read"))


async def test_close_drains_the_queue(tmp_path):
    s = await Store.open(tmp_path / "g.db", interval=10.0)  # no timer commit before close
    for i in range(1, 101):
        s.append(ev("a-0000000e", i, float(i), "file.read", path="x"))
    await s.close()
    s = await Store.open(tmp_path / "g.db")
    assert await s.max_seq("a-0000000e") == 100
    await s.close()


async def test_non_json_values_are_stored_as_text(store):
    store.append(ev("a-0000000f", 1, 0.0, "file.read", path=Path("/w/src/x.py"), sizes={1: 2}))
    await store.flush()
    (got,) = await store.events("a-0000000f")
    assert got.data == {"path": "/w/src/x.py", "sizes": {"1": 2}}


async def test_the_writer_commits_on_its_own_without_a_flush(tmp_path):
    import asyncio

    for opts, n in (({"interval": 0.05}, 3), ({"interval": 60.0, "wake_at": 100}, 150)):
        s = await Store.open(tmp_path / f"own{n}.db", **opts)
        done = asyncio.Event()
        got: list[int] = []

        def seen(evs, n=n):
            got.extend(e.seq for e in evs)
            if len(got) >= n:
                done.set()

        s.on_commit(seen)
        for i in range(1, n + 1):
            s.append(ev("a-00000011", i, float(i), "file.read", path="x"))
        await asyncio.wait_for(done.wait(), 10)  # by the timer, or by the queue length
        assert got[:n] == list(range(1, n + 1))
        await s.close()


def test_both_encoders_store_the_same_json():
    import json

    from store import derive

    data = {
        "path": Path("/w/x.py"),
        "n": 3,
        "f": 0.5,
        "text": "héllo ✓",
        "nested": {"k": [1, None, True]},
        "keys": {7: "int key"},
    }
    assert (
        json.loads(derive.encode(data))
        == json.loads(derive._std_encode(data))
        == {
            "path": "/w/x.py",
            "n": 3,
            "f": 0.5,
            "text": "héllo ✓",
            "nested": {"k": [1, None, True]},
            "keys": {"7": "int key"},
        }
    )
    assert json.loads(derive.encode({"big": 2**70})) == {"big": 2**70}


async def test_a_new_store_appears_already_migrated_and_concurrent_opens_share_it(tmp_path):
    import asyncio

    path = tmp_path / "new.db"
    a, b = await asyncio.gather(Store.open(path), Store.open(path))
    aid = await a.create_attempt(challenge="c", agent="x", format="sprint")
    assert (await b.get_attempt(aid))["agent"] == "x"  # one file, both see it
    await a.close()
    await b.close()
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith("new.db-")) == ["new.db"]


async def test_a_store_under_a_file_is_a_clear_error(tmp_path):
    (tmp_path / "plain").write_text("x")
    with pytest.raises(StoreError, match=r"plain/sub/g\.db: cannot create the store's directory"):
        await Store.open(tmp_path / "plain" / "sub" / "g.db")


async def test_opening_a_current_store_takes_no_write_lock_but_migrating_one_does(tmp_path):
    path = tmp_path / "g.db"
    await (await Store.open(path)).close()
    blocker = sqlite3.connect(path, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")  # a running arena holds the write lock
    try:
        reader = await Store.open(path, busy_timeout_ms=50)  # e.g. `gauntlet attempts`
        assert await reader.list_attempts() == []
        await reader.close()
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    fresh = tmp_path / "fresh.db"  # an empty SQLite file: it needs migrating, and is locked
    blocker = sqlite3.connect(fresh, isolation_level=None)
    blocker.execute("PRAGMA journal_mode = WAL")
    blocker.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(StoreError, match=r"fresh\.db: cannot open the store \(database is locked\)"):
            await Store.open(fresh, busy_timeout_ms=50)
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    await (await Store.open(fresh)).close()  # unlocked: migrated
