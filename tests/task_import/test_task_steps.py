"""Issue 23: a multi-step Harbor task ([[steps]]) imported as a Marathon (one phase per step),
run live with the reference (each step's solve.sh) and the no-op, scored per phase; exported
back as Harbor steps (round trip)."""

from __future__ import annotations

import json
import shutil
import subprocess
import tomllib

import pytest
import yaml

from arena.challenge import load_challenge
from arena.judge.verdict.result_formats import parse_ctrf
from arena.judge.verdict.verdict import raw_results
from arena.pipeline.task_export import export_harbor
from arena.pipeline.task_import import ImportError_, import_task
from arena.pipeline.task_steps import STEPS_SCRIPT
from tests.task_import.fixtures import harbor_steps
from tests.task_import.test_task_export import OFF_BY_ONE, harbor_check
from tests.task_import.test_task_import import DOCKER, gauntlet, objective


def test_steps_become_phases(tmp_path):
    src = harbor_steps(tmp_path / "two-steps")
    import_task(src, tmp_path / "pkg")
    ch = load_challenge(tmp_path / "pkg")
    m = ch.manifest
    # time: the steps' agent timeouts (1500 + 2100 s); phase 2 reveals after step 1's share
    assert (m.format, m.time_limit_s, ch.phase_count) == ("marathon", 3600.0, 2)
    assert [(p.id, p.reveal_at, p.advance_threshold) for p in m.phases] == [("count", 0.4167, 1.0)]
    assert ch.briefing == "Write /app/hello.txt whose only line is: hello\n"
    assert ch.phase_briefing(2).startswith("Write the number of lines of /app/data.txt")
    # each phase's tests: the task's tests/ with the step's own laid on top, paths overridable
    for k, root in ((1, ch.root / "tests" / "static"), (2, ch.root / "phases" / "2" / "tests" / "static")):
        assert "${GAUNTLET_TASK_VERIFIER:-/logs/verifier}" in (root / "check.sh").read_text(), k
        assert ". ${GAUNTLET_TASK_TESTS:-/tests}/check.sh" in (root / "test.sh").read_text(), k
    assert "count.txt 3" in (ch.root / "phases" / "2" / "tests" / "static" / "test.sh").read_text()
    assert (m.judge.results.format, m.judge.timeout_s, m.judge.isolation) == ("ctrf", 75.0, "none")
    ref = yaml.safe_load((ch.root / "agents" / "reference.yaml").read_text())["steps"]
    assert [s if isinstance(s, str) else next(iter(s)) for s in ref] == ["overlay", "run", "submit"] * 2
    steps = m.extensions["x-import"]["steps"]
    assert [(s["name"], s["agent_timeout_s"], s["verifier_timeout_s"], s["min_reward"]) for s in steps] == [
        ("greet", 1500.0, 30.0, 1.0),
        ("count", 2100.0, 45.0, None),
    ]
    r = gauntlet("challenge", "validate", str(ch.root), "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["ok"], r.stdout
    with pytest.raises(ImportError_, match="^task.toml: key 'steps': a multi-step task imports as a marathon"):
        import_task(src, tmp_path / "p2", fmt="sprint")


@pytest.mark.parametrize(
    "mutate,message",
    [
        (lambda r: (r / "steps" / "count" / "instruction.md").unlink(), "steps/count/instruction.md: required file"),
        (lambda r: (r / "steps" / "count" / "tests" / "test.sh").unlink(), "steps/count/tests/test.sh: required"),
        (lambda r: (r / "steps" / "count" / "workdir").mkdir(), "steps/count/workdir: files staged before a later"),
        (lambda r: shutil.rmtree(r / "steps" / "greet"), "steps/greet: step directory missing"),
    ],
)
def test_a_step_that_cannot_be_imported_names_the_file(tmp_path, mutate, message):
    src = harbor_steps(tmp_path / "t")
    mutate(src)
    with pytest.raises(ImportError_) as e:
        import_task(src, tmp_path / "pkg")
    assert str(e.value).startswith(message), e.value


def test_the_steps_script_reports_each_open_phase(tmp_path):
    """The judge command run by hand over a judge-like tree: reward.txt, reward.json (a key
    each) and a step that wrote no reward each become CTRF tests of their phase."""
    src = harbor_steps(tmp_path / "t")
    (src / "steps" / "count" / "tests" / "test.sh").write_text(
        '#!/bin/bash\nmkdir -p /logs/verifier\necho \'{"lines": 1, "exact": 0.5}\' > /logs/verifier/reward.json\n'
    )
    import_task(src, tmp_path / "pkg")
    judge = tmp_path / "judge" / "tests"
    shutil.copytree(tmp_path / "pkg" / "tests", judge / "1")
    shutil.copytree(tmp_path / "pkg" / "phases" / "2" / "tests", judge / "2")
    ws, out = tmp_path / "ws", tmp_path / "out"
    ws.mkdir(), out.mkdir()
    (ws / "hello.txt").write_text("hello\n")
    env = {"PATH": "/usr/bin:/bin", "GAUNTLET_JUDGE_WORKSPACE": str(ws), "GAUNTLET_JUDGE_OUT": str(out)}

    def run(*phases: int) -> list:
        dirs = [str(judge / str(p) / "static") for p in phases]
        subprocess.run(["sh", str(judge / "1" / "static" / STEPS_SCRIPT), str(out / "c.json"), *dirs], env=env)
        return raw_results(parse_ctrf((out / "c.json").read_bytes()), None)

    got = {(t.id, t.phase, t.outcome) for t in run(1, 2)}
    assert got == {
        ("static/greet::reward", 1, "passed"),
        ("static/phase2/count::lines", 2, "passed"),
        ("static/phase2/count::exact", 2, "failed"),
    }
    (judge / "2" / "static" / "test.sh").write_text("#!/bin/bash\nexit 3\n")
    (ws / "hello.txt").write_text("bye\n")
    [greet, count] = sorted(run(1, 2), key=lambda t: t.phase)
    assert (greet.outcome, greet.message) == ("failed", "reward 0.0 of 1.0")
    assert count.outcome == "failed" and "wrote no reward file (exit code 3)" in count.message


@pytest.mark.parametrize("backend", ["docker", "local"])
def test_a_multi_step_task_runs_live_per_phase(tmp_path, backend):
    """The reference solves step 1, submits (phase 2 opens by its threshold), solves step 2,
    submits: 100 over both phases; the no-op's untouched environment fails step 1: 0."""
    if backend == "docker" and not DOCKER:
        pytest.skip("needs Docker")
    pkg = tmp_path / "pkg"
    no_build = ["--no-build"] if backend == "local" else []
    r = gauntlet("challenge", "import", str(harbor_steps(tmp_path / "two-steps")), "--out", str(pkg), *no_build)
    assert r.returncode == 0, r.stderr
    store = tmp_path / "s.db"
    assert objective(pkg, "reference", backend, store) == 100.0
    assert objective(pkg, "noop", backend, store) == 0.0


def test_an_imported_multi_step_task_round_trips(tmp_path):
    import_task(harbor_steps(tmp_path / "two-steps"), tmp_path / "p1")
    export_harbor(tmp_path / "p1", tmp_path / "t")
    t = tmp_path / "t"
    cfg = tomllib.loads((t / "task.toml").read_text())
    assert cfg["multi_step_reward_strategy"] == "mean"
    assert [
        (s["name"], s["agent"]["timeout_sec"], s["verifier"]["timeout_sec"], s.get("min_reward")) for s in cfg["steps"]
    ] == [
        ("greet", 1500.0, 30.0, 1.0),
        ("count", 2100.0, 45.0, None),
    ]
    for step in ("greet", "count"):
        for rel in ("instruction.md", "tests/test.sh", "tests/check.sh", "solution/solve.sh"):
            assert (t / "steps" / step / rel).is_file(), (step, rel)
    assert not (t / "steps" / "greet" / "tests" / STEPS_SCRIPT).exists()
    harbor_check(t)
    import_task(t, tmp_path / "p2")
    a, b = load_challenge(tmp_path / "p1"), load_challenge(tmp_path / "p2")
    assert (a.briefing, a.phase_briefing(2)) == (b.briefing, b.phase_briefing(2))
    assert a.manifest.phases == b.manifest.phases
    ma, mb = a.manifest, b.manifest
    assert (ma.format, ma.time_limit_s, ma.judge, ma.weight_class) == (
        mb.format,
        mb.time_limit_s,
        mb.judge,
        mb.weight_class,
    )
    assert ma.extensions["x-import"]["steps"] == mb.extensions["x-import"]["steps"]
    for root in (a.root, b.root):
        assert (root / "starter" / "data.txt").read_text() == "a\nb\nc\n"
    files = sorted(
        p.relative_to(a.root).as_posix()
        for p in a.root.rglob("*")
        if p.is_file() and p.parts[len(a.root.parts)] in ("tests", "phases", "agents")
    )
    assert len(files) == 10, files
    for rel in files:
        assert (a.root / rel).read_text() == (b.root / rel).read_text(), rel


def test_a_pytest_marathon_exports_one_step_per_phase(tmp_path):
    """The bundled marathon: each phase's suites and pytest test.sh, its reference overlay as
    the step's solution, the next phase's advance threshold as min_reward."""
    export_harbor(OFF_BY_ONE.parent / "task-store", tmp_path / "t")
    t = tmp_path / "t"
    cfg = tomllib.loads((t / "task.toml").read_text())
    names = [s["name"] for s in cfg["steps"]]
    assert names == ["phase-1", "concurrent-edits", "multi-tenant"]
    assert [s.get("min_reward") for s in cfg["steps"]] == [0.6, 0.6, None]
    assert sum(s["agent"]["timeout_sec"] for s in cfg["steps"]) == 90 * 60
    assert (t / "steps" / "concurrent-edits" / "tests" / "static" / "test_versions_static.py").is_file()
    assert "/tests/hidden /tests/static" in (t / "steps" / "multi-tenant" / "tests" / "test.sh").read_text()
    assert (t / "steps" / "phase-1" / "solution" / "files" / "taskstore.py").is_file()
    harbor_check(t)
