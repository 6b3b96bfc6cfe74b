"""Whether an attempt's runner still lives is the runner's own lock, not its command line
(arena/attempt/runner_lock.py): an embedding's worker is seen live, a recycled pid is not."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from arena.attempt import recover, runner_lock

ROOT = Path(__file__).resolve().parent.parent
# A runner under a command line with none of the words the old check looked for (as a
# pytest-xdist worker's, or a notebook kernel's): the module name is built at run time.
EMBEDDED = (
    "import importlib, sys; m = importlib.import_module('ar' + 'ena.attempt.runner_lock'); "
    "m.hold(); print(m.held_pid(), flush=True); sys.stdin.read()"
)


@pytest.fixture
def locks(tmp_path, monkeypatch):
    d = tmp_path / "runners"
    monkeypatch.setattr(runner_lock, "RUNNERS", d)
    return d


def _state(pid: int) -> recover.ResumeState:
    return recover.ResumeState(attempt="a1", started={}, elapsed_s=1.0, last_seq=3, runner_pid=pid)


def _runner(locks: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", EMBEDDED],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        cwd=ROOT,
        env={**os.environ, "GAUNTLET_RUNNER_LOCKS": str(locks)},
    )


def test_a_live_runner_is_seen_whatever_its_command_line(locks):
    proc = _runner(locks)
    try:
        assert proc.stdout is not None
        assert int(proc.stdout.readline()) == proc.pid
        cmdline = Path(f"/proc/{proc.pid}/cmdline").read_bytes()
        assert not any(w in cmdline for w in (b"gauntlet", b"arena", b"pytest"))  # the old check: "not live"
        assert runner_lock.is_live(proc.pid) is True
        assert recover.owned_by_live_runner(_state(proc.pid)) is True
    finally:
        proc.kill()
        proc.wait()
    # dead (however it died: SIGKILL here): the kernel dropped the lock
    assert runner_lock.is_live(proc.pid) is False
    assert recover.owned_by_live_runner(_state(proc.pid)) is False


def test_a_recycled_pid_is_not_taken_for_the_runner(locks):
    """The runner died, its pid now belongs to a process whose command line says
    "gauntlet": the runner's lock file, free, says it is gone."""
    impostor = subprocess.Popen(["gauntlet-arena-pytest", "600"], executable="/bin/sleep")
    try:
        for _ in range(100_000):  # until its exec shows (a moment after Popen returns)
            if Path(f"/proc/{impostor.pid}/cmdline").read_bytes().startswith(b"gauntlet-arena-pytest"):
                break
        else:
            raise AssertionError("the impostor's command line never showed")
        locks.mkdir()
        (locks / f"{impostor.pid}.lock").touch()  # what the dead runner left
        assert recover.owned_by_live_runner(_state(impostor.pid)) is False
        (locks / f"{impostor.pid}.lock").unlink()  # no lock file at all: an older runner,
        assert recover.owned_by_live_runner(_state(impostor.pid)) is True  # judged by its command line
    finally:
        impostor.kill()
        impostor.wait()


def test_a_new_runner_removes_the_files_of_dead_ones_only(locks):
    live = _runner(locks)
    try:
        assert live.stdout is not None
        live.stdout.readline()
        for pid in (999_999_991, 999_999_992):
            (locks / f"{pid}.lock").touch()  # runners that died
        second = _runner(locks)
        try:
            assert second.stdout is not None
            second.stdout.readline()
            assert sorted(p.name for p in locks.iterdir()) == sorted([f"{live.pid}.lock", f"{second.pid}.lock"])
            assert runner_lock.is_live(live.pid) and runner_lock.is_live(second.pid)
        finally:
            second.kill()
            second.wait()
    finally:
        live.kill()
        live.wait()
