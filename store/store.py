"""``Store``: the attempt database (aiosqlite, WAL, migrations, a batched writer).

Two aiosqlite connections, each with its own thread: the arena's writing connection
(migrations and the few direct writes) and a read-only connection for queries, which in
WAL mode only ever sees committed data and never blocks a writer. Telemetry groups
commit in the writer process (``store.writer_link``); one lock serialises its
transactions with the direct writes.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import sqlite3
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterable, Unpack

import aiosqlite

from arena.events import Event
from store import checkpoint, reads, remove
from store.derive import AGENT_SEEN, CHALLENGE_SEEN, STARTED_COLS, encode
from store.errors import StoreError, StoreWriteError
from store.schema import STATUSES, migrate, open_error
from store.writer import BatchWriter, CommitListener, WriterOpts
from store.writer_link import WriterProcess

BUSY_TIMEOUT_MS = 5000
# A value of an ``attempts`` column given to create_attempt/update_attempt (paths become text).
AttemptColumn = str | int | float | os.PathLike[str] | None


def utc_now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def new_attempt_id() -> str:
    return "a-" + secrets.token_hex(4)


def new_run_id() -> str:
    return "r-" + secrets.token_hex(4)


# What ``create_attempt``/``update_attempt`` may set: what ``attempt.started`` sets, and more.
_ATTEMPT_FIELDS = (*STARTED_COLS, "phase", "last_t")


class Store:
    """Open with ``await Store.open(path)``; close with ``await store.close()``."""

    def __init__(
        self,
        path: Path,
        wconn: aiosqlite.Connection,
        rconn: aiosqlite.Connection,
        proc: WriterProcess,
        wall: Callable[[], str],
        writer_opts: WriterOpts,
    ) -> None:
        self.path = path
        self._w, self._r, self._proc = wconn, rconn, proc
        self._wall = wall
        self._lock = asyncio.Lock()
        self._writer = BatchWriter(wconn, proc, self._lock, str(path), wall, **writer_opts)
        self.append = self._writer.append  # type: ignore[method-assign]  # the hot path: no extra call layer
        self.migrated_from: int = 0
        self._checkpointer: checkpoint.Checkpointer | None = None

    # -- opening and closing ----------------------------------------------------------
    @classmethod
    async def open(
        cls,
        path: str | os.PathLike,
        *,
        synchronous: str = "NORMAL",
        busy_timeout_ms: int = BUSY_TIMEOUT_MS,
        wall: Callable[[], str] = utc_now,
        **writer_opts: Unpack[WriterOpts],
    ) -> "Store":
        """Open (creating if needed) the store at ``path`` and bring its schema up to date.

        ``synchronous`` applies to telemetry groups: NORMAL (default) survives any crash
        of the process; FULL also fsyncs every group. Whatever it is, a group that a
        ``flush()`` waits for and every direct write commit with FULL, so what has been
        acknowledged survives a power cut as well. ``busy_timeout_ms``: how long a write
        waits for another process's lock before failing. ``writer_opts``: ``interval``,
        ``wake_at``, ``max_batch`` (see ``store.writer.BatchWriter``).
        """
        p = Path(path)
        if synchronous.upper() not in ("FULL", "NORMAL"):
            raise StoreError(f"synchronous={synchronous!r}: expected NORMAL or FULL")
        if p.is_dir():
            raise StoreError(f"{p}: is a directory, expected a store file (a SQLite database)")
        try:
            p.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"{p}: cannot create the store's directory ({exc.strerror})") from exc
        created = not p.exists() and await _create(p, busy_timeout_ms)
        _private(p)
        wconn = rconn = proc = None
        try:
            wconn = await _connect(p, isolation_level=None)
            # Checkpoints run in their own thread (store.checkpoint); this connection
            # keeps SQLite's automatic one only as a safety net.
            await _pragmas(wconn, p, busy_timeout_ms, f"PRAGMA wal_autocheckpoint = {checkpoint.SAFETY_PAGES}")
            found = await migrate(wconn, str(p))
            rconn = await _connect(p, isolation_level=None)
            await _pragmas(rconn, p, busy_timeout_ms, "PRAGMA query_only = ON")
            # Telemetry groups commit in a process of their own (store.writer_link).
            proc = WriterProcess(p, busy_timeout_ms, checkpoint.SAFETY_PAGES)  # started on first use
            writer_opts["always_full"] = synchronous.upper() == "FULL"
            store = cls(p, wconn, rconn, proc, wall, writer_opts)
        except BaseException:  # e.g. an unknown writer option: close what was opened
            if proc is not None:
                await proc.close()
            for c in (rconn, wconn):
                if c is not None:
                    await c.close()
            raise
        store.migrated_from = 0 if created else found
        store._checkpointer = checkpoint.Checkpointer(p).start()
        return store

    async def close(self) -> None:
        """Commit everything appended, then close the connections."""
        try:
            await self._writer.close()
        finally:
            if self._checkpointer is not None:
                self._checkpointer.stop()
            await self._proc.close()
            await self._r.close()
            await self._w.close()

    async def __aenter__(self) -> "Store":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def start_writer(self) -> None:
        """Start the writer process now rather than with the first telemetry group (whose
        events would wait ~60 ms for it). The arena calls this; readers need not."""
        await self._proc.running()

    # -- the event log ----------------------------------------------------------------
    def append(self, event: Event) -> None:
        """Queue an event (sync, thread-safe, never blocks). Use as a bus subscriber."""
        self._writer.append(event)

    async def flush(self) -> None:
        """Return once every event appended before this call is committed.

        Raises ``StoreWriteError`` if any of them could not be (see ``store.writer``).
        """
        await self._writer.flush()

    def on_commit(self, fn: CommitListener) -> None:
        self._writer.on_commit(fn)

    @property
    def writer_error(self) -> BaseException | None:
        """The writer's last transient failure, None once a group commits again."""
        return self._writer.error

    @property
    def rejected(self) -> list[Event]:
        """Events the database refused (duplicate (attempt, seq), unencodable data)."""
        return list(self._writer.rejected)

    @property
    def pending(self) -> int:
        return self._writer.pending

    # -- direct writes (committed before they return) -------------------------------
    async def _write(self, statements: Iterable[tuple[str, tuple]]) -> None:
        async with self._lock:
            await self._writer.use_sync(True)
            await self._w.execute("BEGIN IMMEDIATE")
            try:
                for sql, params in statements:
                    await self._w.execute(sql, params)
                await self._w.execute("COMMIT")
                self._writer.committed_one()
            except BaseException:
                if self._w.in_transaction:
                    await self._w.execute("ROLLBACK")
                raise

    async def create_run(self, kind: str, args: dict | None = None, *, run_id: str | None = None) -> str:
        rid = run_id or new_run_id()
        await self._write(
            [
                (
                    "INSERT INTO runs (id, kind, started_at, args) VALUES (?, ?, ?, ?)",
                    (rid, kind, self._wall(), encode(args or {})),
                )
            ]
        )
        return rid

    async def finish_run(self, run_id: str) -> None:
        await self._write([("UPDATE runs SET finished_at = ? WHERE id = ?", (self._wall(), run_id))])

    async def create_attempt(
        self, *, challenge: str, agent: str, format: str, attempt_id: str | None = None, **fields: AttemptColumn
    ) -> str:
        """Insert the attempt's row (status running) and commit it; return its id.

        ``fields``: run, title, category, weight_class, time_limit_s, budget, grace_s,
        time_scale, sandbox, workspace, agent_spec, challenge_path.
        """
        _check_fields(fields)
        aid = attempt_id or new_attempt_id()
        now = self._wall()
        cols = {"challenge": challenge, "agent": agent, "format": format, **fields}
        cols = {k: (str(v) if isinstance(v, os.PathLike) else v) for k, v in cols.items()}
        names = ", ".join(cols)
        marks = ", ".join("?" for _ in cols)
        await self._write(
            [
                (f"INSERT INTO attempts (id, started_at, {names}) VALUES (?, ?, {marks})", (aid, now, *cols.values())),
                (AGENT_SEEN, (agent, now)),
                (
                    CHALLENGE_SEEN,
                    (
                        challenge,
                        cols.get("title"),
                        format,
                        cols.get("weight_class"),
                        cols.get("category"),
                        cols.get("challenge_path"),
                        now,
                    ),
                ),
            ]
        )
        return aid

    async def update_attempt(self, attempt_id: str, **fields: AttemptColumn) -> None:
        """Set descriptive columns (e.g. ``workspace`` once it exists)."""
        _check_fields(fields)
        if not fields:
            return
        sets = ", ".join(f"{k} = ?" for k in fields)
        vals = tuple(str(v) if isinstance(v, os.PathLike) else v for v in fields.values())
        await self._write([(f"UPDATE attempts SET {sets} WHERE id = ?", (*vals, attempt_id))])

    async def set_status(self, attempt_id: str, status: str, reason: str | None = None) -> None:
        """Set an attempt's status directly (after flushing queued events, so a queued
        ``attempt.finished`` cannot overwrite it afterwards)."""
        if status not in STATUSES:
            raise StoreError(f"status {status!r}: expected one of {', '.join(STATUSES)}")
        try:
            await self.flush()
        except StoreWriteError as exc:
            if not exc.rejected:  # events still uncommitted: the order is not settled
                raise
            # else: a refused event (already logged, kept in ``rejected``); the rest is in
        finished = None if status == "running" else self._wall()
        await self._write(
            [
                (
                    "UPDATE attempts SET status = ?, reason = ?, finished_at = ? WHERE id = ?",
                    (status, reason, finished, attempt_id),
                )
            ]
        )

    async def set_rating(
        self, table: str, key: str, rating: float, *, games: int, weight_class: str | None = None
    ) -> None:
        """Record an Elo rating for an agent (``table="agents"``) or a challenge."""
        if table not in ("agents", "challenges"):
            raise StoreError(f"ratings table {table!r}: expected 'agents' or 'challenges'")
        col = "name" if table == "agents" else "id"
        now = self._wall()
        await self._write(
            [
                (f"INSERT INTO {table} ({col}, first_seen) VALUES (?, ?) ON CONFLICT ({col}) DO NOTHING", (key, now)),
                (
                    f"UPDATE {table} SET rating = ?, rated_games = ?, weight_class = coalesce(?, weight_class),"
                    f" rated_at = ? WHERE {col} = ?",
                    (rating, games, weight_class, now, key),
                ),
            ]
        )

    async def remove_attempts(self, attempt_ids: Iterable[str]) -> list[dict]:
        """Delete attempts from the store in one transaction (events, submissions, feedback,
        rows; see ``store.remove``); return the rows removed (unknown ids are skipped).
        Whether an attempt may go (not running) and its files beside the store are the
        caller's business (``arena.attempt.remove``)."""
        await self.flush()  # queued events of these attempts go in first, not after the delete
        rows, statements = await remove.plan(self._r, attempt_ids)
        if rows:
            await self._write(statements)
        return rows

    # -- queries (committed data only) ---------------------------------------------------
    async def list_attempts(
        self, limit: int | None = 50, *, status: str | None = None, heat: str | None = None
    ) -> list[dict]:
        """Newest first; ``heat``: only the attempts of that run (``attempts.run``)."""
        return await reads.list_attempts(self._r, limit, status, heat)

    async def get_attempt(self, attempt_id: str) -> dict | None:
        return await reads.get_attempt(self._r, attempt_id)

    async def running_attempts(self) -> list[dict]:
        """Attempts whose status is still ``running`` (after a crash: the ones to resume or close)."""
        return await reads.list_attempts(self._r, None, "running")

    async def all_finished_attempts(self) -> list[dict]:
        """Every attempt no longer running, oldest first (for ratings)."""
        return await reads.finished_attempts(self._r)

    async def events(self, attempt_id: str, kinds: Iterable[str] | None = None, *, after_seq: int = 0) -> list[Event]:
        return await reads.events(self._r, attempt_id, kinds, after_seq)

    async def submissions(self, attempt_id: str) -> list[dict]:
        return await reads.submissions(self._r, attempt_id)

    async def feedback(self, attempt_id: str) -> list[dict]:
        return await reads.feedback(self._r, attempt_id)

    async def max_seq(self, attempt_id: str) -> int:
        return await reads.max_seq(self._r, attempt_id)

    async def ratings(self, table: str = "agents") -> list[dict]:
        if table not in ("agents", "challenges"):
            raise StoreError(f"ratings table {table!r}: expected 'agents' or 'challenges'")
        return await reads.ratings(self._r, table)

    async def runs(self, limit: int = 50) -> list[dict]:
        return await reads.runs(self._r, limit)

    async def get_run(self, run_id: str) -> dict | None:
        """The ``runs`` row of a heat (a run's id is its heat id), None if unknown."""
        return await reads.get_run(self._r, run_id)


def _check_fields(fields: dict[str, Any]) -> None:
    unknown = sorted(set(fields) - set(_ATTEMPT_FIELDS))
    if unknown:
        raise StoreError(f"attempt fields {unknown}: unknown; expected some of {list(_ATTEMPT_FIELDS)}")


def _private(path: Path) -> None:
    """No other uid reads a store (a host agent runs as a pool uid: issue 36): the "other"
    permission bits of the file, its WAL and SHM (SQLite creates them with the file's mode)
    and its ``.d`` data directory are dropped; group bits are kept. Links are left alone."""
    for f in (path, *(path.with_name(path.name + x) for x in ("-wal", "-shm", ".d"))):
        try:
            mode = f.lstat().st_mode
            if mode & 0o007 and not os.path.islink(f):
                os.chmod(f, mode & 0o7770)
        except OSError:  # gone, or not ours to change
            continue


async def _create(path: Path, busy_ms: int) -> bool:
    """Build a new store beside ``path`` and link it into place only once migrated, so a
    store file is never seen without its schema (``os.link`` fails if another process
    created it first: then theirs is used)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.new")
    try:
        conn = await _connect(tmp, isolation_level=None)
        try:
            await _pragmas(conn, tmp, busy_ms)
            await migrate(conn, str(tmp))
        finally:
            await conn.close()  # the last connection: WAL checkpointed into the file
        try:
            os.link(tmp, path)
        except FileExistsError:
            return False
        except OSError:  # a filesystem without hard links
            if path.exists():
                return False
            os.replace(tmp, path)
        return True
    finally:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{tmp}{suffix}").unlink(missing_ok=True)


async def _connect(path: Path, *, isolation_level: str | None) -> aiosqlite.Connection:
    conn = aiosqlite.connect(path, isolation_level=isolation_level)
    # aiosqlite's worker thread is not a daemon: a program that dies of an exception
    # before closing the store would hang at exit. A daemon thread stopped at exit is,
    # for the database, the same as a crash, which WAL makes safe.
    thread = getattr(conn, "_thread", None)
    if thread is not None:
        thread.daemon = True
    try:
        return await conn
    except sqlite3.Error as exc:
        raise StoreError(f"{path}: cannot open store ({exc})") from exc


async def _pragmas(conn: aiosqlite.Connection, path: Path, busy_ms: int, *extra: str) -> None:
    try:
        await conn.execute(f"PRAGMA busy_timeout = {int(busy_ms)}")
        async with conn.execute("PRAGMA journal_mode = WAL") as cur:
            row = await cur.fetchone()
            assert row is not None  # PRAGMA journal_mode always answers
            mode = row[0]
        if mode != "wal":
            raise StoreError(f"{path}: cannot use write-ahead logging (journal mode stays {mode!r})")
        await conn.execute("PRAGMA foreign_keys = ON")
        for statement in extra:
            await conn.execute(statement)
    except sqlite3.DatabaseError as exc:
        raise open_error(str(path), exc) from exc
