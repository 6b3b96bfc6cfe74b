"""Scoring a scripted agent file fast (issue 38): its steps replayed in-process, each
submission judged by the real judge (local sandbox) and the attempt's events built with
eventkit at the times the script names. No attempt clock runs: what the engine would do
between the steps (feedback, reveals) is written as events, as the runner writes them."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import yaml
from eventkit import Attempt

from arena.challenge import load_challenge
from arena.challenge.units import parse_duration
from arena.judge import Judge, JudgeSpec, take_snapshot
from arena.judge.verdict.expected import collect_expected, test_id
from arena.judge.verdict.verdict import deliverables
from arena.results import JudgeResult, TestResult
from arena.sandbox import get_backend

AGENTS = Path(__file__).resolve().parents[1] / "agents"
BUNDLED = Path(__file__).resolve().parents[2] / "arena" / "bundled"


@dataclass
class Submit:
    t: float  # attempt seconds when the script submits
    workspace: Path


def package_with_agents(tmp: Path, challenge: str) -> Path:
    """A copy of a bundled package with the test agent files (and their overlays) in agents/."""
    copy = tmp / challenge
    shutil.copytree(BUNDLED / challenge, copy)
    for f in AGENTS.glob("*.yaml"):
        shutil.copy(f, copy / "agents" / f.name)
        overlay = AGENTS / f.stem / challenge
        if overlay.is_dir():
            shutil.copytree(overlay, copy / "agents" / f.stem)
    return copy


def replay(package: Path, agent: str, tmp: Path) -> list[Submit]:
    """The workspace at each ``submit`` of ``agents/<agent>.yaml`` (overlay and delete steps
    applied to the starter; waits summed into attempt seconds, each step 1 s)."""
    steps = yaml.safe_load((package / "agents" / f"{agent}.yaml").read_text())["steps"]
    ws = tmp / f"ws-{agent}"
    shutil.copytree(package / "starter", ws)
    t, out = 0.0, []
    for step in steps:
        kind, value = (step, None) if isinstance(step, str) else next(iter(step.items()))
        if kind == "wait":
            t += float(parse_duration(value))
            continue
        t += 1.0
        if kind == "overlay":
            shutil.copytree(package / value, ws, dirs_exist_ok=True)
        elif kind == "delete":
            for rel in [value] if isinstance(value, str) else value:
                (ws / rel).unlink(missing_ok=True)
        elif kind == "submit":
            frozen = tmp / f"sub-{agent}-{len(out) + 1}"
            shutil.copytree(ws, frozen)
            out.append(Submit(t, frozen))
    return out


def judged(package: Path, ws: Path, tmp: Path, outcomes: dict[str, bool], n: int = 1, phases=(1,)) -> dict:
    """The judge's result for workspace ``ws`` without running the tests: every judge-side
    test of ``phases`` with the outcome ``outcomes`` gives its name (default failed), and the
    deliverables scored by the judge's own code (arena/judge/verdict/verdict.py) on a real
    snapshot of ``ws``. For a submission that changed no code the starter's outcomes are
    the submission's: no pytest run is needed to know them."""
    spec = JudgeSpec.from_challenge(load_challenge(package), list(phases))
    tests = [
        TestResult(
            id=test_id(e.phase, e.suite, e.relpath, e.classes, e.func),
            name=e.func,
            suite=e.suite,
            phase=e.phase,
            outcome="passed" if outcomes.get(e.func) else "failed",
        )
        for e in expected_tests(package, phases)
    ]
    result = JudgeResult(submission=n, snapshot_hash=f"h{n}", tests=tests)
    result.deliverables = deliverables(spec, take_snapshot(ws, tmp / "snaps"), result)
    return result.model_dump(mode="json")


def expected_tests(package: Path, phases=(1,)) -> list:
    spec = JudgeSpec.from_challenge(load_challenge(package), list(phases))
    expected, errors = collect_expected(spec.test_dirs)
    assert not errors, errors
    return expected


async def judge_tree(package: Path, ws: Path, tmp: Path, phases: list[int], n: int = 1) -> dict:
    """The real judge's result (a real pytest run in the local sandbox)."""
    judge = Judge(get_backend("local"), pool_size=1)
    try:
        snap = take_snapshot(ws, tmp / "snaps")
        result = await judge.run(load_challenge(package), snap, submission=n, phases=phases)
    finally:
        await judge.aclose()
    assert result.infra_error is None, result.infra_error
    return result.model_dump(mode="json")


def attempt_for(package: Path, starter: dict, agent: str = "scripted:test") -> Attempt:
    """An eventkit attempt shaped as the runner starts one for ``package``."""
    ch = load_challenge(package)
    m = ch.manifest
    phases = [
        {"id": p.id, "reveal_at": p.reveal_at, "advance_threshold": p.advance_threshold, "pivot": p.pivot}
        for p in m.phases or []
    ]
    deliverables = [{"name": d.name, "kind": d.kind, "weight": d.weight} for d in m.deliverables]
    a = Attempt(
        m.format,
        time_limit_s=float(m.time_limit_s),
        budget=int(m.iterations),
        deliverables=deliverables,
        phases=phases,
        challenge=m.id,
        agent=agent,
        weight_class=m.weight_class,
    )
    a.emit("starter.judged", result=starter, cached=False, key="k")
    return a
