"""The store's writer process: commits the batched writer's groups, off the arena's GIL.

Run as ``python -E -s -S store/writer_proc.py DB BUSY_MS SAFETY_PAGES`` by
``store.writer_link.WriterProcess``; standard library only (it imports ``bulk.py`` from
its own directory): ~60 ms from spawn to ready. Frames on stdin and stdout are a
4-byte big-endian length and a pickle, one request then one reply:

- ``("tx", steps, full)``: one transaction, ``BEGIN IMMEDIATE`` .. ``COMMIT`` with
  ``synchronous`` FULL or NORMAL; ``steps`` are ``(sql, rows, bulk)``: with ``bulk`` the
  rows go in through multi-row INSERTs (``Bulk``), else ``executemany``.
  Replies ``("ok",)``, ``("refused", type, message)`` when the database refuses a row
  (the writer bisects the group), or ``("error", type, message)`` (it keeps the group
  and retries). Either way a failed transaction is rolled back.
- ``("sync", now)``: a tiny FULL commit (``store_meta.synced_at = now``) making every earlier
  NORMAL commit durable: its fsync covers the whole WAL.
- ``("sql", text)``: run one statement, reply its rows (tests inject faults with it).
- ``("trace", on)``: start or stop recording every statement; replies those recorded.
- ``("close",)``: close the connection, reply, exit.

End of input (the arena exited or was killed) ends the process after the transaction
in hand: nothing is ever half-committed (WAL). SIGINT is ignored and the process has a
session of its own, so a Ctrl-C meant for the arena cannot kill a commit.
"""

from __future__ import annotations

import os
import pickle
import signal
import sqlite3
import struct
import sys

if __package__:  # imported as store.writer_proc
    from store.bulk import Bulk
else:  # run as a script: bulk.py sits beside this file, on sys.path[0]
    from bulk import Bulk  # type: ignore[no-redef]  # the same class, imported as a script

_LEN = struct.Struct(">I")
REFUSALS = (sqlite3.IntegrityError, sqlite3.InterfaceError, ValueError, TypeError, OverflowError)


def read_frame(fd: int):
    head = _read_exact(fd, _LEN.size)
    if head is None:
        return None
    body = _read_exact(fd, _LEN.unpack(head)[0])
    return None if body is None else pickle.loads(body)


def _read_exact(fd: int, n: int) -> bytes | None:
    buf = bytearray()
    while len(buf) < n:
        chunk = os.read(fd, n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return bytes(buf)


def frame(obj) -> bytes:
    body = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    return _LEN.pack(len(body)) + body


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


class Committer:
    def __init__(self, path: str, busy_ms: int, safety_pages: int) -> None:
        # Room in the statement cache for the multi-row INSERTs (one text per power-of-two
        # size, see Bulk); a 64 MiB page cache keeps every attempt's index tail in memory
        # (measured: group commits ~30% faster at 100 attempts than with the 2 MiB default).
        self.conn = sqlite3.connect(path, isolation_level=None, cached_statements=256)
        for pragma in (
            f"PRAGMA busy_timeout = {busy_ms}",
            "PRAGMA foreign_keys = ON",
            f"PRAGMA wal_autocheckpoint = {safety_pages}",
            "PRAGMA cache_size = -65536",
        ):
            self.conn.execute(pragma)
        self.max_vars = self.conn.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER)
        self.full: bool | None = None
        self.bulk: dict[str, Bulk] = {}
        self.trace: list[str] | None = None

    def _sync_mode(self, full: bool) -> None:
        if full != self.full:
            self.conn.execute(f"PRAGMA synchronous = {'FULL' if full else 'NORMAL'}")
            self.full = full

    def transaction(self, steps, full: bool) -> None:
        conn = self.conn
        self._sync_mode(full)
        conn.execute("BEGIN IMMEDIATE")
        try:
            for sql, rows, bulk in steps:
                if not bulk:
                    conn.executemany(sql, rows)
                    continue
                writer = self.bulk.get(sql) or self.bulk.setdefault(sql, Bulk(sql))
                for text, params in writer.statements(rows, self.max_vars):
                    conn.execute(text, params)
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise

    def sync(self, now: str) -> None:
        self.transaction(
            [
                (
                    "INSERT INTO store_meta (key, value) VALUES ('synced_at', ?) "
                    "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    [(now,)],
                    False,
                )
            ],
            True,
        )

    def set_trace(self, on: bool) -> list[str]:
        seen, self.trace = self.trace or [], [] if on else None
        self.conn.set_trace_callback(self.trace.append if self.trace is not None else None)
        return seen

    def handle(self, msg) -> tuple:
        op = msg[0]
        try:
            if op == "tx":
                self.transaction(msg[1], msg[2])
                return ("ok",)
            if op == "sync":
                self.sync(msg[1])
                return ("ok",)
            if op == "sql":
                return ("ok", self.conn.execute(msg[1]).fetchall())
            if op == "trace":
                return ("ok", self.set_trace(msg[1]))
            return ("error", "ValueError", f"unknown request {op!r}")
        except REFUSALS as exc:
            return ("refused", type(exc).__name__, str(exc))
        except Exception as exc:
            return ("error", type(exc).__name__, str(exc))


def main(argv: list[str]) -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    path, busy_ms, safety_pages = argv[0], int(argv[1]), int(argv[2])
    fd_in, fd_out = sys.stdin.fileno(), sys.stdout.fileno()
    try:
        committer = Committer(path, busy_ms, safety_pages)
    except sqlite3.Error as exc:
        _write_all(fd_out, frame(("error", type(exc).__name__, str(exc))))
        return 1
    _write_all(fd_out, frame(("ready", os.getpid())))
    closing = False
    try:
        while True:
            msg = read_frame(fd_in)
            if msg is None:
                break
            if msg[0] == "close":
                closing = True
                break
            _write_all(fd_out, frame(committer.handle(msg)))
    except BrokenPipeError:
        pass  # the arena is gone; what was committed stays committed
    finally:
        committer.conn.close()
    if closing:
        _write_all(fd_out, frame(("ok",)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
