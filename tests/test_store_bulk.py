"""The writer's multi-row INSERTs (``store.derive.Bulk``): exact round trips, order,
refusals and the number of statement steps a group costs."""

from __future__ import annotations

import random
import sqlite3
import struct

import pytest

from arena.events import Event
from store import Store, StoreWriteError
from store.derive import BULK, INSERT_EVENT, TOUCH_ATTEMPT, Bulk

AWKWARD = [
    "quotes \" and ' and `backticks`",
    'back\\slash \\" \\u0041 \\n (escapes as text)',
    "unicode: é ß 漢字 עברית 😀 \U0010ffff",
    "line\nbreaks\r\tand \x00 NUL \x01 \x1f \x7f",
    "separators \u2028 \u2029",
    "",
    " ",
    "null",
    "[1, 2]",
    '{"not": "an object"}',
]


def awkward_data(i: int) -> dict:
    rnd = random.Random(i)
    return {
        "text": AWKWARD[i % len(AWKWARD)],
        "nested": {
            "list": [1, -2.5, None, True, False, {"deep": [AWKWARD[(i + 1) % len(AWKWARD)]]}],
            "empty": {},
            "zero": 0,
            "tiny": 5e-324,
            "big": 1.7976931348623157e308,
        },
        "bigint": 2**70 + i,  # beyond 64 bits: encoded by the standard library
        "float": struct.unpack("<d", rnd.getrandbits(62).to_bytes(8, "little"))[0],
        'key with "quote"': i,
    }


def random_t(rnd: random.Random) -> float:
    while True:  # any finite double, every bit pattern equally likely
        t = struct.unpack("<d", rnd.getrandbits(64).to_bytes(8, "little"))[0]
        if t == t and abs(t) != float("inf"):
            return t


async def test_awkward_events_round_trip_exactly_in_append_order(tmp_path):
    """Quotes, escapes, unicode, NUL and control characters, nested JSON, 64+ bit ints and
    arbitrary doubles survive the multi-row INSERT, in one group spanning several steps."""
    store = await Store.open(tmp_path / "g.db")
    rnd = random.Random(7)
    attempts = ["a-00000001", "a-\"quoted'", "a-é😀", "a-\\back"]
    sent: list[Event] = []
    for i in range(5000):  # > 2 * Bulk.MAX_ROWS: full chunks and a padded remainder
        e = Event(
            attempt=attempts[i % 4],
            seq=i // 4 + 1,
            t=random_t(rnd),
            kind=f"kind.{AWKWARD[i % len(AWKWARD)][:6]}",
            data=awkward_data(i),
        )
        sent.append(e)
        store.append(e)
    await store.flush()
    for aid in attempts:
        got = await store.events(aid)
        want = [e for e in sent if e.attempt == aid]
        assert [(e.seq, e.t, e.kind, e.data) for e in got] == [(e.seq, e.t, e.kind, e.data) for e in want]
        assert all(type(e.t) is float for e in got)
    await store.close()
    conn = sqlite3.connect(tmp_path / "g.db")
    order = [(a, s) for a, s in conn.execute("SELECT attempt, seq FROM events ORDER BY rowid")]
    assert order == [(e.attempt, e.seq) for e in sent]  # rowid order is append order
    last_t = dict(conn.execute("SELECT id, last_t FROM attempts"))
    assert last_t == {a: max(e.t for e in sent if e.attempt == a) for a in attempts}


async def test_a_group_of_thousands_of_events_costs_a_few_statement_steps(tmp_path):
    store = await Store.open(tmp_path / "g.db")
    await store._proc.request("trace", True)  # the writer process's statements
    for i in range(1, 3001):
        store.append(Event(attempt=f"a-{i % 7:08x}", seq=i, t=float(i), kind="file.changed", data={"i": i}))
    await store.flush()
    steps: list[str] = await store._proc.request("trace", False)
    inserts = [s for s in steps if s.startswith("INSERT INTO events")]
    touches = [s for s in steps if s.startswith("INSERT INTO attempts")]
    assert len(inserts) == 2 and len(touches) == 1, (len(inserts), len(touches))  # not 3000 and 7
    assert len(await store.events("a-00000003")) == 429
    await store.close()


async def test_a_duplicate_deep_in_a_large_group_is_refused_alone(tmp_path):
    store = await Store.open(tmp_path / "g.db")
    aid = "a-0000dup1"
    for i in range(1, 4001):
        store.append(Event(attempt=aid, seq=i, t=float(i), kind="file.changed", data={"i": i}))
    store.append(Event(attempt=aid, seq=3999, t=1.0, kind="file.changed", data={"dup": True}))
    for i in range(4001, 4101):
        store.append(Event(attempt=aid, seq=i, t=float(i), kind="file.changed", data={"i": i}))
    with pytest.raises(StoreWriteError, match=rf"refused 1 event\(s\) \({aid}#3999 file.changed\)"):
        await store.flush()
    got = await store.events(aid)
    assert [e.seq for e in got] == list(range(1, 4101))
    assert got[3998].data == {"i": 3999}
    await store.close()


def test_bulk_statements_split_in_order_within_the_variable_limit():
    bulk = BULK[INSERT_EVENT]
    rows = [(f"a{i}", i, float(i), "k", "{}") for i in range(11)]
    steps = list(bulk.statements(rows, max_vars=5 * 4 + 1))  # at most 4 rows a step
    assert [params[-1] for _, params in steps] == [4, 4, 3]  # LIMIT: the real rows
    assert [sql.count("(?,?,?,?,?)") for sql, _ in steps] == [4, 4, 4]  # 3 padded to 4
    real = [p for _, params in steps for p in params[: params[-1] * 5]]
    assert real == [v for r in rows for v in r]
    assert list(bulk.statements([], 1000)) == []
    assert bulk.sql(4) is bulk.sql(4)  # the same text: prepared once, then cached


def test_bulk_rows_go_in_and_upsert_in_order():
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE attempts (id TEXT PRIMARY KEY, started_at TEXT, last_t REAL)")
    rows = [("x", "n", 1.0), ("y", "n", 5.0), ("x", "n", 3.0), ("x", "n", 2.0), ("z", "n", None)]
    for sql, params in BULK[TOUCH_ATTEMPT].statements(rows, 999):
        conn.execute(sql, params)
    assert conn.execute("SELECT id, last_t FROM attempts ORDER BY rowid").fetchall() == [
        ("x", 3.0),
        ("y", 5.0),
        ("z", None),
    ]


def test_only_plain_inserts_have_a_bulk_form():
    for sql in (
        "UPDATE attempts SET phase = ? WHERE id = ?",
        "INSERT INTO t (a, b) VALUES (?, (SELECT id FROM runs WHERE id = ?))",
        "INSERT INTO t (a) VALUES (?) ON CONFLICT (a) DO UPDATE SET a = ?",
    ):
        with pytest.raises(ValueError, match="not a plain INSERT"):
            Bulk(sql)
    with pytest.raises(ValueError, match="a row has not 5 values"):
        list(BULK[INSERT_EVENT].statements([("a", 1, 1.0, "k")], 999))
