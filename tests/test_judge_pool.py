"""The judge's pools of pre-started Docker sandboxes and its content-addressed judge-side dirs.

Docker cases are marked ``docker`` and fail (not skip) without an engine or image. Runs
are real judge runs; the only wrapper is a spy on ``pool.acquire`` recording which
sandbox each run got (it calls the real one).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import stat
from pathlib import Path

import pytest

from arena.challenge import load_challenge
from arena.judge import Judge, JudgeSpec, take_snapshot
from arena.judge.run.tests_cache import judge_dir
from arena.sandbox import get_backend, registry
from arena.sandbox.image import SANDBOX_UID

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "calc"


def _ours() -> list:
    import docker

    client = docker.from_env(timeout=30)
    return client.containers.list(all=True, filters={"label": f"gauntlet.owner={os.getpid()}"})


def _mine_left() -> list[str]:
    left = [d.name for d in registry.STATE_ROOT.glob(f"{os.getpid()}-*")] if registry.STATE_ROOT.is_dir() else []
    mounts = Path("/proc/self/mountinfo").read_text()
    if f"{registry.STATE_ROOT}/{os.getpid()}-" in mounts:
        left.append("a tmpfs mount")
    left += [s for s in registry.live_ids() if s.startswith(f"{os.getpid()}-")]
    return left


def _spy(judge: Judge, got: list):
    """Record the sandbox each run acquires (real acquire underneath)."""
    make = judge.pools.pool

    def pool(*a, **k):
        p = make(*a, **k)
        if not getattr(p, "_spied", False):
            real = p.acquire

            async def acquire(*aa, **kk):
                sb = await real(*aa, **kk)
                got.append(sb)
                return sb

            p.acquire, p._spied = acquire, True
        return p

    judge.pools.pool = pool


@pytest.fixture
def calc():
    return load_challenge(FIXTURE)


@pytest.fixture
def snap(tmp_path):
    return take_snapshot(FIXTURE / "solution", tmp_path / "snaps")


# -- content-addressed judge-side directories (no Docker) ------------------------------


def test_judge_dir_is_content_addressed(tmp_path):
    tests = tmp_path / "tests"
    shutil.copytree(FIXTURE / "tests", tests)
    os.symlink("test_calc_static.py", tests / "static" / "alias.py")
    dirs = {1: {s: [tests / s] for s in ("static", "hidden", "adversarial")}}
    a, args = judge_dir(dirs, tmp_path / "cache")
    b, _ = judge_dir(dirs, tmp_path / "cache")
    assert a == b and args == [f"/judge/tests/1/{s}" for s in ("static", "hidden", "adversarial")]
    assert (a / "config" / "run.py").is_file() and (a / "config" / "pytest.ini").is_file()
    assert os.readlink(a / "tests/1/static/alias.py") == "test_calc_static.py"  # a link, kept
    for p in a.rglob("*"):
        if not p.is_symlink():
            assert stat.S_IMODE(p.stat().st_mode) == (0o755 if p.is_dir() else 0o644), p
    assert judge_dir({1: {"static": [tests / "static"]}}, tmp_path / "cache")[0] != a  # other phases/suites
    (tests / "hidden" / "test_calc_hidden.py").write_text("def test_x():\n    assert True\n")
    c, _ = judge_dir(dirs, tmp_path / "cache")
    assert c != a and "test_x" in (c / "tests/1/hidden/test_calc_hidden.py").read_text()
    assert "test_x" not in (a / "tests/1/hidden/test_calc_hidden.py").read_text()  # never stale
    assert not [p for p in (tmp_path / "cache").iterdir() if p.name.startswith(".build-")]


def test_judge_dir_names_a_missing_test_dir(tmp_path):
    with pytest.raises(FileNotFoundError, match="vanished"):
        judge_dir({1: {"static": [tmp_path / "vanished"]}}, tmp_path / "cache")


# -- the pool (Docker) -----------------------------------------------------------------


@pytest.mark.docker
async def test_pooled_runs_take_prestarted_sandboxes_once_and_leave_nothing(calc, snap):
    judge = Judge(get_backend("docker"), coverage_pass=False, pool_size=1, prestart=1)
    got: list = []
    _spy(judge, got)
    try:
        await judge.warm(calc, [1])
        (pool,) = judge.pools.pools.values()
        ready = {sb.container.id for sb in pool.ready}
        assert len(ready) == 1
        results = []
        for n in (1, 2):
            results.append(await judge.run(calc, snap, submission=n, phases=[1]))
            assert judge.last_phases["sandbox"] < 0.2  # an acquire, not a create
            await judge.warm(calc, [1])  # the pool refills after each run
        assert all(r.infra_error is None and r.tests and all(t.outcome == "passed" for t in r.tests) for r in results)
        used = [sb.container.id for sb in got]
        assert used[0] in ready and len(set(used)) == 2  # pre-started, never reused
        await judge.drain()  # the closes the verdicts did not wait for
        live = {c.id for c in _ours()}
        assert not (set(used) & live), "a used sandbox was not removed"
        assert live == {sb.container.id for sb in pool.ready}  # only the refilled one is left
        assert all(sb.closed for sb in got)
    finally:
        await judge.aclose()
    assert _ours() == [] and _mine_left() == []


@pytest.mark.docker
async def test_the_verdict_does_not_wait_for_the_removal(calc, snap):
    judge = Judge(get_backend("docker"), coverage_pass=False, pool_size=1, prestart=0)  # cold: a container per run
    got: list = []
    _spy(judge, got)
    try:
        r = await judge.run(calc, snap, submission=1, phases=[1])
        assert r.infra_error is None and all(t.outcome == "passed" for t in r.tests)
        assert judge.pools.closing, "the removal should still be pending when the verdict returns"
        assert not got[0].closed or got[0].container.id not in {c.id for c in _ours()}
        await judge.drain()
        assert got[0].closed and _ours() == []
    finally:
        await judge.aclose()
    assert _mine_left() == []


@pytest.mark.docker
async def test_pooled_sandbox_keeps_the_hardening(calc, snap):
    judge = Judge(get_backend("docker"), coverage_pass=False, pool_size=1, prestart=1)
    try:
        await judge.warm(calc, [1])
        (pool,) = judge.pools.pools.values()
        sb = pool.ready[0]
        sb.container.reload()
        hc, cfg = sb.container.attrs["HostConfig"], sb.container.attrs["Config"]
        assert hc["NetworkMode"] == "none" and hc["CapDrop"] == ["ALL"] and hc["ReadonlyRootfs"]
        assert "no-new-privileges" in hc["SecurityOpt"]
        # The main process is the trusted launcher as the sandbox user, PID 1 (no
        # docker-init), its output never logged on the host.
        assert not hc.get("Init") and hc["LogConfig"]["Type"] == "none"
        assert cfg["Cmd"][:3] == ["python3", "-I", "-B"] and sb.launcher
        m = calc.manifest.sandbox
        assert hc["PidsLimit"] == int(m.pids) and hc["Memory"] == hc["MemorySwap"] == int(m.memory_mb) << 20
        assert hc["NanoCpus"] == int(float(m.cpus) * 1e9) and cfg["User"] == f"{SANDBOX_UID}:{SANDBOX_UID}"
        mounts = {x["Destination"]: x for x in sb.container.attrs["Mounts"]}
        assert mounts["/workspace"]["RW"] is False and mounts["/judge"]["RW"] is False
        assert mounts["/judge-out"]["RW"] is True
        assert f" {sb.scratch_dir} " in Path("/proc/self/mountinfo").read_text()  # a host tmpfs
        r = await sb.exec(
            ["sh", "-c", "id -u; touch /judge/x 2>&1; touch /workspace/x 2>&1; grep NoNewPrivs /proc/self/status"],
            timeout=30,
        )
        out = r.stdout.decode()
        assert out.splitlines()[0] == str(SANDBOX_UID)
        assert out.count("Read-only file system") == 2 and "NoNewPrivs:\t1" in out
        r = await sb.exec(["ls", "-A", "/tmp", "/judge-out"], timeout=30)
        # the launcher's protocol files only (progress.jsonl: the plugin opens it at import)
        assert r.exit_code == 0 and r.stdout.split() == [
            b"/judge-out:",
            b".done",
            b".ready",
            b".request",
            b"progress.jsonl",
            b"/tmp:",
        ]
    finally:
        await judge.aclose()
    assert _ours() == [] and _mine_left() == []


@pytest.mark.docker
async def test_a_launcher_container_serves_one_request(calc, snap):
    from arena.sandbox.base import SandboxError

    judge = Judge(get_backend("docker"), coverage_pass=False, pool_size=1, prestart=1)
    got: list = []
    _spy(judge, got)
    try:
        await judge.warm(calc, [1])
        (pool,) = judge.pools.pools.values()
        pool.refill = lambda: None  # keep the used one: look at it before it is removed
        judge.pools.close_later = lambda sb: None
        r = await judge.run(calc, snap, submission=1, phases=[1])
        assert r.infra_error is None and all(t.outcome == "passed" for t in r.tests)
        (sb,) = got
        out = sb.scratch_dir
        names = sorted(x.name for x in out.iterdir())
        assert ".request" not in names and ".done" not in names  # unlinked before the run
        assert {".stdout", ".stderr", "report.xml"} <= set(names)
        with pytest.raises(SandboxError):
            await sb.launch(["-q"], timeout=5)  # no second request
        # the launcher exited right after its status (the run's exit code: all passed)
        assert (await asyncio.to_thread(sb.api.wait, sb.container.id, timeout=10))["StatusCode"] == 0
        await sb.close()
    finally:
        await judge.aclose()
    assert _ours() == [] and _mine_left() == []


@pytest.mark.docker
async def test_pools_are_keyed_by_tests_in_play_and_bounded(calc, snap, tmp_path):
    judge = Judge(get_backend("docker"), coverage_pass=False, pool_size=1, prestart=1, max_pools=1)
    try:
        await judge.warm(calc, [1])
        (first,) = judge.pools.pools.values()
        await judge.warm(calc, [1])
        assert list(judge.pools.pools.values()) == [first]  # same challenge + phases: same pool
        spec = JudgeSpec.from_challenge(calc, [1])
        spec.test_dirs = {1: {"static": spec.test_dirs[1]["static"]}}  # other tests in play
        r = await judge.run(spec, snap, submission=1)
        assert r.infra_error is None and {t.suite for t in r.tests} == {"static"}
        assert first not in judge.pools.pools.values() and first.closed  # evicted: at most 1 pool
        await judge.drain()
        (second,) = judge.pools.pools.values()
        await second.start()  # its refill after the run, if still in flight
        assert {c.id for c in _ours()} == {sb.container.id for p in judge.pools.pools.values() for sb in p.ready}
    finally:
        await judge.aclose()
    assert _ours() == [] and _mine_left() == []


@pytest.mark.docker
async def test_concurrent_pooled_runs_get_their_own_sandboxes(calc, snap, tmp_path):
    ws = tmp_path / "starter"
    shutil.copytree(calc.starter_dir, ws)
    starter = take_snapshot(ws, tmp_path / "snaps")
    judge = Judge(get_backend("docker"), coverage_pass=False, pool_size=2, prestart=2)
    got: list = []
    _spy(judge, got)
    try:
        await judge.warm(calc, [1])
        rs = await asyncio.gather(
            *(judge.run(calc, s, submission=i, phases=[1]) for i, s in enumerate([snap, starter, snap, starter], 1))
        )
        assert all(r.infra_error is None for r in rs)
        assert [all(t.outcome == "passed" for t in r.tests) for r in rs] == [True, False, True, False]
        assert len({sb.container.id for sb in got}) == 4
    finally:
        await judge.aclose()
    assert _ours() == [] and _mine_left() == []


REFILL_THEN_WAIT = r"""
import asyncio, sys
sys.path.insert(0, sys.argv[1])
from arena.challenge import load_challenge
from arena.judge import Judge
from arena.sandbox import get_backend

async def main():
    judge = Judge(get_backend("docker"), coverage_pass=False, pool_size=2, prestart=2)
    asyncio.ensure_future(judge.warm(load_challenge(sys.argv[2]), [1]))
    await asyncio.sleep(0.05)  # the pool's threads are creating containers now
    print("GO", flush=True)
    await asyncio.sleep(60)

asyncio.run(main())
"""


@pytest.mark.docker
def test_sigterm_while_the_pool_refills_leaves_nothing_behind():
    """SIGTERM as the pool's background threads create containers: the exit waits for
    those creations and removes them with everything else (no container, dir or mount)."""
    import signal
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    proc = subprocess.Popen(
        [sys.executable, "-c", REFILL_THEN_WAIT, str(root), str(FIXTURE)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout.readline().strip() == "GO"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == -signal.SIGTERM
    finally:
        if proc.poll() is None:
            proc.kill()
    import docker

    client = docker.from_env(timeout=30)
    assert client.containers.list(all=True, filters={"label": f"gauntlet.owner={proc.pid}"}) == []
    assert f"{registry.STATE_ROOT}/{proc.pid}-" not in Path("/proc/self/mountinfo").read_text()
    assert [d.name for d in registry.STATE_ROOT.glob(f"{proc.pid}-*")] == []
