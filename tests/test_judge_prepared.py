"""Judge runs in prepared sandboxes: a launcher waiting before the submission.

The hostile cases of the security suite (tests/security/hostile.py) run again through a
*warmed* judge on both backends, so each lands in a prepared local sandbox or a
pre-started container whose launcher is PID 1 and takes one request: the same
containment and the same verdicts as an exec'd run. Docker cases fail without an engine.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from arena.challenge import load_challenge
from arena.judge import Judge, take_snapshot
from arena.judge.run import coverage_pass
from arena.judge.run.runner import JudgeSpec
from arena.sandbox import get_backend, registry

sys.path.insert(0, str(Path(__file__).resolve().parent / "security"))
from hostile import CASES, assert_verdict, make_in_process, write_submission  # noqa: E402

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "calc"


@pytest.fixture(scope="module")
def calc():
    return load_challenge(FIXTURE)


def _mine_left() -> list[str]:
    root = registry.STATE_ROOT
    left = [d.name for d in root.glob(f"{os.getpid()}-*")] if root.is_dir() else []
    if f"{root}/{os.getpid()}-" in Path("/proc/self/mountinfo").read_text():
        left.append("a tmpfs mount")
    return left


def _prepared(judge: Judge, trace: bool = False):
    """The one prepared sandbox (local) or pooled launcher (Docker) of the timed runs, or
    (``trace``) of the coverage pass: keyed apart, with the tracer set up."""
    if judge.local is not None:
        (p,) = [p for key, p in judge.local.ready.items() if key[-1] is trace]
        return p
    (pool,) = [pool for key, pool in judge.pools.pools.items() if key[5] is trace]
    (sb,) = pool.ready
    assert sb.launcher
    return sb


# the cases judged in-process need the in-process copy of calc (tests/security/conftest.py)
ISOLATED = [c for c in CASES if not c.in_process]


def _ready(judge: Judge) -> list:
    if judge.local is not None:
        return list(judge.local.ready.values())
    return [sb for pool in judge.pools.pools.values() for sb in pool.ready]


@pytest.mark.alone  # hostile submissions (kill -1, fork bombs): failed once beside the other xdist worker
@pytest.mark.parametrize("backend", ["local", pytest.param("docker", marks=pytest.mark.docker)])
@pytest.mark.parametrize("case", ISOLATED, ids=[c.name for c in ISOLATED])
async def test_hostile_submission_in_a_prepared_sandbox(case, backend, calc, tmp_path):
    snap = take_snapshot(write_submission(tmp_path / "s", case.files), tmp_path / "snaps")
    work = tmp_path / "work"
    work.mkdir()
    judge = Judge(get_backend(backend), pool_size=1, work_root=work)
    try:
        await judge.warm(calc, [1])
        prepared, traced = _prepared(judge), _prepared(judge, trace=True)
        result = await judge.run(calc, snap, submission=1, phases=[1])
        assert prepared not in _ready(judge)  # taken, never handed out again
        if coverage_pass.wanted(JudgeSpec.from_challenge(calc, [1]), result):  # so was the pass's
            assert traced not in _ready(judge)
    finally:
        await judge.aclose()
    assert_verdict(case, result)
    assert list(work.iterdir()) == [], "a run directory was left behind"
    assert not os.path.lexists("/tmp/GHOSTILE-left")


async def test_prepared_sandboxes_serve_one_run_each_and_leave_nothing(calc, tmp_path):
    snap = take_snapshot(FIXTURE / "solution", tmp_path / "snaps")
    judge = Judge(get_backend("local"), coverage_pass=False, pool_size=1)
    seen = []
    try:
        r0 = await judge.run(calc, snap, submission=1, phases=[1])  # not warmed: cold exec
        assert not judge.local.ready and not judge.local.pending
        await judge.warm(calc, [1])
        for n in (2, 3):
            (p,) = judge.local.ready.values()
            seen.append(p)
            r = await judge.run(calc, snap, submission=n, phases=[1])
            assert r.infra_error is None and all(t.outcome == "passed" for t in r.tests)
            assert r.coverage == r0.coverage and [t.id for t in r.tests] == [t.id for t in r0.tests]
            await judge.drain()
            assert not p.run_dir.exists() and not p.alive()  # closed after the verdict
            await judge.warm(calc, [1])  # (a warmed key is refilled after each run anyway)
        assert seen[0] is not seen[1]
    finally:
        await judge.aclose()
    assert _mine_left() == []


@pytest.mark.parametrize("isolation", ["process", "in_process"])
async def test_the_coverage_pass_takes_its_own_prepared_sandbox(calc, isolation, tmp_path):
    """Warmed, a judge keeps a second sandbox prepared for the coverage pass (its fork
    server has the tracer set up); the coverage it measures is the cold pass's, line for
    line, and the pass never takes the timed runs' sandbox."""
    ch = calc
    if isolation == "in_process":
        shutil.copytree(FIXTURE, tmp_path / "calc")
        make_in_process(tmp_path / "calc")
        ch = load_challenge(tmp_path / "calc")
        assert ch.manifest.judge.isolation == "in_process"
    snap = take_snapshot(FIXTURE / "solution", tmp_path / "snaps")
    cold = Judge(get_backend("local"), pool_size=1, prestart=0)
    warm = Judge(get_backend("local"), pool_size=1)
    try:
        r0 = await cold.run(ch, snap, submission=1, phases=[1])
        await warm.warm(ch, [1])
        timed, traced = _prepared(warm), _prepared(warm, trace=True)
        r = await warm.run(ch, snap, submission=1, phases=[1])
        assert timed not in _ready(warm) and traced not in _ready(warm)  # each served one run
        await warm.drain()
        assert not timed.alive() and not traced.alive()
        assert not timed.run_dir.exists() and not traced.run_dir.exists()
    finally:
        await cold.aclose()
        await warm.aclose()
    assert r0.coverage is not None and r0.coverage.line_percent
    assert r.coverage == r0.coverage
    assert [(t.id, t.outcome) for t in r.tests] == [(t.id, t.outcome) for t in r0.tests]
    assert _mine_left() == []
