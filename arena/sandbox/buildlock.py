"""One build per recipe at a time, across processes, and how long the last one took.

``locked_build(key, present, build)`` takes an exclusive ``fcntl.flock`` on
``<cache>/locks/<key>.lock``; whoever holds it checks ``present()`` first (another
process may have just built the thing) and only then runs ``build()``. The others block
on the lock and then find it present. A build's duration is kept in
``<cache>/build-times.json`` so a progress display can say "took 84 s last time".
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import threading
import time
from pathlib import Path
from typing import Callable, Iterator, TypeVar

from arena.sandbox.cache import cache_dir

T = TypeVar("T")
_TIMES = "build-times.json"
_times_lock = threading.Lock()  # threads of one process (flock is per open file)


def _cache() -> Path:
    return cache_dir()


def _safe(key: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", key)[:120] or "build"


@contextlib.contextmanager
def build_lock(key: str, on_wait: Callable[[str], None] | None = None) -> Iterator[None]:
    """Hold the cross-process lock of ``key`` (blocking). ``on_wait`` is told once when
    another process holds it."""
    d = _cache() / "locks"
    d.mkdir(parents=True, exist_ok=True)
    fd = os.open(d / f"{_safe(key)}.lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if on_wait is not None:
                on_wait(f"waiting for another build of {key} to finish")
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        with contextlib.suppress(OSError):
            fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def locked_build(
    key: str, present: Callable[[], T | None], build: Callable[[], T], *, on_wait: Callable[[str], None] | None = None
) -> tuple[T, bool]:
    """``(result, built)``: ``present()``'s answer if any (no lock needed), else the
    first ``present()`` after taking the lock, else ``build()`` under the lock (its
    duration recorded under ``key``)."""
    found = present()
    if found is not None:
        return found, False
    with build_lock(key, on_wait):
        found = present()
        if found is not None:
            return found, False
        t0 = time.monotonic()
        result = build()
        record_build_seconds(key, time.monotonic() - t0)
        return result, True


def _read_times() -> dict[str, float]:
    try:
        data = json.loads((_cache() / _TIMES).read_text())
        return {k: float(v) for k, v in data.items()} if isinstance(data, dict) else {}
    except (OSError, ValueError, TypeError):
        return {}


def last_build_seconds(key: str) -> float | None:
    """How long the last successful build of ``key`` took, if one was recorded."""
    return _read_times().get(key)


def record_build_seconds(key: str, seconds: float) -> None:
    with _times_lock, build_lock("_build-times"):
        times = _read_times()
        times[key] = round(seconds, 1)
        path = _cache() / _TIMES
        tmp = path.with_name(f".{_TIMES}.{os.getpid()}.{threading.get_ident()}")
        tmp.write_text(json.dumps(times, indent=1, sort_keys=True) + "\n")
        os.replace(tmp, path)
