"""The batched event writer: one task commits queued events in groups.

``append`` is synchronous, thread-safe and cheap: it encodes the event's data and puts
it on a ``collections.deque`` (atomic append under the GIL) and, once ``wake_at`` events
wait, wakes the writer. The writer commits at most every ``interval`` seconds, or as soon
as ``wake_at`` events are queued or someone awaits ``flush()``; while one group is
being committed the next one accumulates. A group is one request to the writer process
(``store.writer_link``: the whole transaction), and its events go in with one statement
step per up to 2,048 rows (``store.bulk.Bulk``), however many events it holds.

``flush()`` queues a marker behind everything appended so far and returns when the
writer has committed up to it. Failures are surfaced, never swallowed:
- an event cannot be stored (data no JSON can hold, refused at ``append``; a duplicate
  ``(attempt, seq)``, refused by the database: the group is bisected and every other
  event committed): it is kept in ``rejected`` and the next ``flush()`` raises
  ``StoreWriteError`` naming it;
- the database cannot write (locked past the busy timeout, disk full, I/O error): the
  transaction is rolled back, the group goes back to the head of the queue, ``error``
  holds the cause, pending ``flush()`` calls raise, and the writer retries; nothing
  committed before is touched (WAL + one transaction per group).

Groups commit with ``synchronous=NORMAL`` (durable against any crash of the process);
a group carrying a ``flush()`` marker commits with FULL, whose fsync of the WAL covers
every earlier commit too (see docs/store.md, "Durability choice").
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import threading
from collections import deque
from typing import Callable, TypedDict

import aiosqlite

from arena.events import Event
from store.derive import BULK, encode, plan
from store.errors import StoreError, StoreWriteError
from store.writer_link import WriterProcess

log = logging.getLogger(__name__)

# Errors that mean "this event cannot be stored", as opposed to "the database cannot
# write right now".
_REFUSALS = (sqlite3.IntegrityError, sqlite3.InterfaceError, ValueError, TypeError, OverflowError)

CommitListener = Callable[[list[Event]], None]


class _Marker:
    __slots__ = ("future",)

    def __init__(self, future: asyncio.Future) -> None:
        self.future = future


class _Stopped(Exception):
    def __init__(self, cause: BaseException, remaining: list, refused: list[Event]) -> None:
        super().__init__(str(cause))
        self.cause, self.remaining, self.refused = cause, remaining, refused


class WriterOpts(TypedDict, total=False):
    """``BatchWriter``'s options, as ``Store.open(**writer_opts)`` passes them on."""

    interval: float
    wake_at: int
    max_batch: int
    always_full: bool


class BatchWriter:
    def __init__(
        self,
        conn: aiosqlite.Connection,
        proc: WriterProcess,
        lock: asyncio.Lock,
        path: str,
        wall: Callable[[], str],
        *,
        interval: float = 0.05,
        wake_at: int = 2000,
        max_batch: int = 20000,
        always_full: bool = False,
    ) -> None:
        self._conn, self._proc, self._lock, self._path, self._wall = conn, proc, lock, path, wall
        self.interval, self.wake_at, self.max_batch = interval, wake_at, max_batch
        self._q: deque = deque()
        self._loop = asyncio.get_running_loop()
        self._loop_thread = threading.get_ident()
        self._wake = asyncio.Event()
        self._wake_sent = False
        self._urgent = False
        self._closing = False
        self._closed = False
        self._last = 0.0
        self._failures = 0
        # Durability: groups commit with synchronous=NORMAL (safe against any crash of the
        # process) unless ``always_full``; a group that carries a flush() marker commits
        # with FULL, whose fsync of the WAL also covers every earlier NORMAL commit.
        self._always_full = always_full
        self._full_now: bool | None = None  # the arena's own connection (direct writes)
        self._unsynced = False
        self._unreported: list[Event] = []
        self._listeners: list[CommitListener] = []
        self.rejected: list[Event] = []
        self.error: BaseException | None = None
        self.committed = 0
        self.groups = 0
        self._task = self._loop.create_task(self._run(), name=f"store-writer:{path}")

    # -- producers ------------------------------------------------------------------
    def append(self, event: Event) -> None:
        if self._closing:
            raise StoreError(f"{self._path}: store is closed; event {event.kind} not stored")
        try:
            # Encoded here, in the producer's turn, overlapping the commit in progress.
            row = (event.attempt, event.seq, event.t, event.kind, encode(event.data))
        except (ValueError, TypeError, RecursionError) as exc:
            log.error(
                "%s: event %s#%s %s refused: data is not JSON (%s)",
                self._path,
                event.attempt,
                event.seq,
                event.kind,
                exc,
            )
            self.rejected.append(event)
            self._unreported.append(event)
            return
        q = self._q
        q.append((row, event))
        if len(q) >= self.wake_at and not self._wake_sent:
            self._wake_sent = True
            if threading.get_ident() == self._loop_thread:
                self._wake.set()
            else:
                self._loop.call_soon_threadsafe(self._wake.set)

    @property
    def pending(self) -> int:
        """Events appended and not yet committed (markers excluded, roughly)."""
        return len(self._q)

    def on_commit(self, fn: CommitListener) -> None:
        """Call ``fn(events)`` in the event loop after each group is committed."""
        self._listeners.append(fn)

    async def flush(self) -> None:
        if self._task.done():
            raise StoreError(f"{self._path}: store writer is not running (store closed)")
        fut = self._loop.create_future()
        self._q.append(_Marker(fut))
        self._urgent = True
        self._wake.set()
        await fut

    async def close(self) -> None:
        """Commit everything queued, then stop. Raises if some of it could not be."""
        if self._closed:
            return
        self._closing = True
        self._wake.set()
        await self._task
        self._closed = True
        left = [item for item in self._q if not isinstance(item, _Marker)]
        if left:
            raise StoreWriteError(f"{self._path}: {len(left)} events could not be committed before close: {self.error}")

    # -- the writer task ------------------------------------------------------------
    async def _run(self) -> None:
        loop, q = self._loop, self._q
        while True:
            if not q and self._closing:
                return
            if not (self._closing or self._urgent):
                if self._failures:  # back off: 0.1 s, 0.2 s ... 1 s between retries
                    delay = self._last + min(1.0, self.interval * 2**self._failures) - loop.time()
                elif len(q) >= self.wake_at:
                    delay = 0.0
                else:
                    delay = self._last + self.interval - loop.time()
                if delay > 0:
                    self._wake.clear()
                    try:
                        await asyncio.wait_for(self._wake.wait(), delay)
                    except TimeoutError:
                        pass
            self._last = loop.time()
            self._wake_sent = False
            self._urgent = False
            batch: list[tuple[tuple, Event]] = []
            markers: list[asyncio.Future] = []
            for _ in range(min(len(q), self.max_batch)):
                item = q.popleft()
                if type(item) is _Marker:
                    markers.append(item.future)
                else:
                    batch.append(item)
            failure: BaseException | None = None
            refused: list[Event] = []
            try:
                if batch:
                    refused = await self._commit(batch, durable=bool(markers))
                    self.error, self._failures = None, 0
                elif markers and self._unsynced:
                    await self._sync_point()
            except _Stopped as stop:
                refused, failure = stop.refused, stop.cause
                q.extendleft(reversed(stop.remaining))
                self._failed(failure, len(stop.remaining))
            except Exception as exc:  # never let the writer die silently
                q.extendleft(reversed(batch))
                failure = exc
                self._failed(exc, len(batch))
            if refused:
                self.rejected.extend(refused)
                self._unreported.extend(refused)
            self._settle(markers, failure)
            if failure is not None and self._closing:
                return  # close() reports what is left

    def _failed(self, exc: BaseException, kept: int) -> None:
        if self._failures == 0 or str(exc) != str(self.error):
            log.error("%s: store write failed, %d events kept for retry: %s", self._path, kept, exc)
        self.error = exc
        self._failures += 1

    def _settle(self, markers: list[asyncio.Future], failure: BaseException | None) -> None:
        if not markers:
            return
        exc: StoreWriteError | None = None
        if failure is not None:
            exc = StoreWriteError(f"{self._path}: events not committed: {failure}")
        elif self._unreported:
            bad = self._unreported
            self._unreported = []
            names = ", ".join(f"{e.attempt}#{e.seq} {e.kind}" for e in bad[:5])
            exc = StoreWriteError(
                f"{self._path}: the database refused {len(bad)} event(s) ({names}"
                f"{', ...' if len(bad) > 5 else ''}); every other event is committed",
                rejected=bad,
            )
        for fut in markers:
            if not fut.done():
                if exc is None:
                    fut.set_result(None)
                else:
                    fut.set_exception(exc)

    async def _commit(self, batch: list[tuple[tuple, Event]], durable: bool) -> list[Event]:
        """Commit ``batch`` in order; bisect around events the database refuses."""
        refused: list[Event] = []
        stack = [batch]
        while stack:
            part = stack.pop()
            try:
                await self._transaction(part, durable)
            except _REFUSALS as exc:
                if len(part) == 1:
                    ev = part[0][1]
                    log.error("%s: event %s#%s %s refused: %s", self._path, ev.attempt, ev.seq, ev.kind, exc)
                    refused.append(ev)
                    continue
                mid = len(part) // 2
                stack.append(part[mid:])
                stack.append(part[:mid])
            except Exception as exc:
                remaining = part + [e for p in reversed(stack) for e in p]
                raise _Stopped(exc, remaining, refused) from exc
            else:
                self.committed += len(part)
                self.groups += 1
                for fn in self._listeners:
                    try:
                        fn([ev for _, ev in part])
                    except Exception:
                        log.exception("store commit listener failed")
        return refused

    async def use_sync(self, full: bool) -> None:
        """Set the arena connection's synchronous mode for its next commit (lock held)."""
        full = full or self._always_full
        if full != self._full_now:
            await self._conn.execute(f"PRAGMA synchronous = {'FULL' if full else 'NORMAL'}")
            self._full_now = full

    def committed_one(self, full: bool | None = None) -> None:
        """After a COMMIT: a FULL one made everything so far durable, a NORMAL one did not."""
        self._unsynced = not (self._full_now if full is None else full)

    async def _sync_point(self) -> None:
        """A flush with nothing new to commit, after NORMAL commits: one tiny FULL commit
        makes everything before it durable (its fsync covers the whole WAL)."""
        async with self._lock:
            await self._proc.sync(self._wall())
            self.committed_one(True)

    async def _transaction(self, items: list[tuple[tuple, Event]], durable: bool) -> None:
        # The derived rows are planned here; the transaction runs in the writer process
        # (store.writer_link): no database work competes with the event loop's GIL.
        steps = [(sql, rows, sql in BULK) for sql, rows in plan(items, self._wall())]
        full = durable or self._always_full
        async with self._lock:
            await self._proc.transaction(steps, full)
            self.committed_one(full)
