"""Issue 12 item 4: the judge does not charge its coverage tracer to the agent.

Real pytest runs in the real local sandbox. A CPU-bound suite is measured twice with a
generous limit: plain (the timed run as the judge now makes it) and traced (the
coverage pass, which is what the timed run used to be). The judge's timeout is then set
between the two: the traced run overruns it, the judge's verdict does not, and the
coverage still arrives from the untimed pass.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

from arena.judge import Judge, JudgeSpec, take_snapshot
from arena.judge.verdict.expected import collect_expected
from arena.results import JudgeResult
from arena.sandbox import get_backend
from arena.sandbox.base import Limits

WORK = """
def churn(n):
    total = 0
    for i in range(n):
        if i % 3 == 0:
            total += i
        elif i % 3 == 1:
            total -= 1
        else:
            total ^= i
    return total
"""
N = 3_000_000  # ~0.5 s a test plain in the local sandbox, ~2x that traced


def _challenge(root: Path, timeout: float) -> tuple[JudgeSpec, Path]:
    (root / "tests").mkdir(parents=True)
    (root / "ws").mkdir()
    (root / "ws" / "work.py").write_text(WORK)
    (root / "tests" / "test_work.py").write_text(
        "from work import churn\n\n"
        f"def test_churn_a():\n    assert isinstance(churn({N}), int)\n\n"
        f"def test_churn_b():\n    assert isinstance(churn({N}), int)\n"
    )
    spec = JudgeSpec(
        command="python -m pytest -q -p no:cacheprovider --junitxml={report} {tests}",
        timeout_s=timeout,
        categories={},
        image="gauntlet-base",
        limits=Limits(cpus=1, memory_mb=512, pids=128, wall_s=timeout, network=False),
        deliverables=[],
        starter=None,
        test_dirs={1: {"static": [root / "tests"]}},
    )
    return spec, root / "ws"


async def _timed(judge: Judge, spec: JudgeSpec, snap) -> tuple[float, JudgeResult]:
    expected, errors = collect_expected(spec.test_dirs)
    assert not errors
    r = JudgeResult(submission=1, snapshot_hash=snap.hash)
    t = time.monotonic()
    await judge._dispatch(spec, snap, expected, r)
    return time.monotonic() - t, r


async def test_a_suite_that_passes_plain_passes_under_a_timeout_the_traced_run_exceeds(tmp_path):
    spec, ws = _challenge(tmp_path / "c", 60.0)
    snap = take_snapshot(ws, tmp_path / "snaps")
    judge = Judge(get_backend("local"), pool_size=1, prestart=0)
    try:
        plain_s, plain = await _timed(judge, spec, snap)
        traced_s, traced = await _timed(judge, dataclasses.replace(spec, coverage=True), snap)
        assert [t.outcome for t in plain.tests] == ["passed", "passed"]
        assert traced.coverage is not None and traced.coverage.line_percent == 100.0
        assert plain.coverage is None  # the timed run is not traced
        assert traced_s > 1.2 * plain_s, (plain_s, traced_s)  # the premise: tracing costs
        timeout = round((plain_s + traced_s) / 2, 2)
        print(f"plain {plain_s:.2f} s, traced {traced_s:.2f} s, judge.timeout {timeout:g} s")

        # What the judge did before: the traced run is the timed run -> it times out.
        _, old = await _timed(judge, dataclasses.replace(spec, coverage=True, timeout_s=timeout), snap)
        assert old.timed_out, (plain_s, traced_s, timeout)

        # Now: the timed run is plain and passes; coverage comes from the untimed pass.
        now_spec = dataclasses.replace(spec, timeout_s=timeout, limits=dataclasses.replace(spec.limits, wall_s=timeout))
        r = await judge.run(now_spec, snap, submission=1)
        assert r.infra_error is None and not r.timed_out, r
        assert [t.outcome for t in r.tests] == ["passed", "passed"], (plain_s, traced_s, timeout)
        assert r.coverage is not None and r.coverage.line_percent == 100.0
        assert not any("Coverage not measured" in n for n in r.notices)
    finally:
        await judge.aclose()


async def test_a_coverage_pass_over_its_budget_gives_no_coverage_and_says_so(tmp_path, monkeypatch):
    from arena.judge.run import coverage_pass

    spec, ws = _challenge(tmp_path / "c", 60.0)
    snap = take_snapshot(ws, tmp_path / "snaps")
    monkeypatch.setattr(coverage_pass, "BUDGET_BASE_S", 0.0)
    monkeypatch.setattr(coverage_pass, "BUDGET_FACTOR", 0.3)  # the pass gets 0.3 x the timed run
    judge = Judge(get_backend("local"), pool_size=1, prestart=0)
    try:
        r = await judge.run(spec, snap, submission=1)
    finally:
        await judge.aclose()
    assert [t.outcome for t in r.tests] == ["passed", "passed"]  # the verdict is untouched
    assert r.coverage is None
    assert any(n.startswith("Coverage not measured: the traced run overran") for n in r.notices), r.notices


def test_the_budget_is_bounded_by_the_timeout_and_the_timed_run():
    from arena.judge.run import coverage_pass

    spec = JudgeSpec(
        command="pytest", timeout_s=60.0, categories={}, image="x", limits=Limits(), deliverables=[], starter=None
    )
    assert coverage_pass.budget(spec, 2.0) == 11.0  # 5 + 3 x 2
    assert coverage_pass.budget(spec, 100.0) == 180.0  # at most 3 x judge.timeout
