"""Feedback documents (CONTRACT §4) disclosed from full judge results, per format."""

from datetime import datetime, timezone

import pytest

from arena import rules
from arena.formats import FORMATS
from arena.results import Build, Coverage, JudgeResult, Lint, TestResult
from arena.rules import disclose, regressions, timeout_notice

AT = datetime(2026, 3, 27, 14, 32, tzinfo=timezone.utc)
DIFF = {"files_changed": 2, "lines_added": 14, "lines_removed": 6, "similarity": 0.9, "changed_files": ["a.py"]}


def t(name, suite="static", outcome="passed", message="", category=None, phase=1):
    return TestResult(
        id=f"{suite}/test_x.py::{name}",
        name=name,
        suite=suite,
        outcome=outcome,
        message=message,
        category=category,
        phase=phase,
    )


def result(n=1, tests=None, **kw):
    tests = (
        tests
        if tests is not None
        else [
            t("test_sorts"),
            t("test_single", outcome="failed", message="AssertionError: expected [1], got []", category="edge_case"),
            t("test_equal", outcome="failed", message="TypeError: unorderable"),
            t("test_hidden_big", "hidden"),
            t("test_hidden_neg", "hidden", "failed", "AssertionError: secret detail"),
            t("test_adv_clock", "adversarial", "failed", "AssertionError: clock went back"),
            t("test_adv_users", "adversarial"),
        ]
    )
    kw.setdefault("coverage", Coverage(line_percent=78.4))
    return JudgeResult(
        submission=n, snapshot_hash="h", tests=tests, lint=Lint(warnings=1, issues=["line 3: unused import"]), **kw
    )


def doc(fmt, n, res=None, **kw):
    kw.setdefault("diff", DIFF if n > 1 else None)
    kw.setdefault("regressions", [] if n > 1 else None)
    return disclose(FORMATS[fmt], n, res or result(n), at=AT, elapsed_s=412.5, **kw)


def test_sprint_gives_names_pass_fail_and_categories_but_no_messages():
    d = doc("sprint", 1)
    assert d["submission"] == 1 and d["iteration"] == 0
    assert d["at"] == "2026-03-27T14:32:00Z" and d["elapsed_s"] == 412.5
    assert d["build"] == {"status": "success", "errors": [], "warnings": []}
    tests = d["tests"]
    assert (tests["total"], tests["passed"], tests["failed"], tests["skipped"]) == (3, 1, 2, 0)
    assert tests["failures"] == [
        {"name": "test_single", "category": "edge_case"},
        {"name": "test_equal", "category": "TypeError"},
    ]
    assert [r["name"] for r in tests["results"]] == ["test_sorts", "test_single", "test_equal"]
    assert [r["outcome"] for r in tests["results"]] == ["passed", "failed", "failed"]
    assert "message" not in str(d)  # no failure message anywhere
    assert d["hidden"] == {"total": 2, "passed": 1}
    for withheld in ("lint", "coverage", "adversarial", "diff", "regressions", "score_preview", "phase", "trajectory"):
        assert withheld not in d, withheld


def test_sprint_second_submission_discloses_the_same_fields():
    assert set(doc("sprint", 2)) == set(doc("sprint", 1))


def test_standard_first_submission_has_messages_lint_and_coverage_only():
    d = doc("standard", 1)
    assert d["tests"]["failures"][0] == {
        "name": "test_single",
        "message": "AssertionError: expected [1], got []",
        "category": "edge_case",
    }
    assert d["lint"]["warnings"] == 1 and d["coverage"] == {"line_percent": 78.4, "uncovered_files": []}
    assert d["hidden"] == {"total": 2, "passed": 1}
    for withheld in ("adversarial", "diff", "regressions", "score_preview", "phase", "trajectory"):
        assert withheld not in d, withheld
    assert "secret detail" not in str(d) and "test_hidden_neg" not in str(d)


def test_standard_second_adds_diff_and_regressions():
    d = doc("standard", 2, regressions=["test_sorts"])
    assert d["diff"] == {"files_changed": 2, "lines_added": 14, "lines_removed": 6}
    assert d["regressions"] == ["test_sorts"]
    assert "adversarial" not in d and "score_preview" not in d


def test_standard_adversarial_from_the_third_submission():
    assert "adversarial" not in doc("standard", 2)
    d = doc("standard", 3)
    assert d["adversarial"] == {
        "total": 2,
        "passed": 1,
        "failures": [
            {"name": "test_adv_clock", "message": "AssertionError: clock went back", "category": "AssertionError"}
        ],
    }
    assert "score_preview" not in doc("standard", 3, score_preview={"objective": 1.0})


def test_standard_score_preview_on_the_fourth():
    preview = {"objective": 61.0, "process": 70.0, "strategy": 55.0, "integrity": 100.0}
    assert doc("standard", 4, score_preview=preview)["score_preview"] == preview


def test_marathon_discloses_everything_with_phase_and_trajectory():
    phase = {"current": 2, "completed": [1], "hint": "Phase 3 needs tenants."}
    d = doc("marathon", 1, phase=phase, trajectory=[40, 55.5], score_preview={"x": 1})
    assert d["phase"] == phase and d["trajectory"] == [40.0, 55.5]
    assert "adversarial" in d and "lint" in d and "coverage" in d
    assert "score_preview" not in d  # a Standard 4th-submission feature only


def test_withheld_or_absent_fields_are_left_out_not_emptied():
    res = result(tests=[t("test_a")], coverage=None)
    d = disclose(FORMATS["standard"], 3, res, at="2026-01-01T00:00:00Z", elapsed_s=1)
    assert "coverage" not in d and "hidden" not in d and "adversarial" not in d
    assert "diff" not in d and "regressions" not in d and "notices" not in d


def test_regressions_of_hidden_tests_never_leak_their_names():
    d = doc("standard", 2, regressions=["test_sorts", "test_hidden_big", "test_adv_users"])
    assert d["regressions"] == ["test_sorts"]
    assert doc("standard", 3, regressions=["test_adv_users", "test_hidden_big"])["regressions"] == ["test_adv_users"]


def test_regressions_are_tests_that_passed_before_and_fail_now():
    prev = result(1, [t("test_a"), t("test_b"), t("test_c", outcome="failed"), t("test_h", "hidden")])
    cur = result(2, [t("test_a", outcome="failed"), t("test_b"), t("test_c"), t("test_h", "hidden", "error")])
    assert regressions(prev, cur) == ["test_a", "test_h"]
    assert regressions(prev, cur, suites=["static"]) == ["test_a"]
    assert regressions(None, cur) == []
    gone = result(2, [t("test_b"), t("test_c")])  # test_a did not run (timeout): a regression
    assert regressions(prev, gone, suites=["static"]) == ["test_a"]


def test_identical_and_timeout_notices():
    res = result(
        timed_out=True,
        duration_s=60.2,
        tests=[
            t("test_a"),
            t("test_b", outcome="failed", message="AssertionError"),
            t("test_c", outcome="failed", message="not run: execution timed out after 60 seconds"),
        ],
    )
    d = doc("standard", 1, res=res, notices=[rules.IDENTICAL_NOTICE], timeout_s=60)
    assert d["notices"] == [
        "Submission identical to previous iteration.",
        "Execution timed out after 60 seconds. 2/3 tests completed.",
    ]
    assert {"name": "test_c", "message": "not run: execution timed out after 60 seconds", "category": "not_run"} in d[
        "tests"
    ]["failures"]


def test_timeout_notice_from_the_judge_is_not_repeated():
    judge_notice = timeout_notice(60, 1, 2)
    res = result(
        timed_out=True, notices=[judge_notice], tests=[t("test_a"), t("test_b", outcome="failed", message="not run: x")]
    )
    assert doc("sprint", 1, res=res)["notices"] == [judge_notice]


def test_build_failure_is_disclosed_in_every_format():
    res = result(tests=[], build=Build(status="failure", errors=["SyntaxError: invalid syntax (sort.py, line 3)"]))
    for fmt in FORMATS:
        d = doc(fmt, 1, res=res)
        assert d["build"]["status"] == "failure" and d["tests"]["total"] == 0


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_every_document_has_the_contract_header(fmt):
    d = doc(fmt, 1)
    assert list(d)[:4] == ["submission", "iteration", "at", "elapsed_s"]
