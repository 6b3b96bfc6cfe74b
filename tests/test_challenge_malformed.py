"""The malformed-package corpus (tests/malformed/<case>/): each case gives its own clear
message naming the file and key, from the loader, from validate() and from the CLI
(right exit code, never a traceback)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from arena.challenge import ChallengeError, load_challenge
from arena.pipeline.package import validate
from gauntlet_tui.cli import main

CORPUS = Path(__file__).parent / "malformed"

# case -> (exit code of `gauntlet challenge validate`, message expected among the findings)
CASES = {
    "missing_briefing": (
        1,
        "briefing.md: required file missing: expected the agent's briefing (markdown) in the package root",
    ),
    "missing_manifest": (2, "challenge.yaml: required file missing: expected a YAML mapping of the manifest keys"),
    "missing_starter": (1, "starter/: required directory missing: expected the agent's initial workspace"),
    "missing_static_tests": (1, "tests/static/: required directory missing: expected the judge-side static tests"),
    "unknown_key": (
        1,
        "challenge.yaml: key 'itterations': unknown key (did you mean 'iterations'?); keys starting x- are free for authors",
    ),
    "weights_0_9": (1, "challenge.yaml: key 'deliverables': expected weights summing to 1.0, they sum to 0.9"),
    "sprint_budget_9": (1, "challenge.yaml: key 'iterations': expected an integer in 1-2 for a sprint, got 9"),
    "sprint_time_45m": (1, "challenge.yaml: key 'time_limit': expected a time in 10m-20m for a sprint, got 45m"),
    "escaping_symlink": (
        1,
        "starter/passwd: symlink escapes starter/ (points to /etc/passwd): expected a file or a link inside starter/",
    ),
    "escaping_symlink_package": (
        1,
        "tests/static/conftest.py: symlink escapes the package (points to ../../../conftest.py): expected a file or a link inside the package",
    ),
    "not_a_mapping": (2, "challenge.yaml: top level is a list: expected a YAML mapping of the manifest keys"),
    "binary_manifest": (2, "challenge.yaml: binary content: expected a YAML mapping of the manifest keys"),
    "yaml_syntax": (2, "challenge.yaml: unreadable YAML at line 10, column 19"),
    "empty_manifest": (2, "challenge.yaml: empty file: expected a YAML mapping of the manifest keys"),
    "duplicate_key": (2, "challenge.yaml: unreadable YAML at line 10, column 1: key 'iterations' is written twice"),
    "bad_time": (1, "challenge.yaml: key 'time_limit': expected a time like 90s, 15m or 1h30m, got '15 minutes'"),
    "bad_weight_class": (
        1,
        "challenge.yaml: key 'weight_class': expected one of lightweight, middleweight, contender, heavyweight, frontier or a number 1-5, got 7",
    ),
    "bad_category": (
        1,
        "challenge.yaml: key 'category': expected one of debug-gauntlet, forensic-reasoning, recovery,",
    ),
    "bad_id": (
        1,
        "challenge.yaml: key 'id': expected an id of lowercase letters, digits and dashes ([a-z0-9][a-z0-9-]*), got 'Tiny_Add'",
    ),
    "judge_no_report": (1, "challenge.yaml: key 'judge.command': expected a command containing {report}"),
    "profile_out_of_range": (
        1,
        "challenge.yaml: key 'difficulty_profile.code_navigation': expected a number in 0-1, got 1.5",
    ),
    "phases_on_sprint": (
        1,
        "challenge.yaml: key 'phases': phases are for marathons only: expected no phases for a sprint",
    ),
    "reveal_not_increasing": (
        1,
        "challenge.yaml: key 'phases[1].reveal_at': expected reveal marks increasing phase after phase, got 0.35 after 0.65",
    ),
    "agent_unknown_step": (
        1,
        "agents/naive.yaml: key 'steps[1]' (step 2): unknown step 'jump': expected one of wait, read, overlay, delete, run, submit, message",
    ),
    "agent_bad_wait": (
        1,
        "agents/naive.yaml: key 'steps[0]' (step 1): wait: expected a time like 90s, 15m or 1h30m, got 'soon'",
    ),
    "overlay_escape": (
        1,
        "agents/standard.yaml: key 'steps[3]' (step 4): overlay: '../../..': '..' may leave the package",
    ),
    "overlay_missing": (
        1,
        "agents/standard.yaml: key 'steps[3]' (step 4): overlay: 'agents/nope': no such directory in the package",
    ),
    "read_absolute": (
        1,
        "agents/elite.yaml: key 'steps[0]' (step 1): read: '/etc/passwd': absolute path: expected a path relative to the workspace",
    ),
    "delete_escape": (
        1,
        "agents/elite.yaml: key 'steps[3]' (step 4): delete: '../outside.txt': '..' may leave the workspace",
    ),
    # gate 2 (validate only: the package loads, but is not fit to publish)
    "starter_syntax_error": (
        1,
        "starter/calc.py: line 1: syntax error (expected ':'): expected starter code that at least compiles",
    ),
    "missing_solution": (1, "solution/: missing or empty: expected the reference solution"),
    "hidden_test_leaked": (
        1,
        "tests/hidden/test_add_hidden.py: the same file is agent-visible as starter/test_add_hidden.py",
    ),
}
GATE_ONLY = {"starter_syntax_error", "missing_solution", "hidden_test_leaked"}


def test_the_corpus_has_at_least_15_cases_and_each_is_checked():
    on_disk = {p.name for p in CORPUS.iterdir() if p.is_dir() and not p.name.startswith("__")}
    assert on_disk == set(CASES)
    assert len(CASES) >= 15


@pytest.mark.parametrize("case", sorted(CASES))
def test_validate_gives_the_message(case):
    code, message = CASES[case]
    findings = validate(CORPUS / case)
    details = [f.detail for f in findings if f.severity == "error"]
    assert any(d.startswith(message) for d in details), details
    for f in findings:
        assert "\n" not in f.detail and "Traceback" not in f.detail


@pytest.mark.parametrize("case", sorted(set(CASES) - GATE_ONLY))
def test_load_challenge_refuses_with_the_message(case):
    with pytest.raises(ChallengeError) as exc:
        load_challenge(CORPUS / case)
    assert any(f.detail.startswith(CASES[case][1]) for f in exc.value.findings), exc.value.findings
    assert exc.value.unreadable == (CASES[case][0] == 2)


@pytest.mark.parametrize("case", sorted(GATE_ONLY))
def test_gate_only_cases_still_load(case):
    assert load_challenge(CORPUS / case).id == "tiny-add"


@pytest.mark.parametrize("case", sorted(CASES))
def test_cli_exit_code_and_message(case, capsys):
    code, message = CASES[case]
    assert main(["challenge", "validate", str(CORPUS / case)]) == code
    out, err = capsys.readouterr()
    assert message in out + err
    assert "Traceback" not in out + err
    assert main(["challenge", "validate", "--json", str(CORPUS / case)]) == code
    doc = json.loads(capsys.readouterr().out)
    assert doc["ok"] is False and set(doc) == {"challenge", "findings", "ok"}
    assert any(f["detail"].startswith(message) for f in doc["findings"])
    assert all(set(f) == {"severity", "check", "detail"} for f in doc["findings"])


@pytest.mark.parametrize("case", ["binary_manifest", "unknown_key", "escaping_symlink"])
def test_cli_as_a_process_never_prints_a_traceback(case):
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).parents[1]))
    proc = subprocess.run(
        [sys.executable, "-m", "gauntlet_tui", "challenge", "validate", str(CORPUS / case)],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert proc.returncode == CASES[case][0]
    assert CASES[case][1] in proc.stdout + proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr
