"""WAL checkpoints off the writer's path.

SQLite's default is an automatic checkpoint run by the connection whose COMMIT makes the
WAL pass 1,000 pages: at 100,000 events/s that is a few times a second, each copying
megabytes back into the database inside the writer's commit (measured: a commit with a
checkpoint up to ~66 ms, ~6 ms without). Here a daemon thread with its own connection runs
``PRAGMA wal_checkpoint(PASSIVE)`` every ``interval`` seconds instead: PASSIVE never waits
for the writer nor blocks it, and once a checkpoint has caught up the writer starts the WAL
over. The writer keeps an automatic checkpoint as a safety net (``SAFETY_PAGES``), so the
WAL stays bounded even if this thread falls behind or dies.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from pathlib import Path

log = logging.getLogger(__name__)

SAFETY_PAGES = 16000  # the writer's own autocheckpoint (≈64 MB of WAL at 4 KiB pages)


class Checkpointer:
    def __init__(self, path: Path, interval: float = 0.2) -> None:
        self.path, self.interval = path, interval
        self.runs = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"wal-checkpoint:{path.name}", daemon=True)

    def start(self) -> "Checkpointer":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)

    def _run(self) -> None:
        try:
            conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            log.warning("%s: no checkpoint thread (%s); the writer checkpoints itself", self.path, exc)
            return
        try:
            conn.execute("PRAGMA busy_timeout = 0")
            while not self._stop.wait(self.interval):
                try:
                    self.once(conn)
                except sqlite3.Error as exc:  # busy, or the file went away: try again later
                    log.debug("%s: checkpoint skipped: %s", self.path, exc)
        finally:
            conn.close()

    def once(self, conn: sqlite3.Connection) -> tuple[int, int, int]:
        """One PASSIVE checkpoint: (busy, WAL frames, frames checkpointed)."""
        busy, frames, done = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        self.runs += 1
        return busy, frames, done
