"""JUnit parsing is safe against hostile XML; tests map to ids, suites and categories."""

import os
from pathlib import Path

import pytest

from arena.judge.verdict.expected import Matcher, category_for, collect_expected, functions_in
from arena.judge.verdict.junit import MAX_MESSAGE_CHARS, JUnitError, parse_junit, read_report
from arena.judge.verdict.verdict import Progress, assemble, parse_progress

BOMB = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol9 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
]>
<testsuites><testsuite><testcase classname="1.static.test_a" name="test_x">&lol9;</testcase></testsuite></testsuites>"""

GOOD = b"""<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" tests="4">
<testcase classname="1.static.test_a" name="test_ok" time="0.01"/>
<testcase classname="1.static.test_a" name="test_bad"><failure message="assert 1 == 2">long text</failure></testcase>
<testcase classname="1.hidden.sub.test_b.TestK" name="test_p[1-2]"><error message="boom"/></testcase>
<testcase classname="1.static.test_a" name="test_skip"><skipped message="nope"/></testcase>
</testsuite></testsuites>"""


def test_entity_bomb_is_refused_without_expanding():
    with pytest.raises(JUnitError, match="DOCTYPE or ENTITY"):
        parse_junit(BOMB)


def test_doctype_in_another_encoding_is_still_refused():
    data = BOMB.replace(b'<?xml version="1.0"?>', b'<?xml version="1.0" encoding="utf-16"?>')
    data = data.decode().encode("utf-16")
    with pytest.raises(JUnitError, match="refused"):
        parse_junit(data)


def test_external_entity_is_refused():
    data = b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><testsuite>&e;</testsuite>'
    with pytest.raises(JUnitError):
        parse_junit(data)


def test_oversized_and_malformed_reports_are_refused():
    with pytest.raises(JUnitError, match="cap"):
        parse_junit(b"<testsuite>" + b" " * (9 * 1024 * 1024) + b"</testsuite>")
    with pytest.raises(JUnitError, match="well-formed"):
        parse_junit(b"<testsuite><testcase></testsuite>")
    with pytest.raises(JUnitError, match="no <testsuite>"):
        parse_junit(b"<html/>")


def test_outcomes_and_capped_messages():
    cases = parse_junit(GOOD)
    assert [(c.name, c.outcome) for c in cases] == [
        ("test_ok", "passed"),
        ("test_bad", "failed"),
        ("test_p[1-2]", "error"),
        ("test_skip", "skipped"),
    ]
    assert cases[1].message == "assert 1 == 2"
    long = GOOD.replace(b"assert 1 == 2", b"x" * 5000)
    assert len(parse_junit(long)[1].message) <= MAX_MESSAGE_CHARS + 3


def test_read_report_does_not_follow_links(tmp_path):
    (tmp_path / "secret").write_text("<testsuite/>")
    os.symlink(tmp_path / "secret", tmp_path / "report.xml")
    assert read_report(str(tmp_path / "report.xml")) is None
    assert read_report(str(tmp_path / "absent.xml")) is None


def _layout(tmp_path: Path):
    static = tmp_path / "static"
    hidden = tmp_path / "hidden"
    (hidden / "sub").mkdir(parents=True)
    static.mkdir()
    (static / "test_a.py").write_text(
        "import pytest\n"
        "def test_ok(): pass\n"
        "def test_bad(): pass\n"
        "def test_skip(): pass\n"
        "def test_missing(): pass\n"
        "def helper(): pass\n"
    )
    (hidden / "sub" / "test_b.py").write_text(
        "import pytest\n"
        "class TestK:\n"
        "    @pytest.mark.parametrize('a,b', [(1, 2), (3, 4), (5, 6)])\n"
        "    def test_p(self, a, b): pass\n"
        "class Helper:\n"
        "    def test_not_collected(self): pass\n"
    )
    return {1: {"static": [static], "hidden": [hidden]}}


def test_expected_ids_from_ast(tmp_path):
    exp, errors = collect_expected(_layout(tmp_path))
    assert errors == []
    assert [e.base for e in exp] == [
        "static/test_a.py::test_ok",
        "static/test_a.py::test_bad",
        "static/test_a.py::test_skip",
        "static/test_a.py::test_missing",
        "hidden/sub/test_b.py::TestK::test_p",
    ]
    assert exp[-1].count == 3 and exp[0].count == 1
    assert exp[-1].ids == ("1-2", "3-4", "5-6") and exp[0].ids == ("",)
    assert functions_in("def test_x(): pass\nasync def test_y(): pass\n")[1][1] == "test_y"


def test_missing_ids_fail_and_categories_apply(tmp_path):
    exp, _ = collect_expected(_layout(tmp_path))
    v = assemble(
        exp,
        Matcher(exp),
        junit=parse_junit(GOOD),
        progress=Progress(),
        timed_out=False,
        timeout_s=10,
        categories={"test_b*": "edge", "test_p": "param"},
    )
    by = {t.id: t for t in v.tests}
    assert by["static/test_a.py::test_ok"].outcome == "passed"
    assert by["static/test_a.py::test_bad"].outcome == "failed"
    assert by["static/test_a.py::test_bad"].category == "edge"
    assert by["static/test_a.py::test_missing"].outcome == "failed"
    assert "not reported" in by["static/test_a.py::test_missing"].message
    assert by["hidden/sub/test_b.py::TestK::test_p[1-2]"].outcome == "error"
    assert by["hidden/sub/test_b.py::TestK::test_p[1-2]"].suite == "hidden"
    assert by["hidden/sub/test_b.py::TestK::test_p[1-2]"].category == "param"
    # 3 parametrised cases expected, 1 reported: 2 failures stand in for the others
    assert {t.name for t in v.tests if "test_p" in t.id and t.outcome == "failed"} == {"test_p[3-4]", "test_p[5-6]"}
    assert len(v.tests) == 7  # 4 in test_a.py, 3 cases of test_p


def test_progress_log_outvotes_a_rewritten_report(tmp_path):
    exp, _ = collect_expected(_layout(tmp_path))
    progress = parse_progress(
        b'{"event": "start"}\n'
        b'{"event": "test", "nodeid": "1/static/test_a.py::test_ok", "outcome": "failed", "message": "x"}\n'
        b"not json\n"
    )
    v = assemble(
        exp, Matcher(exp), junit=parse_junit(GOOD), progress=progress, timed_out=False, timeout_s=10, categories={}
    )
    by = {t.id: t for t in v.tests}
    assert by["static/test_a.py::test_ok"].outcome == "failed"
    assert any(f.check == "judge.report_mismatch" for f in v.integrity)


def test_timeout_message_counts_completed(tmp_path):
    exp, _ = collect_expected(_layout(tmp_path))
    progress = parse_progress(
        b'{"event": "start"}\n'
        b'{"event": "test", "nodeid": "1/static/test_a.py::test_ok", "outcome": "passed"}\n'
        b'{"event": "test", "nodeid": "1/static/test_a.py::test_bad", "outcome": "failed", "message": "m"}\n'
    )
    v = assemble(exp, Matcher(exp), junit=None, progress=progress, timed_out=True, timeout_s=7, categories={})
    assert v.notices == ["Execution timed out after 7 seconds. 2/7 tests completed."]
    assert sum(t.outcome == "passed" for t in v.tests) == 1


def test_category_globs_match_the_function_name():
    cats = {"test_edge_*": "edge_case", "test_regression_*": "regression"}
    assert category_for("test_edge_empty[3]", cats) == "edge_case"
    assert category_for("test_plain", cats) is None


PARAMS = """
import pytest

@pytest.mark.parametrize("x", [1, -2, 0.5, "a b", None, True, b"x", (1, 2)])
def test_one(x): pass

@pytest.mark.parametrize("a,b", [(1, 2), pytest.param(3, 4, id="custom"), pytest.param(5, 6)])
def test_two(a, b): pass

@pytest.mark.parametrize("y", ["p", "q"])
@pytest.mark.parametrize("z", [7, 8])
def test_stacked(y, z): pass

@pytest.mark.parametrize("w", [1, 2], ids=["first", "second"])
def test_ids(w): pass

@pytest.mark.parametrize("c", [3])
class TestK:
    @pytest.mark.parametrize("d", [4, 5])
    def test_m(self, c, d): pass

VALUES = [1, 2]

@pytest.mark.parametrize("v", VALUES)
def test_unknown(v): pass
"""


def test_static_ids_match_what_pytest_collects(tmp_path):
    import subprocess
    import sys

    (tmp_path / "test_params.py").write_text(PARAMS)
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "test_params.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    collected = {ln.split("::", 1)[1] for ln in out.stdout.splitlines() if "::" in ln}
    ours = set()
    for classes, func, ids in functions_in(PARAMS):
        if ids is None:
            continue
        for i in ids:
            ours.add("::".join([*classes, f"{func}[{i}]" if i else func]))
    assert len(collected) == 8 + 3 + 4 + 2 + 2 + 2
    assert ours == {c for c in collected if "test_unknown" not in c}


def test_judge_side_paths_are_scrubbed_from_what_agents_may_see():
    from arena.judge.verdict.verdict import scrub_paths

    text = (
        "ImportError while importing test module '/judge/tests/1/hidden/test_secret_name.py'\n"
        "in /judge/tests/1/static/test_a.py and 2/adversarial/sub/test_b.py, 3/static/test_c.py"
    )
    out = scrub_paths(text)
    assert "test_secret_name" not in out and "test_b" not in out and "/judge" not in out
    assert "<a hidden test module>" in out and "<a adversarial test module>" in out
    assert "static/test_a.py" in out and "static/phase3/test_c.py" in out
    progress = parse_progress(
        b'{"event": "start"}\n{"event": "collect_error", "nodeid": '
        b'"1/hidden/test_secret_name.py", "message": "E   ImportError: nope"}\n'
    )
    assert progress.collect_errors == ["<a hidden test module>: ImportError: nope"]


def test_signed_progress_only_lines_of_the_trusted_plugin_count(tmp_path, monkeypatch):
    """The trusted plugin's own signing (trusted.PLUGIN) and the host's check agree; a
    line the submission's process appends (no key) is ignored, and a report entry with
    no signed line of its own is failed even when nothing signed was logged at all."""
    from arena.judge.in_sandbox import trusted

    monkeypatch.setenv("GAUNTLET_JUDGE_OUT", str(tmp_path))
    ns: dict = {}
    exec(compile(trusted.PLUGIN, "gauntlet_judge_plugin", "exec"), ns)
    ns["KEY"] = "k" * 32
    ns["_emit"](event="start")
    ns["_emit"](event="test", nodeid="1/static/test_a.py::test_bad", when="call", outcome="failed", message="m")
    os.close(ns["_fd"])
    log = (tmp_path / "progress.jsonl").read_bytes()
    log += b'{"event": "test", "nodeid": "1/static/test_a.py::test_ok", "outcome": "passed", "mac": "00"}\n'
    exp, _ = collect_expected(_layout(tmp_path / "t"))
    signed = parse_progress(log, "k" * 32)
    assert signed.started and signed.unsigned == 1 and [t[1] for t in signed.tests] == ["failed"]
    v = assemble(
        exp, Matcher(exp), junit=parse_junit(GOOD), progress=signed, timed_out=False, timeout_s=10, categories={}
    )
    by = {t.id: t for t in v.tests}
    assert by["static/test_a.py::test_ok"].outcome == "failed"  # only the (forged) report says passed
    assert {f.check for f in v.integrity} >= {"judge.forged_progress", "judge.report_mismatch"}
    nothing = parse_progress(b"", "k" * 32)  # the log removed: the report alone passes nothing
    v = assemble(
        exp, Matcher(exp), junit=parse_junit(GOOD), progress=nothing, timed_out=False, timeout_s=10, categories={}
    )
    assert not any(t.outcome == "passed" for t in v.tests)
    assert parse_progress(log).tests[-1][1] == "passed"  # unkeyed (another runner): as before
