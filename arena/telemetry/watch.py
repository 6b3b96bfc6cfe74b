"""ONE watcher over the shared workspaces root, for every attempt at once.

A single polling scanner (no inotify: a user holds only 128 inotify instances by
default and watchers past that fail silently; a scanner has no such limit and no
per-attempt resources). Each attempt registers its workspace directory and an
``emit`` callback; ``scan()`` walks the registered workspaces, compares with what it
saw last, and calls ``emit(change)`` on the event loop for each file created,
modified or deleted, with the lines added and removed. The attempt stamps the
change with its own clock. ``run()`` scans every ``interval`` seconds of real time;
tests call ``await watcher.scan()`` directly.
"""
from __future__ import annotations

import asyncio
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from arena import textdiff
from arena.text import path_fields  # names are bytes: kept losslessly
from arena.sandbox.fsutil import read_regular

SKIP_DIRS = frozenset({"__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".git"})
TEXT_CAP = 512 * 1024  # files above this are compared by size/mtime, lines not counted
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
    seen: dict[str, _Entry] = field(default_factory=dict)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


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


def _walk(root: Path) -> dict[str, os.stat_result]:
    out: dict[str, os.stat_result] = {}
    stack = [str(root)]
    while stack:
        d = stack.pop()
        try:
            it = os.scandir(d)
        except OSError:
            continue
        with it:
            for e in it:
                try:
                    if e.is_dir(follow_symlinks=False):
                        if e.name not in SKIP_DIRS:
                            stack.append(e.path)
                    else:
                        out[os.path.relpath(e.path, root)] = e.stat(follow_symlinks=False)
                except OSError:
                    continue
    return out


def _diff(w: _Watch) -> list[dict[str, Any]]:
    """Changes since the last scan of one workspace (runs in a worker thread)."""
    if not w.root.is_dir():
        return []
    now = _walk(w.root)
    changes: list[dict[str, Any]] = []
    for rel, st in now.items():
        old = w.seen.get(rel)
        if old is not None and old.mtime_ns == st.st_mtime_ns and old.size == st.st_size:
            continue
        regular = stat.S_ISREG(st.st_mode)  # links, FIFOs, sockets, devices: never read
        lines = _read_lines(os.path.join(w.root, rel), st.st_size) if regular else None
        if old is not None and old.lines is not None and lines is not None and old.lines == lines:
            w.seen[rel] = _Entry(st.st_mtime_ns, st.st_size, lines)
            continue  # touched, content unchanged
        added, removed = line_delta(old.lines if old else None, lines)
        changes.append({**path_fields(rel), "change": "modified" if old else "created",
                        "lines_added": added, "lines_removed": removed})
        w.seen[rel] = _Entry(st.st_mtime_ns, st.st_size, lines)
    for rel in [r for r in w.seen if r not in now]:
        old = w.seen.pop(rel)
        changes.append({**path_fields(rel), "change": "deleted", "lines_added": 0,
                        "lines_removed": len(old.lines or [])})
    changes.sort(key=lambda c: c["path"])
    return changes


def _baseline(w: _Watch) -> None:
    for rel, st in _walk(w.root).items():
        regular = stat.S_ISREG(st.st_mode)
        w.seen[rel] = _Entry(st.st_mtime_ns, st.st_size,
                             _read_lines(os.path.join(w.root, rel), st.st_size) if regular else None)


class WorkspaceWatcher:
    def __init__(self, root: Path | None = None, interval: float = 0.25) -> None:
        self.root = Path(root) if root else None
        self.interval = interval
        self._watches: dict[str, _Watch] = {}

    def __len__(self) -> int:
        return len(self._watches)

    async def register(self, attempt: str, workspace: Path, emit: Emit) -> None:
        """Start watching ``workspace``; its current contents are the baseline."""
        w = _Watch(Path(workspace), emit)
        await asyncio.to_thread(_baseline, w)
        self._watches[attempt] = w

    def unregister(self, attempt: str) -> None:
        self._watches.pop(attempt, None)

    async def scan(self, attempt: str | None = None) -> int:
        """Scan all workspaces (or one) now; emit and return the number of changes.
        Each workspace has its own lock, so one attempt's scan never waits for a scan
        of all the others."""
        targets = ([(attempt, self._watches[attempt])] if attempt in self._watches
                   else [] if attempt is not None else list(self._watches.items()))
        n = 0
        for a, w in targets:
            async with w.lock:
                if self._watches.get(a) is not w:
                    continue  # unregistered meanwhile
                changes = await asyncio.to_thread(_diff, w)
                if self._watches.get(a) is not w:
                    continue
                for change in changes:
                    n += 1
                    w.emit(change)
        return n

    async def run(self) -> None:
        """Scan forever every ``interval`` seconds (real time: this is I/O polling,
        not attempt logic; events are stamped with each attempt's own clock)."""
        while True:
            await self.scan()
            await asyncio.sleep(self.interval)
