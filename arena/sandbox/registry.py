"""Leave nothing behind: live sandboxes closed on exit, leftovers of crashed runs removed.

Every sandbox registers a synchronous ``close`` here; ``atexit`` and SIGTERM/SIGHUP
handlers close them all. Each sandbox is tagged with its owner's pid (Docker label
``gauntlet.owner``, local state dir and cgroup names ``<pid>-<hex>``), so
``cleanup_stale()`` (cleanup.py) removes only what belongs to processes that are gone — never the
live sandboxes of another arena running on the same machine. A reaper process
(reaper.py) runs that cleanup the moment this process is gone, however it died.
"""

from __future__ import annotations

import atexit
import os
import signal
import threading
from typing import Callable

from arena.sandbox.cleanup import cleanup_local_state, cleanup_stale  # noqa: F401  # callers use registry.*
from arena.sandbox.owners import STATE_ROOT, is_stale, owner_of, owner_tag  # noqa: F401  # the same

_live: dict[str, Callable[[], None]] = {}
_lock = threading.Lock()
_installed = False
_signals = False


def register(sid: str, close_sync: Callable[[], None]) -> None:
    install()
    with _lock:
        _live[sid] = close_sync


def unregister(sid: str) -> None:
    with _lock:
        _live.pop(sid, None)


def live_ids() -> list[str]:
    with _lock:
        return list(_live)


_creating: dict[int, int] = {}  # thread id -> sandboxes it is creating right now
_closing = False


class creating:
    """Wrap the creation of a sandbox (``with registry.creating(): ...; register(...)``):
    ``close_all`` waits (up to 20 s) for creations in flight in other threads, so that a
    container a pool's background thread is creating as the arena is told to stop is
    removed too; while it closes, no creation starts (SandboxError)."""

    def __enter__(self):
        with _lock:
            if _closing:
                from arena.sandbox.base import SandboxError  # noqa: PLC0415

                raise SandboxError("the arena is shutting down: no new sandbox")
            tid = threading.get_ident()
            _creating[tid] = _creating.get(tid, 0) + 1
        return self

    def __exit__(self, *exc):
        with _lock:
            tid = threading.get_ident()
            _creating[tid] -= 1
            if not _creating[tid]:
                del _creating[tid]
        return False


def _others_creating() -> bool:
    with _lock:
        return any(t != threading.get_ident() for t in _creating)


def close_all() -> None:
    global _closing
    import time  # noqa: PLC0415

    with _lock:
        _closing = True
    try:
        deadline = time.monotonic() + 20
        while _others_creating() and time.monotonic() < deadline:
            time.sleep(0.02)
        with _lock:
            items = list(_live.items())
            _live.clear()
        for _sid, fn in items:
            try:
                fn()
            except Exception:  # noqa: BLE001 — best effort on the way out
                pass
    finally:
        with _lock:
            _closing = False


def _on_signal(signum, frame):  # noqa: ARG001
    close_all()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def install() -> None:
    """atexit + SIGTERM/SIGHUP handlers (signals only from the main thread; backends call
    this when constructed). An app that sets its own SIGTERM handler should call
    ``close_all()`` from it."""
    global _installed, _signals
    if not _installed:
        _installed = True
        atexit.register(close_all)
        from arena.sandbox import reaper  # noqa: PLC0415

        reaper.start()  # cleans up after us however we die (kill -9 included)
    if not _signals and threading.current_thread() is threading.main_thread():
        _signals = True
        for sig in (signal.SIGTERM, signal.SIGHUP):
            if signal.getsignal(sig) in (signal.SIG_DFL, None):
                signal.signal(sig, _on_signal)
