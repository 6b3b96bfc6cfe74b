"""ONE watcher over the shared workspaces root, for every attempt at once.

A single polling scanner (no inotify: a user holds only 128 inotify instances by
default and watchers past that fail silently; a scanner has no such limit and no
per-attempt resources). Each attempt registers its workspace directory and an
``emit`` callback; ``scan()`` walks the registered workspaces, compares with what it
saw last, and calls ``emit(change)`` on the event loop for each file created,
modified or deleted, with the lines added and removed. The attempt stamps the
change with its own clock. ``run()`` scans every ``interval`` seconds of real time;
tests call ``await watcher.scan()`` directly.

Work per scan is bounded per workspace: at most ``MAX_FILES`` entries walked and
``MAX_BYTES`` of file content read. A scan past either bound is *partial*: the files
it did reach are compared as usual, none is reported deleted, files whose content did
not fit the byte budget are read by a later scan (entries past ``MAX_FILES`` in walk
order are not watched at all), the attempt's ``on_bound`` is told (it logs ONE ``bound.reached``), and
that workspace backs off: its periodic scans are skipped for 2, 4, ... up to
``MAX_BACKOFF`` intervals while it stays over, so 100,000 idle files cost a fraction of
a walk per ``interval``. An explicit ``scan(attempt)`` (before a submission) never
waits for the back-off.

Scans are also paced by what they cost: after a scan that took ``c`` CPU seconds, the
workspace's next ``ceil(c / (SCAN_SHARE * interval)) - 1`` periodic scans are skipped, so
each workspace's polling stays under ``SCAN_SHARE`` (2 %) of a core whatever its size. A
workspace of a few hundred files (well under a millisecond a scan) is scanned every
interval; one filled to its 20,000-inode quota (90-130 ms a scan on a 2-vCPU VM) every
6-8 s: its changes are reported that much later, none is lost, and the explicit
scan before a submission sees them all (benchmarks/bench_idle.py, docs/sandbox.md).
"""

from __future__ import annotations

import asyncio
import math
import os
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from arena import textdiff
from arena.text import path_fields  # names are bytes: kept losslessly
from arena.sandbox.fsutil import read_regular

SKIP_DIRS = frozenset({"__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".git"})


def editor_temp(name: str) -> bool:
    """Editor swap/backup/lock files (vim ``.swp``/``4913``, emacs ``~``/``.#*``): not edits."""
    return name.endswith((".swp", ".swo", ".swx", "~")) or name.startswith(".#") or name == "4913"


TEXT_CAP = 512 * 1024  # files above this are compared by size/mtime, lines not counted
MAX_FILES = 20_000  # entries walked per workspace per scan
MAX_BYTES = 32 << 20  # file content read per workspace per scan
MAX_BACKOFF = 64  # intervals skipped at most while a workspace stays over a bound
SCAN_SHARE = 0.02  # periodic scans of one workspace use at most this share of a core
OnBound = Callable[[str, float, str], None]  # (bound name, allowed, detail)
Emit = Callable[[dict[str, Any]], None]


@dataclass
class _Entry:
    mtime_ns: int
    size: int
    lines: list[str] | None  # None: binary, unreadable or too large


@dataclass
class _Watch:
    root: Path
    emit: Emit
    on_bound: OnBound | None = None
    seen: dict[str, _Entry] = field(default_factory=dict)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    backoff: int = 0  # intervals to skip between periodic scans (0: every interval)
    skip: int = 0  # periodic scans left to skip
    over: tuple[str, ...] = ()  # bounds the last scan reached
    cost: float = 0.0  # CPU seconds (its worker thread's) of the last scan


def _read_lines(path: str, size: int) -> list[str] | None:
    if size > TEXT_CAP:
        return None
    # lstat'd as a regular file, but opened O_NOFOLLOW|O_NONBLOCK and fstat'd again: a
    # FIFO, socket or device (or a link swapped in) is never opened for reading
    data = read_regular(path, TEXT_CAP)
    if data is None or len(data) > TEXT_CAP or b"\0" in data:
        return None
    return data.decode("utf-8", "replace").splitlines()


def line_delta(old: list[str] | None, new: list[str] | None) -> tuple[int, int]:
    """(lines added, lines removed) between two versions of a file, in bounded time
    (arena.textdiff: never the quadratic difflib)."""
    d = textdiff.line_delta(old, new)
    return d.added, d.removed


def _walk(root: Path, cap: int = MAX_FILES) -> tuple[dict[str, os.stat_result], bool]:
    """(entries, complete): at most ``cap`` entries (directories count too). Names relative
    to ``root`` are built from the parent's (``os.path.relpath`` per entry was most of a
    scan's time)."""
    out: dict[str, os.stat_result] = {}
    stack = [(str(root), "")]
    n = 0
    while stack:
        d, prefix = stack.pop()
        try:
            it = os.scandir(d)
        except OSError:
            continue
        with it:
            for e in it:
                n += 1
                if n > cap:
                    return out, False
                try:
                    if e.is_dir(follow_symlinks=False):
                        if e.name not in SKIP_DIRS:
                            stack.append((e.path, prefix + e.name + "/"))
                    elif not editor_temp(e.name):
                        out[prefix + e.name] = e.stat(follow_symlinks=False)
                except OSError:
                    continue
    return out, True


def _diff(w: _Watch) -> list[dict[str, Any]]:
    """Changes since the last scan of one workspace (runs in a worker thread)."""
    if not w.root.is_dir():
        return []
    t0 = time.thread_time()
    now, complete = _walk(w.root)
    over = [] if complete else ["watch_files"]
    budget = MAX_BYTES
    changes: list[dict[str, Any]] = []
    for rel, st in now.items():
        old = w.seen.get(rel)
        if old is not None and old.mtime_ns == st.st_mtime_ns and old.size == st.st_size:
            continue
        regular = stat.S_ISREG(st.st_mode)  # links, FIFOs, sockets, devices: never read
        cost = min(st.st_size, TEXT_CAP) if regular and st.st_size <= TEXT_CAP else 0
        if cost > budget:  # read by a later scan
            if "watch_bytes" not in over:
                over.append("watch_bytes")
            continue
        budget -= cost
        lines = _read_lines(os.path.join(w.root, rel), st.st_size) if regular else None
        if old is not None and old.lines is not None and lines is not None and old.lines == lines:
            w.seen[rel] = _Entry(st.st_mtime_ns, st.st_size, lines)
            continue  # touched, content unchanged
        added, removed = line_delta(old.lines if old else None, lines)
        changes.append(
            {
                **path_fields(rel),
                "change": "modified" if old else "created",
                "lines_added": added,
                "lines_removed": removed,
            }
        )
        w.seen[rel] = _Entry(st.st_mtime_ns, st.st_size, lines)
    w.over = tuple(over)
    if complete:  # entries not walked are not known to be gone
        for rel in [r for r in w.seen if r not in now]:
            old = w.seen.pop(rel)
            changes.append(
                {**path_fields(rel), "change": "deleted", "lines_added": 0, "lines_removed": len(old.lines or [])}
            )
    changes.sort(key=lambda c: c["path"])
    w.cost = time.thread_time() - t0
    return changes


def _baseline(w: _Watch) -> None:
    t0 = time.thread_time()
    now, complete = _walk(w.root)
    budget = MAX_BYTES
    over = [] if complete else ["watch_files"]
    for rel, st in now.items():
        regular = stat.S_ISREG(st.st_mode)
        cost = st.st_size if regular and st.st_size <= TEXT_CAP else 0
        if cost > budget:
            over.append("watch_bytes") if "watch_bytes" not in over else None
            lines = None  # not read: its first change counts lines as if new
        else:
            budget -= cost
            lines = _read_lines(os.path.join(w.root, rel), st.st_size) if regular else None
        w.seen[rel] = _Entry(st.st_mtime_ns, st.st_size, lines)
    w.over = tuple(over)
    w.cost = time.thread_time() - t0


class WorkspaceWatcher:
    def __init__(self, root: Path | None = None, interval: float = 0.25) -> None:
        self.root = Path(root) if root else None
        self.interval = interval
        self._watches: dict[str, _Watch] = {}

    def __len__(self) -> int:
        return len(self._watches)

    async def register(self, attempt: str, workspace: Path, emit: Emit, on_bound: OnBound | None = None) -> None:
        """Start watching ``workspace``; its current contents are the baseline.
        ``on_bound(name, allowed, detail)``: a scan of it reached a bound (see above)."""
        w = _Watch(Path(workspace), emit, on_bound)
        await asyncio.to_thread(_baseline, w)
        self._watches[attempt] = w
        self._after_scan(w)

    def pace(self, cost: float) -> int:
        """Periodic scans to skip after a scan that cost ``cost`` CPU seconds, so that a
        workspace's scans take at most ``SCAN_SHARE`` of a core (at most ``MAX_BACKOFF``)."""
        return max(0, min(MAX_BACKOFF, math.ceil(cost / (SCAN_SHARE * self.interval)) - 1))

    def _after_scan(self, w: _Watch) -> None:
        pace = self.pace(w.cost)
        if not w.over:
            w.backoff = 0
            w.skip = pace
            return
        w.backoff = min(MAX_BACKOFF, max(2, w.backoff * 2))
        w.skip = max(w.backoff, pace)
        if w.on_bound is not None:
            for name in w.over:
                allowed = MAX_FILES if name == "watch_files" else MAX_BYTES
                w.on_bound(
                    name,
                    allowed,
                    f"workspace watcher: {name.split('_')[1]} per scan; "
                    f"scans of this workspace back off to every {w.backoff} intervals",
                )

    def unregister(self, attempt: str) -> None:
        self._watches.pop(attempt, None)

    async def scan(self, attempt: str | None = None, periodic: bool = False) -> int:
        """Scan all workspaces (or one) now; emit and return the number of changes.
        Each workspace has its own lock, so one attempt's scan never waits for a scan
        of all the others."""
        targets = (
            [(attempt, self._watches[attempt])]
            if attempt in self._watches
            else []
            if attempt is not None
            else list(self._watches.items())
        )
        n = 0
        for a, w in targets:
            async with w.lock:
                if self._watches.get(a) is not w:
                    continue  # unregistered meanwhile
                if periodic and w.skip > 0:
                    w.skip -= 1
                    continue
                changes = await asyncio.to_thread(_diff, w)
                if self._watches.get(a) is not w:
                    continue
                self._after_scan(w)
                for change in changes:
                    n += 1
                    w.emit(change)
        return n

    async def run(self) -> None:
        """Scan forever every ``interval`` seconds (real time: this is I/O polling,
        not attempt logic; events are stamped with each attempt's own clock)."""
        while True:
            await self.scan(periodic=True)
            await asyncio.sleep(self.interval)
