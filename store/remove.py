"""Removing attempts (``gauntlet attempts rm``): the statements of one transaction.

The event log is append-only: a trigger refuses deletes (store/schema.py). Removing an
attempt is its one exception: the trigger is dropped and re-created, from the text the
schema holds, inside the same transaction as the deletes, so no other connection ever sees
the log without it (SQLite's schema changes are transactional).
"""

from __future__ import annotations

from typing import Iterable

import aiosqlite

from store import reads

NO_DELETE = "events_append_only_delete"  # the trigger that keeps the event log append-only
CHUNK = 500  # ids per statement (well under SQLite's bound on parameters)


async def plan(conn: aiosqlite.Connection, attempt_ids: Iterable[str]) -> tuple[list[dict], list[tuple[str, tuple]]]:
    """(the rows of the attempts that exist, the statements that delete them)."""
    ids = list(dict.fromkeys(attempt_ids))
    rows = [row for aid in ids if (row := await reads.get_attempt(conn, aid)) is not None]
    if not rows:
        return [], []
    async with conn.execute("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?", (NO_DELETE,)) as cur:
        found = await cur.fetchone()
    statements: list[tuple[str, tuple]] = []
    if found is not None:
        statements.append((f"DROP TRIGGER {NO_DELETE}", ()))
    gone = [str(r["id"]) for r in rows]
    for i in range(0, len(gone), CHUNK):
        part = tuple(gone[i : i + CHUNK])
        marks = ", ".join("?" for _ in part)
        for table in ("events", "feedback", "submissions"):  # before their attempts (foreign keys)
            statements.append((f"DELETE FROM {table} WHERE attempt IN ({marks})", part))
        statements.append((f"DELETE FROM attempts WHERE id IN ({marks})", part))
    if found is not None:
        statements.append((str(found[0]), ()))
    return rows, statements
