"""Seed 001's per-iteration telemetry record, derived from events."""

from __future__ import annotations

from eventkit import Attempt, passing

from arena.scoring.record import build_records


def _two_iterations() -> list:
    a = Attempt("standard")
    a.read("briefing.md", after=10).read("src/app.py", after=5)
    a.cmd("grep -rn add src", after=5).cmd("ls -la", after=1)
    a.edit("src/app.py", added=10, removed=2, after=20)
    a.edit("src/util.py", change="created", added=5, removed=0, after=5)
    a.run_tests(3, 1, after=5)
    a.submit(static=passing(4, {0, 1, 2}), files=["src/app.py", "src/util.py"], added=15, removed=2, at=100)
    # iteration 1: reads feedback, then breaks test 0 while fixing test 3
    a.read_feedback(after=40).read("src/app.py", after=5)
    a.edit("src/app.py", added=3, removed=3, after=45)
    a.run_tests(3, 1, after=5).run_tests(3, 1, after=5)
    a.submit(static=passing(4, {1, 2, 3}), files=["src/app.py"], added=3, removed=3, similarity=0.9, at=300)
    return a.finish()


def test_actions_changes_and_tests():
    r0, r1 = build_records(_two_iterations())
    assert (r0.iteration_number, r0.submission, r0.timestamp_start, r0.timestamp_submit) == (0, 1, 0.0, 100.0)
    assert (r0.file_reads, r0.file_edits, r0.test_runs, r0.search_operations, r0.other_tools) == (2, 2, 1, 1, 1)
    assert r0.tool_calls_total == 7
    assert (r0.files_changed, r0.files_created, r0.files_modified, r0.lines_added, r0.lines_removed) == (2, 1, 1, 15, 2)
    assert r0.pre is None and r0.post == {"passed": 3, "failed": 1, "total": 4}
    assert r0.time_before_first_edit_s == 41.0
    assert r0.read_before_edit and r0.tested_after_edit
    # iteration 1 starts when submission 1's feedback was delivered (judging took 5 s)
    assert r1.timestamp_start == 105.0 and r1.duration_seconds == 195.0
    assert r1.read_feedback and r1.time_before_first_edit_s == 90.0
    assert r1.pre == {"passed": 3, "failed": 1, "total": 4} and r1.post == {"passed": 3, "failed": 1, "total": 4}
    assert r1.tests_fixed == ["static/test_app.py::test_03"]
    assert r1.regressions == ["static/test_app.py::test_00"]
    assert r1.validation_runs == 2 and r1.similarity == 0.9
    assert r1.failure_messages_referenced == 1  # test_03 is in test_app.py; src/app.py was read
    d = r1.to_dict()
    assert d["test_results"]["regressions"] == 1 and d["score"]["delta"] == 0.0
    assert d["changes"]["net_lines_changed"] == 0 and d["feedback_analysis"]["read_feedback"] is True


def test_same_instant_events_belong_to_their_iteration():
    """Scripted agents edit, test and submit at one clock instant: windows follow log order."""
    a = Attempt("standard", judge_s=0.0)
    a.wait(100).read("src/app.py", after=0).edit("src/app.py", after=0).run_tests(1, 0, after=0)
    a.submit(static=passing(2, 1), at=100)
    a.wait(200).read("src/app.py", after=0).edit("src/app.py", after=0).run_tests(2, 0, after=0)
    a.submit(static=passing(2, 2), at=300)
    r0, r1 = build_records(a.finish())
    assert (r0.file_edits, r1.file_edits) == (1, 1)
    assert r1.time_before_first_edit_s == 200.0  # not 0: the edit at t=100 was iteration 0's
    assert r0.read_before_edit and r1.read_before_edit


def test_replaced_submission_is_not_an_iteration_boundary():
    a = Attempt("sprint", budget=2, time_limit_s=900)
    a.edit("src/app.py", after=50).submit(static=passing(2, 1), at=60)
    a.edit("src/app.py", after=5).submit(static=passing(2, 2), replaces=1, at=80)
    (r,) = build_records(a.finish())
    assert r.submission == 2 and r.file_edits == 2 and r.timestamp_start == 0.0
