"""`gauntlet challenge audit` (seed 003 gate 4) and `validate --run`: leakage, exposed
tests, the trivial shortcut, and judging the starter and the reference solution for real."""

import json
import shutil
from pathlib import Path

import pytest

from arena.challenge import load_challenge
from arena.pipeline.integrity import answer_leakage, static_audit, verdict
from arena.pipeline.package_runs import run_checks
from gauntlet_tui.cli import main
from arena.results import Finding

MINIMAL = Path(__file__).parent / "fixtures" / "minimal"


@pytest.fixture
def pkg(tmp_path):
    dst = tmp_path / "pkg"
    shutil.copytree(MINIMAL, dst, symlinks=True)
    return dst


def test_clean_package_has_no_static_audit_findings():
    assert static_audit(load_challenge(MINIMAL)) == []


def test_solution_code_in_a_starter_comment_is_answer_leakage(pkg):
    (pkg / "starter/calc.py").write_text(
        'def add(a, b):\n    """Return the sum of a and b."""\n    return a - b  # hint: return a + b\n'
    )
    found = answer_leakage(load_challenge(pkg))
    assert [(f.severity, f.detail) for f in found] == [
        (
            "error",
            "starter/calc.py: contains 'return a + b' from solution/calc.py: "
            "expected the reference solution's code kept out of agent-visible files",
        )
    ]


def test_solution_text_in_the_briefing_is_answer_leakage(pkg):
    with (pkg / "briefing.md").open("a") as f:
        f.write("\nadd() used the minus operator, so every call with a non-zero second argument was wrong.\n")
    found = answer_leakage(load_challenge(pkg))
    assert len(found) == 1 and found[0].detail.startswith("briefing.md: contains 'add() used the minus operator")


def test_lines_the_starter_already_has_are_not_leaks(pkg):
    (pkg / "starter/other.py").write_text('"""Return the sum of a and b."""\n')
    assert answer_leakage(load_challenge(pkg)) == []


def test_hidden_test_names_in_agent_visible_files(pkg):
    with (pkg / "briefing.md").open("a") as f:
        f.write("\nA hidden check called test_large will look at big numbers.\n")
    found = answer_leakage(load_challenge(pkg))
    assert [(f.severity, f.detail) for f in found] == [
        (
            "warning",
            "briefing.md: names the hidden test test_large (tests/hidden/test_add_hidden.py): "
            "expected hidden test specifics withheld",
        )
    ]


def test_verdict_follows_gate_4():
    err = Finding(severity="error", check="x", detail="d")
    warn = Finding(severity="warning", check="x", detail="d")
    note = Finding(severity="info", check="x", detail="d")
    assert verdict([]) == "pass_clean" and verdict([note]) == "pass_clean"
    assert verdict([warn]) == "pass_with_flags"
    assert verdict([warn, warn]) == "reject" and verdict([err]) == "reject"


def test_static_audit_cli_json(pkg, capsys):
    shutil.copy(pkg / "tests/hidden/test_add_hidden.py", pkg / "starter/test_add_hidden.py")
    assert main(["challenge", "audit", "--static", "--json", str(pkg)]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["verdict"] == "reject" and doc["ok"] is False
    assert {f["check"] for f in doc["findings"]} == {"exploit", "answer_leakage"}


def test_audit_of_an_unloadable_package_rejects_with_the_load_messages(capsys):
    bad = Path(__file__).parent / "malformed" / "sprint_budget_9"
    assert main(["challenge", "audit", "--static", str(bad)]) == 1
    out = capsys.readouterr().out
    assert "challenge.yaml: key 'iterations': expected an integer in 1-2 for a sprint, got 9" in out
    assert "verdict reject" in out


@pytest.mark.docker
def test_validate_run_judges_starter_and_solution_for_real(capsys):
    assert main(["challenge", "validate", "--run", "--sandbox", "docker", str(MINIMAL)]) == 0
    out = capsys.readouterr().out
    assert "starter/: 0/3 judge-side tests pass on the unmodified starter, none errors" in out
    assert "solution/: the reference solution passes all 3 judge-side tests" in out


@pytest.mark.docker
def test_run_checks_find_a_starter_that_errors_and_a_broken_solution(pkg):
    (pkg / "starter/calc.py").write_text("raise RuntimeError('import-time crash')\n")
    (pkg / "solution/calc.py").write_text("def add(a, b):\n    return a + b + (a == 10**12)\n")
    found, _ = run_checks(load_challenge(pkg), "docker")
    checks = {(f.severity, f.check) for f in found}
    assert ("error", "starter_run") in checks, found
    sol = [f.detail for f in found if f.check == "solution_run"]
    assert sol == [
        "solution/: the reference solution does not pass every judge-side test "
        "(hidden/test_large failed): expected all 3 to pass"
    ]


@pytest.mark.docker
def test_audit_flags_a_starter_that_already_passes(pkg, capsys):
    shutil.copy(pkg / "solution/calc.py", pkg / "starter/calc.py")
    assert main(["challenge", "audit", "--sandbox", "docker", str(pkg)]) == 1
    out = capsys.readouterr().out
    assert "trivial_shortcut" in out
    assert (
        "starter/: the unmodified starter already passes all 3 judge-side tests: expected the challenge to need work"
        in out
    )
    assert "verdict reject" in out
