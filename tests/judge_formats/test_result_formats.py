"""Issue 23: result files of a judge command in any language (arena/judge/verdict/result_formats.py),
each format onto the same TestResult list, malformed files refused with the file named."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from arena.challenge.models import Judge
from arena.judge.verdict import result_formats as rf
from arena.judge.verdict.verdict import raw_results


def outcomes(cases):
    return [(c.name, c.outcome) for c in cases]


def test_ctrf_statuses_messages_and_categories():
    doc = {
        "results": {
            "tool": {"name": "go"},
            "tests": [
                {"name": "test_edge_empty", "status": "failed", "message": "want 0 got 1", "filePath": "sum_test.go"},
                {"name": "TestSum", "status": "passed"},
                {"name": "TestLater", "status": "pending"},
                {"name": "TestOdd", "status": "other", "trace": "panic"},
            ],
        }
    }
    cases = rf.parse("ctrf", json.dumps(doc).encode(), "ctrf.json")
    assert outcomes(cases) == [
        ("test_edge_empty", "failed"),
        ("TestSum", "passed"),
        ("TestLater", "skipped"),
        ("TestOdd", "error"),
    ]
    tests = raw_results(cases, {"test_edge_*": "edge_case"})
    assert [(t.suite, t.category) for t in tests][0] == ("static", "edge_case")
    assert tests[0].message == "want 0 got 1" and tests[1].message == ""


def test_tap_plan_directives_diagnostics_and_missing_tests():
    tap = b"""TAP version 13
1..5
ok 1 - adds
not ok 2 - subtracts
  ---
  message: 'expected 1, got 2'
  ...
ok 3 - later # SKIP not on this platform
not ok 4 - known bug # TODO fix
"""
    cases = rf.parse("tap", tap, "stdout")
    assert outcomes(cases) == [
        ("adds", "passed"),
        ("subtracts", "failed"),
        ("later", "skipped"),
        ("known bug", "skipped"),
        ("test 5", "error"),
    ]
    assert cases[1].message == "expected 1, got 2"
    assert "not reported" in cases[4].message


def test_tap_bail_out_marks_the_rest_as_errors():
    cases = rf.parse("tap", b"1..3\nok 1 - a\nBail out! no compiler\n", "r.tap")
    assert outcomes(cases) == [("a", "passed"), ("test 2", "error"), ("test 3", "error")]
    assert cases[1].message == "no compiler"


def test_reward_text_and_json():
    assert outcomes(rf.parse("reward", b"1\n", "reward.txt")) == [("reward", "passed")]
    [c] = rf.parse("reward", b"0.25", "reward.txt")
    assert c.outcome == "failed" and c.message == "reward 0.25 of 1.0"
    cases = rf.parse("reward", b'{"build": 1, "output": 0}', "reward.json")
    assert outcomes(cases) == [("build", "passed"), ("output", "failed")]
    assert outcomes(rf.parse("reward", b"1.0", "reward.json")) == [("reward", "passed")]


def test_reward_file_falls_back_to_the_other_name(tmp_path):
    (tmp_path / "reward.json").write_text('{"reward": 1}')
    assert outcomes(rf.read("reward", "reward.txt", tmp_path)) == [("reward", "passed")]
    assert rf.read("reward", "reward.txt", tmp_path / "none") is None  # nothing written: not an error


@pytest.mark.parametrize(
    "fmt,name,data,why",
    [
        ("reward", "reward.txt", b"", "empty"),
        ("reward", "reward.txt", b"yes", "is not a number"),
        ("reward", "reward.txt", b"nan", "not a finite number"),
        ("reward", "reward.json", b"{}", "an empty object"),
        ("reward", "reward.json", b'{"a": "1"}', "key 'a'"),
        ("reward", "reward.json", b"{", "not valid JSON"),
        ("ctrf", "ctrf.json", b'{"results": {}}', "expected a CTRF document"),
        ("ctrf", "ctrf.json", b'{"results": {"tests": [{"name": "t", "status": "green"}]}}', "status 'green'"),
        ("ctrf", "ctrf.json", b"\xff\xfe", "not UTF-8"),
        ("tap", "r.tap", b"all good\n", "no TAP plan"),
        ("tap", "r.tap", b"1..1\n1..2\nok 1\n", "two plans"),
        ("junit", "report.xml", b"<testsuite><testcase", "not well-formed"),
    ],
)
def test_malformed_files_name_the_file_and_the_fault(tmp_path, fmt, name, data, why):
    (tmp_path / name).write_bytes(data)
    with pytest.raises(rf.ResultsError) as e:
        rf.read(fmt, name, tmp_path)
    assert str(e.value).startswith(f"{fmt} result file {name}: ") and why in str(e.value), e.value


def test_tap_from_stdout_named_as_such(tmp_path):
    with pytest.raises(rf.ResultsError, match="tap result file the judge command's standard output: no TAP plan"):
        rf.read("tap", "stdout", tmp_path, b"hello\n")


def test_manifest_keys():
    j = Judge(command="sh run.sh", results={"format": "reward"}, isolation="none")
    assert j.results is not None and j.results.path == "reward.txt"
    assert (
        Judge(
            command="make test > /dev/null", results={"format": "tap", "path": "stdout"}, isolation="none"
        ).results.path
        == "stdout"
    )
    bad = [
        ({"command": "sh run.sh", "results": {"format": "reward"}}, "expected isolation: none"),
        ({"command": "python -m pytest {tests}", "results": {"format": "tap"}, "isolation": "none"}, "not pytest"),
        ({"command": "x", "results": {"format": "ctrf", "path": "stdout"}, "isolation": "none"}, "tap only"),
        ({"command": "x", "results": {"format": "xunit"}, "isolation": "none"}, "'junit', 'ctrf', 'tap' or 'reward'"),
        ({"command": "x", "results": {"format": "tap", "path": "../etc/x"}, "isolation": "none"}, "results.path"),
        ({"command": "x {report}", "isolation": "none"}, "with judge.results only"),
    ]
    for data, why in bad:
        with pytest.raises(ValidationError) as e:
            Judge.model_validate(data)
        assert why in str(e.value), (data, str(e.value))
