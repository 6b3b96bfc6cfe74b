"""Seed 003 Stage 2.5's missing judges (quality, security, deliverables, the judge model) and
issue 12 item 9 (Marathon per-phase budgets; a phase never reached is not scored)."""

from __future__ import annotations

import asyncio
import shutil
import sys
from pathlib import Path

import pytest
from eventkit import Attempt, make_result, passing

from arena import rules
from arena.formats import rules_for
from arena.judge.verdict.snapshot import take_snapshot
from arena.judge.static.static_checks import quality_report, security_report
from arena.judge.verdict.verdict import deliverables
from arena.challenge.models import Deliverable
from arena.results import JudgeResult
from arena.scoring import judge_attempt
from arena.scoring.llm_judge import NO_MODEL, load_readings, median_discard, save_readings, take_readings

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from fakes.provider import FakeProvider  # noqa: E402

STARTER = "def add(a, b):\n    return a + b\n\n\ndef pairs(xs, ys):\n    return list(zip(xs, ys))\n"
BAD = (
    "import os\nimport subprocess\n\n\ndef add(a, b):\n    return a + b\n\n\n"
    "def pairs(xs, ys):\n    return list(zip(xs, ys))\n\n\n"
    "def run(cmd, seen=[]):  # noqa\n    seen.append(cmd)\n"
    "    return subprocess.call('ls ' + cmd, shell=True)  # nosec\n"
)


@pytest.fixture
def trees(tmp_path):
    starter = tmp_path / "starter"
    starter.mkdir()
    (starter / "app.py").write_text(STARTER)
    ws = tmp_path / "ws"
    shutil.copytree(starter, ws)
    (ws / "app.py").write_text(BAD)
    (ws / "pyproject.toml").write_text("[tool.ruff]\nlint.select = []\n")  # the agent's config: ignored
    (ws / ".bandit").write_text("[bandit]\nskips = B602,B603,B404\n")  # ignored too
    return starter, take_snapshot(ws, tmp_path / "snaps")


def test_quality_counts_only_new_ruff_findings_and_ignores_agent_config(trees):
    starter, snap = trees
    rep = quality_report(snap, starter, ["E9", "F", "B", "C901"], [])
    assert rep.error is None
    new = {(f.rule, f.line) for f in rep.new}
    assert ("F401", 1) in new and ("B006", 13) in new  # a noqa comment does not hide it
    old = [f for f in rep.findings if not f.new]
    assert [f.rule for f in old] == ["B905"] and rep.baseline == 1  # zip() is the starter's


def test_security_bandit_ignores_nosec_and_dot_bandit(trees):
    starter, snap = trees
    rep = security_report(snap, starter)
    assert rep.error is None
    assert {(f.rule, f.severity, f.line) for f in rep.new} >= {("B602", "high", 15)}


def test_semgrep_where_installed(trees, monkeypatch):
    exe = shutil.which("semgrep") or "/opt/semgrep-venv/bin/semgrep"
    if not Path(exe).exists():
        monkeypatch.setenv("GAUNTLET_SEMGREP", "/nonexistent/semgrep")
        rep = security_report(trees[1], trees[0], semgrep=True)
        assert "semgrep: not installed" in (rep.error or "")
        return
    monkeypatch.setenv("GAUNTLET_SEMGREP", exe)
    rep = security_report(trees[1], trees[0], semgrep=True)
    assert rep.error is None
    assert any(f.tool == "semgrep" and f.rule == "subprocess-shell-true" for f in rep.new)


def _scored(static_n: int, quality=None, security=None, **kw):
    a = Attempt("standard", **kw)
    res = make_result(1, static=passing(10, static_n))
    res.update(quality=quality, security=security)
    a.wait(300).submit(res)
    return judge_attempt(a.finish())


def test_quality_into_process_security_into_integrity(trees):
    starter, snap = trees
    q = quality_report(snap, starter, ["E9", "F", "B", "C901"], []).model_dump()
    s = security_report(snap, starter).model_dump()
    clean = _scored(9)
    dirty = _scored(9, quality=q, security=s)
    p = {a.rule: a.points for a in dirty.process_adjustments}
    assert p["code_quality"] == max(-5.0, -float(sum(1 for f in q["findings"] if f["new"])))
    assert dirty.components["process"] == clean.components["process"] + p["code_quality"]
    sec = [f for f in dirty.flags if f.rule == "security_finding"]
    assert sec and sum(f.points for f in sec) >= -20
    assert dirty.components["integrity"] == clean.components["integrity"] + sum(f.points for f in sec)
    assert dirty.components["objective"] == clean.components["objective"]


def test_file_deliverable_must_mention(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "NOTES.md").write_text("x")
    spec = type("S", (), {})()
    spec.deliverables = [("NOTES.md", "file")]
    spec.deliverable_specs = [
        Deliverable(name="NOTES.md", kind="file", weight=1.0, must_mention=["_find_runs", "_run_end"])
    ]
    res = JudgeResult(submission=1, snapshot_hash="h")
    assert deliverables(spec, take_snapshot(ws, tmp_path / "s1"), res) == {"NOTES.md": 0.0}  # "x" fails
    (ws / "NOTES.md").write_text("The root cause was in `_FIND_RUNS`.")
    assert deliverables(spec, take_snapshot(ws, tmp_path / "s2"), res) == {"NOTES.md": 0.5}
    with pytest.raises(ValueError, match="kind file only"):
        Deliverable(name="fix", kind="tests", weight=1.0, must_mention=["x"])


def test_median_with_outlier_discarded():
    assert median_discard([0.8, 0.82, 0.1]) == pytest.approx(0.81)
    assert median_discard([0.5]) == 0.5


DL = [
    {"name": "fix", "kind": "tests", "weight": 0.8},
    {"name": "NOTES.md", "kind": "file", "weight": 0.2, "check": "one paragraph per bug with its root cause"},
]


def _notes_attempt():
    a = Attempt("standard", deliverables=DL)
    a.wait(300).submit(static=passing(10, 10), deliverables={"NOTES.md": 1.0}, content="notes")
    return a.finish()


def test_no_judge_model_says_so_and_does_not_pass():
    card = judge_attempt(_notes_attempt())
    assert card.not_judged == [f"deliverable NOTES.md check: {NO_MODEL}"]
    assert card.components["objective"] == 90.0  # 80 tests + 20 × (presence 1 + check 0) / 2


def test_judge_model_readings_through_the_gateway_are_stored(tmp_path, monkeypatch):
    events = _notes_attempt()
    digest = next(e.data["hash"] for e in events if e.kind == "submission.received")
    (tmp_path / "snaps" / digest).mkdir(parents=True)
    (tmp_path / "snaps" / digest / "NOTES.md").write_text("Bug 1: root cause ... Bug 2: root cause ...")
    turns = [{"content": "80 - good"}, {"content": "Score: 90"}, {"content": "10"}]
    with FakeProvider(turns) as fp:
        env = {"OPENAI_BASE_URL": fp.base_url, "OPENAI_API_KEY": "host-key"}
        readings = asyncio.run(
            take_readings(events, tmp_path / "snaps", model="openai/judge-1", gateway_root=tmp_path / "gw", env=env)
        )
        assert len(fp.requests) == 3 and "root cause" in str(fp.requests[0]["body"])
    assert readings["deliverable:NOTES.md"]["readings"] == [0.8, 0.9, 0.1]
    assert readings["deliverable:NOTES.md"]["score"] == pytest.approx(0.85)
    save_readings(tmp_path / "cache", "a-0000test", readings)
    stored = load_readings(tmp_path / "cache", "a-0000test")
    one, two = judge_attempt(events, readings=stored), judge_attempt(events, readings=stored)
    assert one.to_json() == two.to_json() and one.not_judged == []
    assert one.components["objective"] == pytest.approx(80 + 20 * (1 + 0.85) / 2, abs=0.05)


# -- item 9: Marathon ------------------------------------------------------------------
def test_per_phase_budget_refuses_in_phase_and_resets_next_phase():
    m = rules_for("marathon")
    hist = [(1, 10.0, True, 1), (2, 100.0, True, 1)]
    d = rules.decide_submission(m, budget=2, at=200.0, stage="running", history=hist, per_phase=True, phase=1)
    assert not d.ok and d.code == rules.BUDGET_SPENT and "Phase 1" in d.reason
    d = rules.decide_submission(m, budget=2, at=200.0, stage="running", history=hist, per_phase=True, phase=2)
    assert d.ok  # a new phase, a new budget: phase 1's are not carried over
    hist2 = hist + [(3, 300.0, True, 2)]
    assert rules.budget_used(hist2, per_phase=True, phase=2) == 1
    # global: the same history spends a budget of 3
    assert not rules.decide_submission(m, budget=3, at=400.0, stage="running", history=hist2).ok


def test_marathon_agent_stuck_in_phase_1_scored_on_phase_1_only():
    # phase 2 opens only by threshold (no time mark inside the limit): never reached
    phases = [{"id": "extension", "reveal_at": 1.0, "advance_threshold": 0.6}]
    a = Attempt("marathon", time_limit_s=6000, budget=8, phases=phases)
    a.wait(1500).submit(static=passing(10, 5))
    card = judge_attempt(a.finish())
    assert [(p.id, p.objective, p.reached) for p in card.phases] == [
        ("foundation", 50.0, True),
        ("extension", 0.0, False),
    ]
    assert card.components["objective"] == 50.0  # not (50 + 0) / 2
