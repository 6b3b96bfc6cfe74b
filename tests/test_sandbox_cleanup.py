"""Nothing left behind: a crashed run is cleaned by cleanup_stale(), SIGTERM closes all,
cleanup never touches the live sandboxes of another running arena, and a sandbox made after
its caller gave up is removed even when the loop ends at once (arena/sandbox/handover.py)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
import threading

import pytest

from arena.sandbox import Limits, cleanup_stale, get_backend
from sandbox_common import BACKENDS, SMALL, backend, left_since, leftovers, ws  # noqa: F401

CHILD = textwrap.dedent("""
    import asyncio, os, sys, time
    from pathlib import Path
    from arena.sandbox import get_backend, Limits
    async def main():
        be = get_backend(sys.argv[1])
        sb = await be.create(Path(sys.argv[2]), Limits(memory_mb=64, pids=16, tmpfs_mb=4))
        r = await sb.exec(["sh", "-c", "echo x > /tmp/x"])
        assert r.exit_code == 0
        print("ready", flush=True)
        if sys.argv[3] == "crash":
            os.kill(os.getpid(), 9)
        time.sleep(60)
    asyncio.run(main())
""")


def _child(kind: str, ws, how: str) -> subprocess.Popen:
    p = subprocess.Popen(
        [sys.executable, "-c", CHILD, kind, str(ws), how],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=os.path.dirname(os.path.dirname(__file__)),
    )
    line = p.stdout.readline()
    assert line.strip() == "ready", p.stderr.read() if p.poll() is not None else line
    return p


@pytest.mark.parametrize("kind", BACKENDS)
def test_crashed_run_leftovers_are_removed_by_cleanup_stale(kind, tmp_path):
    p = _child(kind, tmp_path, "crash")
    p.wait(timeout=30)
    assert p.returncode == -9
    left = leftovers(p.pid)
    assert left, "the crash should have left something to clean"
    cleanup_stale()
    assert leftovers(p.pid) == {}


@pytest.mark.parametrize("kind", BACKENDS)
def test_sigterm_closes_every_live_sandbox(kind, tmp_path):
    p = _child(kind, tmp_path, "wait")
    assert leftovers(p.pid)  # live while the arena runs
    p.send_signal(signal.SIGTERM)
    p.wait(timeout=30)
    assert p.returncode == -signal.SIGTERM
    assert leftovers(p.pid) == {}


async def test_cleanup_spares_live_sandboxes_of_running_arenas(backend, ws):
    sb = await backend.create(ws, Limits(memory_mb=64, pids=16, tmpfs_mb=4))
    try:
        # another process runs the cleanup while we are alive
        subprocess.run(
            [sys.executable, "-c", "from arena.sandbox import cleanup_stale; cleanup_stale()"],
            check=True,
            cwd=os.path.dirname(os.path.dirname(__file__)),
        )
        assert await sb.alive()
        r = await sb.exec(["true"])
        assert r.exit_code == 0
    finally:
        await sb.close()


async def _release_when_cancelled(release: threading.Event) -> None:
    try:
        await asyncio.Event().wait()
    finally:  # cancelled with the refill's task, at the loop's end
        release.set()


@pytest.mark.docker
@pytest.mark.parametrize("how", ["create", "cold acquire", "pool refill"])
def test_a_sandbox_made_after_its_caller_gave_up_is_removed(how, ws, monkeypatch):
    """The container is made only after the caller was cancelled, and the loop ends right
    after (a test's end, an app quitting): nothing may be left behind. Before handover.py
    the container of a cancelled ``create``, cold ``acquire`` or refill stayed until the
    process exited (all three cases failed on that code)."""
    be = get_backend("docker")
    before = leftovers()
    entered, release = threading.Event(), threading.Event()
    real = be.create_sync

    def slow(*a, **kw):  # fault injection: the engine is slow to make this container
        entered.set()
        release.wait(60)
        return real(*a, **kw)

    monkeypatch.setattr(be, "create_sync", slow)

    async def main():
        if how == "pool refill":  # a pool's background creation, its pool never closed
            be.pool(SMALL, size=1).refill()
            assert await asyncio.to_thread(entered.wait, 60)
            asyncio.ensure_future(_release_when_cancelled(release))
            return  # the loop ends: asyncio.run cancels every task, then waits for threads
        job = be.create(ws, SMALL) if how == "create" else be.pool(SMALL, size=0).acquire(ws)
        task = asyncio.ensure_future(job)
        assert await asyncio.to_thread(entered.wait, 60)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        release.set()  # the container is made now, after its caller gave up

    asyncio.run(main())
    assert left_since(before) == {}
