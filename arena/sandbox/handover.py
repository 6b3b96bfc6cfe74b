"""A sandbox made in a worker thread reaches its caller or is removed, never lost between.

``await asyncio.to_thread(make)`` loses what ``make`` builds when the awaiting task is
cancelled first: the thread runs on, and the container it starts (registered, labelled,
running) has no owner until the process exits. When the loop ends right after the
cancellation (a test's end, an app quitting) the done-callbacks that could close it never
run. (Stop 32's CI found one container of the pytest process left by an earlier test at
the teardown of 60 sandbox tests; this is the way to leave one that was found and
reproduced here: tests/test_sandbox_cleanup.py.)

``made_in_thread(make)`` hands over under a lock: a thread that finishes after its caller
gave up closes what it made itself, in the thread, whether or not the loop still runs;
a sandbox the thread handed over in the instant before the caller gave up is closed by
the caller on its way out.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Callable, TypeVar

T = TypeVar("T")


class _Abandoned(Exception):
    """What a thread returns to nobody: its caller was cancelled."""


class _Handover:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.abandoned = False
        self.made: object | None = None


def _close(sb: object) -> None:
    close = getattr(sb, "_close_sync", None)
    if close is not None:
        try:
            close()
        except Exception:  # noqa: BLE001 — best effort for what nobody will use
            pass


async def made_in_thread(make: Callable[[], T]) -> T:
    """``make()`` in a worker thread; its result, or nothing left behind if we are
    cancelled first (see the module docstring)."""
    h = _Handover()

    def run() -> T:
        sb = make()
        with h.lock:
            if not h.abandoned:
                h.made = sb
                return sb
        _close(sb)  # the caller is gone: nobody else will
        raise _Abandoned

    try:
        return await asyncio.to_thread(run)
    except asyncio.CancelledError:
        with h.lock:
            h.abandoned = True
            handed, h.made = h.made, None
        if handed is not None:  # made and handed over just as we were cancelled
            _close(handed)
        raise
