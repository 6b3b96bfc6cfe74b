"""Nothing outlives the arena (issue 11 item 7): ``kill -9`` of a real arena process
(``python -m gauntlet_tui run ... --headless``) while its judge container runs an endless
loop submission leaves no container and no mount of that process 5 s later (the reaper,
arena/sandbox/reaper.py), on both backends."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # attempt_kit

from arena.sandbox import cgroups, registry  # noqa: E402
from attempt_kit import make_package  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
BACKENDS = ["local", pytest.param("docker", marks=pytest.mark.docker)]


def _containers(pid: int) -> list:
    import docker

    client = docker.from_env(timeout=10)
    for _ in range(10):
        try:
            return client.containers.list(all=True, filters={"label": f"gauntlet.owner={pid}"})
        except docker.errors.NotFound:  # removed between the list and its inspect: the reaper at work
            continue
    return client.containers.list(all=True, filters={"label": f"gauntlet.owner={pid}"})


def _leftovers(pid: int, sandbox: str, store_dir: Path) -> list[str]:
    tag = f"/{pid}-"
    mounts = [
        ln.split()[4]
        for ln in Path("/proc/self/mountinfo").read_text().splitlines()
        if tag in ln.split()[4] or ln.split()[4].startswith(str(store_dir))
    ]
    out = [f"mount {m}" for m in mounts]
    out += [f"cgroup {g}" for g in cgroups.stale_groups() if registry.owner_of(g) == pid]
    if registry.STATE_ROOT.is_dir():
        out += [f"state {d}" for d in registry.STATE_ROOT.iterdir() if registry.owner_of(d.name) == pid]
    if sandbox == "docker":
        out += [f"container {c.name}" for c in _containers(pid)]
    return out


def _judging(pid: int, sandbox: str) -> bool:
    if sandbox == "docker":
        # A pooled judge container's PID 1 is the bootstrap (``run.py``, arena/judge/
        # in_sandbox/launcher.py) waiting for its request; once the request came it has forked the
        # run (and, under process isolation, the submission's worker): judging means a
        # container of this arena running more than its bootstrap, or an exec'd pytest.
        for c in _containers(pid):
            try:
                procs = [" ".join(p) for p in c.top().get("Processes") or []]
            except Exception:  # noqa: BLE001 - not running yet
                continue
            if any("pytest" in p for p in procs) or sum("run.py" in p for p in procs) >= 2:
                return True
        return False
    groups = [g for g in cgroups.stale_groups() if registry.owner_of(g) == pid]
    return any(cgroups.CgroupSet(g).pids() for g in groups)


@pytest.mark.parametrize("sandbox", BACKENDS)
def test_kill_9_of_the_arena_leaves_nothing_after_5_s(tmp_path, sandbox):
    pkg = make_package(tmp_path / "pkg", fmt="sprint", agents={"loop": [{"overlay": "agents/loop"}, "submit"]})
    (pkg / "agents" / "loop").mkdir()
    (pkg / "agents" / "loop" / "calc.py").write_text("while True:\n    pass\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("GAUNTLET_NO_REAPER", None)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gauntlet_tui",
            "run",
            str(pkg),
            "--agent",
            "scripted:loop",
            "--sandbox",
            sandbox,
            "--headless",
            "--store",
            str(tmp_path / "g.db"),
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 90
        while not _judging(proc.pid, sandbox):  # real I/O: the judge container starting
            assert proc.poll() is None, proc.stderr.read().decode()[-2000:]
            assert time.monotonic() < deadline, "the endless submission never ran"
            time.sleep(0.2)
        time.sleep(1.0)  # the loop is burning CPU in the judge's sandbox
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        killed = time.monotonic()
        while _leftovers(proc.pid, sandbox, tmp_path / "g.db.d") and time.monotonic() - killed < 5:
            time.sleep(0.2)
        assert _leftovers(proc.pid, sandbox, tmp_path / "g.db.d") == []
    finally:
        if proc.poll() is None:
            proc.kill()
        registry.cleanup_stale()
