"""Read queries over the read-only connection. Rows come back as plain dicts (JSON
columns decoded), events as ``arena.events.Event``."""

from __future__ import annotations

import json
from typing import Any, Iterable

import aiosqlite

from arena.events import Event

_JSON_COLS = {"diff", "result", "document", "args"}


async def _rows(conn: aiosqlite.Connection, sql: str, params: tuple = ()) -> list[dict[str, Any]]:
    async with conn.execute(sql, params) as cur:
        names = [d[0] for d in cur.description]
        rows = await cur.fetchall()
    out = []
    for row in rows:
        item = dict(zip(names, row))
        for col in _JSON_COLS.intersection(item):
            if item[col] is not None:
                item[col] = json.loads(item[col])
        out.append(item)
    return out


async def list_attempts(
    conn: aiosqlite.Connection, limit: int | None, status: str | None, run: str | None = None
) -> list[dict]:
    """Newest first; ``status`` and ``run`` (the heat) filter when given."""
    conds, params = [], []
    if status:
        conds.append("status = ?")
        params.append(status)
    if run is not None:
        conds.append("run = ?")
        params.append(run)
    where = f"WHERE {' AND '.join(conds)}" if conds else ""
    lim = "" if limit is None else f"LIMIT {int(limit)}"
    sql = f"SELECT * FROM attempts {where} ORDER BY started_at DESC, rowid DESC {lim}"
    return await _rows(conn, sql, tuple(params))


async def get_attempt(conn: aiosqlite.Connection, attempt_id: str) -> dict | None:
    rows = await _rows(conn, "SELECT * FROM attempts WHERE id = ?", (attempt_id,))
    return rows[0] if rows else None


async def finished_attempts(conn: aiosqlite.Connection) -> list[dict]:
    return await _rows(conn, "SELECT * FROM attempts WHERE status != 'running' ORDER BY started_at, rowid")


async def events(
    conn: aiosqlite.Connection, attempt_id: str, kinds: Iterable[str] | None, after_seq: int
) -> list[Event]:
    sql = "SELECT seq, t, kind, data FROM events WHERE attempt = ? AND seq > ?"
    params: tuple = (attempt_id, after_seq)
    if kinds is not None:
        kinds = tuple(kinds)
        sql += f" AND kind IN ({', '.join('?' for _ in kinds)})"
        params += kinds
    async with conn.execute(sql + " ORDER BY seq", params) as cur:
        rows = await cur.fetchall()
    return [Event(attempt=attempt_id, seq=seq, t=t, kind=kind, data=json.loads(data)) for seq, t, kind, data in rows]


async def submissions(conn: aiosqlite.Connection, attempt_id: str) -> list[dict]:
    return await _rows(conn, "SELECT * FROM submissions WHERE attempt = ? ORDER BY n", (attempt_id,))


async def feedback(conn: aiosqlite.Connection, attempt_id: str) -> list[dict]:
    return await _rows(conn, "SELECT * FROM feedback WHERE attempt = ? ORDER BY n", (attempt_id,))


async def max_seq(conn: aiosqlite.Connection, attempt_id: str) -> int:
    async with conn.execute("SELECT max(seq) FROM events WHERE attempt = ?", (attempt_id,)) as cur:
        row = await cur.fetchone()
    assert row is not None  # an aggregate: always one row
    (value,) = row
    return value or 0


async def ratings(conn: aiosqlite.Connection, table: str) -> list[dict]:
    return await _rows(conn, f"SELECT * FROM {table} ORDER BY rating IS NULL, rating DESC")


async def get_run(conn: aiosqlite.Connection, run_id: str) -> dict | None:
    rows = await _rows(conn, "SELECT * FROM runs WHERE id = ?", (run_id,))
    return rows[0] if rows else None


async def runs(conn: aiosqlite.Connection, limit: int) -> list[dict]:
    return await _rows(conn, f"SELECT * FROM runs ORDER BY started_at DESC, rowid DESC LIMIT {int(limit)}")
