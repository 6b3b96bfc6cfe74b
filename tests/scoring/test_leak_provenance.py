"""Redaction by provenance (issue 12, item 3): a failure message is withheld only when it
quotes a judge-side code line that the agent's workspace does not contain; the agent's own
output (here a grep returning the wrong lines of the test's input) is never withheld and
never booked as tampering. Real files, a real snapshot."""

from __future__ import annotations

import textwrap

from arena.judge.verdict.snapshot import take_snapshot
from arena.judge.verdict.redact import Redactor, redact_result
from arena.results import JudgeResult, TestResult


def _texts(snap) -> list[str]:
    return [(snap.path / f).read_text() for f in snap.files if (snap.path / f).is_file()]


def _result(t: TestResult) -> JudgeResult:
    return JudgeResult(submission=1, snapshot_hash="x", tests=[t])


HIDDEN = textwrap.dedent('''
    from grep import grep

    LOG = """alpha connection refused at port 8080
    beta all good here today, nothing to see
    """


    def test_grep_finds_refusals():
        expected_refusals = [line for line in LOG.splitlines() if "refused" in line]
        assert grep("refused", LOG) == expected_refusals
''')
WRONG_OUTPUT = (
    "AssertionError: assert ['alpha connection refused at port 8080', "
    "'beta all good here today, nothing to see'] == ['alpha connection refused at port 8080']"
)


def _fixture(tmp_path):
    judge = tmp_path / "tests" / "hidden" / "test_grep_hidden.py"
    judge.parent.mkdir(parents=True)
    judge.write_text(HIDDEN)
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "grep.py").write_text("def grep(word, text):\n    return text.splitlines()\n")
    snap = take_snapshot(ws, tmp_path / "snaps")
    return judge, snap


def test_grep_style_message_quoting_agent_output_is_not_redacted(tmp_path):
    judge, snap = _fixture(tmp_path)
    red = Redactor.from_files([], [judge], _texts(snap))
    assert "alpha connection refused at port 8080" not in red.lines  # test data, not judge code
    t = TestResult(
        id="hidden/test_grep_hidden.py::test_grep_finds_refusals",
        name="test_grep_finds_refusals",
        suite="hidden",
        outcome="failed",
        message=WRONG_OUTPUT,
    )
    result = _result(t)
    assert redact_result(result, red) == [] and result.integrity == []  # no finding, no redaction
    assert t.message == WRONG_OUTPUT


def test_message_quoting_judge_code_is_redacted(tmp_path):
    judge, snap = _fixture(tmp_path)
    red = Redactor.from_files([], [judge], _texts(snap))
    code = 'expected_refusals = [line for line in LOG.splitlines() if "refused" in line]'
    assert code in red.lines
    t = TestResult(
        id="hidden/x::y",
        name="y",
        suite="hidden",
        outcome="failed",
        message=f"NameError in\n    {code}\nE   NameError: LOG",
    )
    result = _result(t)
    assert redact_result(result, red) == ["message of hidden/x::y"]
    assert code not in t.message and "withheld" in t.message
    # quoted verbatim (as pytest does for a failing assert): the judge protecting its tests
    assert [(f.severity, f.check) for f in result.integrity] == [("info", "judge.leak_redacted")]


def test_lines_the_workspace_holds_are_not_the_judges(tmp_path):
    judge, snap = _fixture(tmp_path)
    (snap.path / "copied.py").write_text(
        'expected_refusals = [line for line in LOG.splitlines() if "refused" in line]\n'
    )
    snap.files.append("copied.py")
    red = Redactor.from_files([], [judge], _texts(snap))
    assert not any(ln.startswith("expected_refusals =") for ln in red.lines)
    assert 'assert grep("refused", LOG) == expected_refusals' in red.lines  # not copied: still the judge's


def test_redaction_finding_costs_no_integrity():
    """The runner books a redaction as an info finding; Integrity charges info 0 points."""
    from eventkit import Attempt, passing

    from arena.scoring import judge_attempt

    a = Attempt("standard")
    a.wait(300).submit(
        static=passing(10, 8),
        integrity=[{"severity": "info", "check": "judge.leak_redacted", "detail": "1 failure message(s) withheld"}],
    )
    card = judge_attempt(a.finish())
    assert card.components["integrity"] == 100.0
