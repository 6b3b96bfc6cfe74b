"""Nothing left behind: a crashed run is cleaned by cleanup_stale(), SIGTERM closes all,
and cleanup never touches the live sandboxes of another running arena."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest

from arena.sandbox import Limits, cleanup_stale
from sandbox_common import BACKENDS, backend, leftovers, ws  # noqa: F401

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
