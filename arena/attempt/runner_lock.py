"""Which process is a live arena runner: a lock the kernel drops when the process ends.

An attempt's ``attempt.started`` / ``attempt.resumed`` event records ``runner_pid``.
Another gauntlet process sharing the store must not resume or close an attempt whose
runner still lives. Guessing that from ``/proc/<pid>/cmdline`` fails both ways: an
embedding (a pytest-xdist worker, a notebook) runs attempts under a command line without
"gauntlet" in it, and a recycled pid can belong to any process. So a runner holds an
exclusive ``flock`` on ``<RUNNERS>/<pid>.lock`` for as long as it lives (``hold()``,
taken before its pid is recorded); ``is_live(pid)`` tries the lock: held means live,
free means that runner is gone (its pid may have been reused), no file means a runner
of an older version (the caller falls back to the command line). The file descriptor
is close-on-exec, so programs the runner starts do not keep the lock. Files of dead
runners are removed by the next ``hold()``; a runner re-checks that the file it locked
is still the one at its path (the classic lock-file pattern), so a sweep never leaves
a live runner without a file.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path

from arena.sandbox.registry import STATE_ROOT

RUNNERS = Path(os.environ.get("GAUNTLET_RUNNER_LOCKS") or STATE_ROOT.parent / "gauntlet-runners")
_held: dict[int, int] = {}  # pid -> fd (a forked child takes its own)


def _path(pid: int) -> Path:
    return RUNNERS / f"{pid}.lock"


def _same_file(fd: int, path: Path) -> bool:
    try:
        a, b = os.fstat(fd), os.stat(path, follow_symlinks=False)
    except OSError:
        return False
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def hold() -> None:
    """Mark this process a live runner until it ends (idempotent)."""
    pid = os.getpid()
    if pid in _held:
        return
    RUNNERS.mkdir(parents=True, exist_ok=True)
    path = _path(pid)
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o644)
        fcntl.flock(fd, fcntl.LOCK_EX)  # waits only for a sweep or a check in progress
        if _same_file(fd, path):
            break
        os.close(fd)  # swept between open and lock: take the new file
    _held[pid] = fd
    _sweep(pid)


def held_pid() -> int:
    """This process's pid, once it holds its runner lock (what ``runner_pid`` records)."""
    hold()
    return os.getpid()


def _sweep(mine: int) -> None:
    with contextlib.suppress(OSError):
        for p in RUNNERS.glob("*.lock"):
            if p.name == f"{mine}.lock":
                continue
            try:
                fd = os.open(p, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
            except OSError:
                continue
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue  # a live runner's
            try:
                if _same_file(fd, p):
                    p.unlink()
            except OSError:
                pass
            finally:
                os.close(fd)


def is_live(pid: int) -> bool | None:
    """True: ``pid`` is a live runner; False: it was one and has ended; None: it never
    took a lock (an older version's runner, or not a runner)."""
    try:
        fd = os.open(_path(pid), os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return None
    finally:
        os.close(fd)
    return False
