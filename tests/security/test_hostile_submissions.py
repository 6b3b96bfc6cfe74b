"""Hostile submissions judged through the real judge on both backends (issue 3, item 5).

Each case must be contained (no infra error blamed on the agent, no process, container,
file or sandbox state left behind, the arena process still here) and earn exactly what
its honest code earns — or, where the submission patches the runner inside its own
process, the integrity finding must be raised.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from arena.judge import Judge, take_snapshot
from arena.sandbox import registry
from hostile import (
    ALL,
    CASES,
    HONEST,
    TMP_LEFTOVER_READER,
    TMP_LEFTOVER_WRITER,
    Link,
    assert_verdict,
    write_submission,
)

HOST_MARKERS = (
    "/etc/GHOSTILE-w",
    "/usr/GHOSTILE-w",
    "/GHOSTILE-w",
    "/root/GHOSTILE-w",
    "/tmp/GHOSTILE-left",
    "/tmp/GHOSTILE-huge",
    "/tmp/GHOSTILE-many",
)


def ghostile_processes() -> list[str]:
    found = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            cmd = (d / "cmdline").read_bytes()
        except OSError:
            continue
        if b"GHOSTILE" in cmd:
            found.append(f"{d.name}: {cmd[:120]!r}")
    return found


def our_containers() -> list[str]:
    try:
        import docker
    except ImportError:
        return []
    try:
        client = docker.from_env(timeout=10)
        cs = client.containers.list(all=True, filters={"label": f"gauntlet.owner={os.getpid()}"})
    except Exception:  # noqa: BLE001 — no engine: the docker backend itself fails the test
        return []
    return [c.name for c in cs]


async def judge_files(tmp_path: Path, backend, challenge, files: dict, name: str = "s"):
    ws = write_submission(tmp_path / name, files)
    snap = take_snapshot(ws, tmp_path / "snapshots")
    work = tmp_path / f"work-{name}"
    work.mkdir()
    judge = Judge(backend, pool_size=1, work_root=work)
    try:
        result = await judge.run(challenge, snap, submission=1, phases=[1])
    finally:
        await judge.aclose()  # the used sandbox is removed after the verdict: wait for it
    return result, snap, work


def assert_nothing_left_behind(work: Path, pid: int | None = None):
    pid = pid or os.getpid()
    assert list(work.iterdir()) == [], "judge run directory left behind"
    mounts = Path("/proc/self/mountinfo").read_text()
    assert str(work) not in mounts, "judge tmpfs left mounted"
    assert f"{registry.STATE_ROOT}/{pid}-" not in mounts, "a pool's scratch tmpfs left mounted"
    if registry.STATE_ROOT.is_dir():
        assert [d.name for d in registry.STATE_ROOT.iterdir() if d.name.startswith(f"{pid}-")] == [], (
            "sandbox state left behind"
        )
    assert [s for s in registry.live_ids() if s.startswith(f"{os.getpid()}-")] == []
    assert our_containers() == []
    deadline = 50
    while ghostile_processes() and deadline:  # a SIGKILLed tree may take a moment to be reaped
        deadline -= 1
        time.sleep(0.1)
    assert ghostile_processes() == []
    for marker in HOST_MARKERS:
        assert not os.path.lexists(marker), f"{marker} written on the host"


def outcome(result, tid):
    return next(t.outcome for t in result.tests if t.id == tid)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
async def test_hostile_submission_is_contained(case, backend, calc_challenge, tmp_path, request):
    if case.in_process:
        calc_challenge = request.getfixturevalue("calc_in_process")
    result, snap, work = await judge_files(tmp_path, backend, calc_challenge, case.files)
    assert result.isolation == ("in_process" if case.in_process else "process")
    assert_verdict(case, result)
    dump = result.model_dump_json()
    assert "EGRESS" not in dump and "DNS (" not in dump and "SHADOW" not in dump
    if case.no_judge_source:
        judge_src = (calc_challenge.root / "tests/hidden/test_calc_hidden.py").read_text()
        assert "assert add(10**12, 1) == 10**12 + 1" in judge_src
        assert "assert add(10**12, 1) == 10**12 + 1" not in dump
    for rel, content in case.files.items():
        if isinstance(content, Link):
            assert snap.entries[rel].kind == "link" and snap.entries[rel].target == str(content)
    assert_nothing_left_behind(work)


async def test_tmp_is_not_shared_between_runs(backend, calc_challenge, tmp_path):
    first, _, w1 = await judge_files(tmp_path, backend, calc_challenge, TMP_LEFTOVER_WRITER, "w")
    assert first.infra_error is None and all(t.outcome == "passed" for t in first.tests)
    second, _, w2 = await judge_files(tmp_path, backend, calc_challenge, TMP_LEFTOVER_READER, "r")
    assert second.infra_error is None
    assert {t.id for t in second.tests if t.outcome == "passed"} == ALL, second.tests
    assert_nothing_left_behind(w1)
    assert_nothing_left_behind(w2)


async def test_arena_keeps_judging_after_the_hostile_runs(backend, calc_challenge, tmp_path):
    result, _, work = await judge_files(tmp_path, backend, calc_challenge, HONEST)
    assert result.infra_error is None and result.integrity == []
    assert {t.id for t in result.tests if t.outcome == "passed"} == ALL
    assert result.deliverables == {"calc": 1.0, "NOTES.md": 1.0}
    assert_nothing_left_behind(work)


INTERRUPTED = r"""
import asyncio, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from arena.challenge import load_challenge
from arena.judge import Judge, take_snapshot
from arena.sandbox import get_backend

async def main():
    ch = load_challenge(Path(sys.argv[1]) / "tests/fixtures/calc")
    snap = take_snapshot(sys.argv[2], sys.argv[3] + "/snaps")
    await Judge(get_backend(sys.argv[4]), work_root=Path(sys.argv[3]) / "work").run(ch, snap, submission=1)

asyncio.run(main())
"""


@pytest.mark.parametrize("backend_name", ["local", pytest.param("docker", marks=pytest.mark.docker)])
def test_an_interrupted_arena_leaves_nothing_behind(backend_name, tmp_path):
    """SIGTERM to the arena mid-judge (a fork bomb running): sandbox, tmpfs and run dir go."""
    import signal
    import subprocess
    import sys

    from hostile import CASES

    bomb = next(c for c in CASES if c.name == "fork_bomb")
    ws = write_submission(tmp_path / "sub", bomb.files)
    (tmp_path / "work").mkdir()
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.Popen([sys.executable, "-c", INTERRUPTED, str(root), str(ws), str(tmp_path), backend_name])
    try:
        for _ in range(300):  # until the bomb is running
            if ghostile_processes():
                break
            time.sleep(0.05)
        assert ghostile_processes(), "the fork bomb never started"
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    for _ in range(100):
        if not ghostile_processes():
            break
        time.sleep(0.1)
    assert ghostile_processes() == []
    mounts = Path("/proc/self/mountinfo").read_text()
    assert str(tmp_path) not in mounts
    assert f"{registry.STATE_ROOT}/{proc.pid}-" not in mounts
    assert [d.name for d in registry.STATE_ROOT.iterdir() if d.name.startswith(f"{proc.pid}-")] == []
    assert list((tmp_path / "work").iterdir()) == []
    if backend_name == "docker":
        import docker

        client = docker.from_env()
        left = client.containers.list(all=True, filters={"label": f"gauntlet.owner={proc.pid}"})
        assert left == []


# alone (scripts/test.sh): assert_nothing_left_behind looks for hostile processes machine-wide
# (GHOSTILE in a command line): beside another xdist worker's hostile runs it saw theirs.
pytestmark = pytest.mark.alone
