"""The judge end to end: real pytest runs in real sandboxes (local and Docker).

Docker cases are marked ``docker`` and fail (not skip) without an engine or image.
Fault injection (a backend whose sandbox dies) wraps the real local backend.
"""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path

import pytest

from arena.challenge import bundled_challenges, load_challenge
from arena.judge import Judge, JudgeSpec, take_snapshot
from arena.sandbox import SandboxError, get_backend

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "calc"
BACKENDS = ["local", pytest.param("docker", marks=pytest.mark.docker)]


@pytest.fixture(params=BACKENDS)
def backend(request):
    return get_backend(request.param)


def _workspace(tmp_path: Path, *layers: Path, extra: dict | None = None) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir(parents=True)
    for layer in layers:
        shutil.copytree(layer, ws, dirs_exist_ok=True, symlinks=True)
    for rel, text in (extra or {}).items():
        (ws / rel).write_text(text)
    return ws


async def _judge(backend, challenge, ws: Path, tmp_path: Path, phases=(1,), pool_size=1):
    snap = take_snapshot(ws, tmp_path / "snaps")
    judge = Judge(backend, pool_size=pool_size)
    try:
        return await judge.run(challenge, snap, submission=1, phases=list(phases))
    finally:
        await judge.aclose()


def _all_phases(ch) -> list[int]:
    return [1] + [n for n in (2, 3, 4) if (ch.root / "phases" / str(n) / "tests").is_dir()]


@pytest.mark.parametrize("path", bundled_challenges(), ids=lambda p: p.name)
async def test_bundled_reference_is_green_and_starter_partly_red(path, backend, tmp_path):
    ch = load_challenge(path)
    phases = _all_phases(ch)
    ref = await _judge(
        backend, ch, _workspace(tmp_path / "ref", ch.starter_dir, ch.solution_dir), tmp_path / "ref", phases
    )
    assert ref.infra_error is None and ref.build.status == "success"
    assert ref.tests and all(t.outcome == "passed" for t in ref.tests), [
        (t.id, t.message) for t in ref.tests if t.outcome != "passed"
    ]
    assert {t.phase for t in ref.tests} == set(phases)
    assert ref.integrity == [], ref.integrity  # no false alarms on the reference solution
    assert all(v == 1.0 for v in ref.deliverables.values()), ref.deliverables
    if ch.manifest.format == "sprint":  # Sprint feedback never shows coverage: no coverage pass
        assert ref.coverage is None
    else:
        assert ref.coverage is not None and ref.coverage.line_percent > 50
    start = await _judge(backend, ch, _workspace(tmp_path / "st", ch.starter_dir), tmp_path / "st", phases)
    assert start.infra_error is None and start.integrity == [], start.integrity
    outcomes = {t.outcome for t in start.tests}
    assert "failed" in outcomes or "error" in outcomes or start.build.status == "failure"
    assert len(start.tests) == len(ref.tests)
    assert {t.id for t in start.tests} == {t.id for t in ref.tests}  # ids stable across submissions


async def test_phase_ids_and_categories(tmp_path):
    ch = load_challenge(next(p for p in bundled_challenges() if p.name == "task-store"))
    phases = _all_phases(ch)
    assert len(phases) > 1
    r = await _judge(get_backend("local"), ch, _workspace(tmp_path, ch.starter_dir, ch.solution_dir), tmp_path, phases)
    later = [t for t in r.tests if t.phase > 1]
    assert later and all(f"/phase{t.phase}/" in t.id for t in later)
    assert all("/phase" not in t.id for t in r.tests if t.phase == 1)
    if ch.manifest.judge.categories:
        assert any(t.category for t in r.tests)


async def test_syntax_error_is_a_build_failure(backend, tmp_path):
    ch = load_challenge(FIXTURE)
    r = await _judge(backend, ch, _workspace(tmp_path, ch.starter_dir, extra={"calc.py": "def add(a, b:\n"}), tmp_path)
    assert r.infra_error is None
    assert r.build.status == "failure"
    assert any("calc.py" in e or "SyntaxError" in e for e in r.build.errors), r.build.errors
    assert r.tests and all(t.outcome == "failed" for t in r.tests)
    assert all("did not build" in t.message for t in r.tests)
    assert r.deliverables["calc"] == 0.0
    assert r.lint.errors == 1


async def test_import_error_is_a_build_failure(tmp_path):
    ch = load_challenge(FIXTURE)
    r = await _judge(
        get_backend("local"),
        ch,
        _workspace(tmp_path, ch.starter_dir, extra={"calc.py": "def add(a, b):\n    return a + b\n"}),
        tmp_path,
    )
    assert r.build.status == "failure"
    assert any("ImportError" in e or "cannot import name" in e for e in r.build.errors), r.build.errors


async def test_starter_failures_carry_messages_and_categories(tmp_path):
    ch = load_challenge(FIXTURE)
    r = await _judge(get_backend("local"), ch, _workspace(tmp_path, ch.starter_dir), tmp_path)
    by = {t.id: t for t in r.tests}
    assert by["static/test_calc_static.py::test_sub"].outcome == "failed"
    assert "assert" in by["static/test_calc_static.py::test_sub"].message
    assert by["static/test_calc_static.py::test_mul"].message.startswith("NotImplementedError")
    assert by["static/test_calc_static.py::test_add_small"].category == "addition"
    assert by["adversarial/test_calc_adversarial.py::test_edge_add_floats[0.5-0.25-0.75]"].category == "edge_case"
    assert by["hidden/test_calc_hidden.py::test_sub_big"].suite == "hidden"
    assert r.deliverables == {"calc": 0.625, "NOTES.md": 0.0}  # 5 of 8: sub twice and mul fail


def _spec(command: str) -> JudgeSpec:
    ch = load_challenge(FIXTURE)
    spec = JudgeSpec.from_challenge(ch, [1])
    spec.command = command
    return spec


async def test_a_runner_that_cannot_start_is_an_infra_error(tmp_path):
    ws = _workspace(tmp_path, FIXTURE / "solution")
    r = await _judge(get_backend("local"), _spec("no-such-runner --junitxml={report} {tests}"), ws, tmp_path)
    assert r.infra_error and "127" in r.infra_error
    assert r.tests == []


async def test_a_runner_that_writes_no_report_is_never_a_pass(tmp_path):
    ws = _workspace(tmp_path, FIXTURE / "solution")
    r = await _judge(get_backend("local"), _spec("true {report} {tests}"), ws, tmp_path)
    assert r.infra_error is None
    assert r.build.status == "failure" and "no report" in r.build.errors[0]
    assert r.tests and not any(t.outcome == "passed" for t in r.tests)


async def test_other_runners_are_read_from_their_junit_report(tmp_path):
    xml = (
        '<testsuite><testcase classname="1.static.test_calc_static" name="test_add_small"/>'
        '<testcase classname="1.static.test_calc_static" name="test_sub"><failure message="nope"/></testcase>'
        "</testsuite>"
    )
    ws = _workspace(tmp_path, FIXTURE / "solution")
    r = await _judge(get_backend("local"), _spec(f"echo '{xml}' > {{report}}"), ws, tmp_path)
    by = {t.id: t.outcome for t in r.tests}
    assert by["static/test_calc_static.py::test_add_small"] == "passed"
    assert by["static/test_calc_static.py::test_sub"] == "failed"
    assert by["static/test_calc_static.py::test_mul"] == "failed"  # not reported
    assert sum(v == "passed" for v in by.values()) == 1


class _DyingBackend:
    """Fault injection: the real local backend, but the sandbox dies (or never starts)."""

    def __init__(self, where: str):
        self.inner = get_backend("local")
        self.where = where
        self.name = "local"

    async def create(self, workspace, limits, **kw):
        if self.where == "create":
            raise SandboxError("injected: cannot create the sandbox")
        sb = await self.inner.create(workspace, limits, **kw)
        outer = self

        class Dying:
            backend = "local"

            async def exec(self, argv, **k):
                raise SandboxError(f"injected: sandbox died ({outer.where})")

            async def close(self):
                await sb.close()

        return Dying()


@pytest.mark.parametrize("where", ["create", "exec"])
async def test_a_dead_sandbox_is_an_infra_error_not_a_score(where, tmp_path):
    ch = load_challenge(FIXTURE)
    r = await _judge(_DyingBackend(where), ch, _workspace(tmp_path, ch.solution_dir), tmp_path)
    assert r.infra_error and "injected" in r.infra_error
    assert r.tests == [] and r.deliverables.get("calc", 0.0) == 0.0


@pytest.mark.docker
async def test_a_missing_image_is_an_infra_error(tmp_path):
    spec = _spec(load_challenge(FIXTURE).manifest.judge.command)
    spec.image = "gauntlet-no-such-image:never"
    r = await _judge(get_backend("docker"), spec, _workspace(tmp_path, FIXTURE / "solution"), tmp_path)
    assert r.infra_error and "gauntlet-no-such-image" in r.infra_error
    assert r.tests == []


class _CountingBackend:
    def __init__(self):
        self.inner = get_backend("local")
        self.name = "local"
        self.live = 0
        self.peak = 0

    async def create(self, workspace, limits, **kw):
        sb = await self.inner.create(workspace, limits, **kw)
        self.live += 1
        self.peak = max(self.peak, self.live)
        counter = self
        orig_close = sb.close

        async def close():
            counter.live -= 1
            await orig_close()

        sb.close = close
        return sb


@pytest.mark.parametrize("pool_size", [1, 2])
async def test_pool_size_bounds_concurrent_sandboxes(pool_size, tmp_path):
    ch = load_challenge(FIXTURE)
    be = _CountingBackend()
    judge = Judge(be, pool_size=pool_size)
    snap = take_snapshot(_workspace(tmp_path, ch.solution_dir), tmp_path / "snaps")
    try:
        results = await asyncio.gather(*(judge.run(ch, snap, submission=i, phases=[1]) for i in range(1, 5)))
    finally:
        await judge.aclose()
    assert [r.submission for r in results] == [1, 2, 3, 4]
    assert all(r.infra_error is None for r in results)
    assert be.peak <= pool_size and be.live == 0


async def test_a_host_side_failure_of_the_judge_is_an_infra_error(tmp_path):
    spec = _spec(load_challenge(FIXTURE).manifest.judge.command)
    spec.test_dirs = {1: {"static": [tmp_path / "vanished"]}}
    r = await _judge(get_backend("local"), spec, _workspace(tmp_path, FIXTURE / "solution"), tmp_path)
    assert r.infra_error and "vanished" in r.infra_error
    assert r.tests == []


async def test_run_directories_are_owned_for_stale_cleanup(tmp_path, monkeypatch):
    from arena.sandbox import registry

    monkeypatch.setattr(registry, "STATE_ROOT", tmp_path / "state")
    ch = load_challenge(FIXTURE)
    seen = []
    be = _CountingBackend()
    inner_create = be.create

    async def create(workspace, limits, **kw):
        seen.append(Path(workspace).parent)
        return await inner_create(workspace, limits, **kw)

    be.create = create
    snap = take_snapshot(_workspace(tmp_path, ch.solution_dir), tmp_path / "snaps")
    judge = Judge(be, pool_size=1)
    try:
        r = await judge.run(ch, snap, submission=1)
    finally:
        await judge.aclose()
    assert r.infra_error is None
    assert seen[0].parent == tmp_path / "state" and registry.owner_of(seen[0].name) == os.getpid()
    assert not seen[0].exists()
