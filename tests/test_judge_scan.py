"""Tamper scan, built-in lint and the trusted command rewrite."""

import os
from pathlib import Path

from arena.judge.run.command import BOOTSTRAP, FORCED_PYTEST_OPTIONS, build_argv
from arena.judge.static.lint import lint_snapshot, lint_source
from arena.judge.verdict.snapshot import take_snapshot
from arena.judge.verdict.tamper import scan


def _snap(tmp_path: Path, files: dict[str, str], name="ws"):
    ws = tmp_path / name
    ws.mkdir()
    for rel, text in files.items():
        p = ws / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return ws, take_snapshot(ws, tmp_path / "snaps")


def _checks(findings):
    return sorted({f.check for f in findings})


def test_clean_submission_has_no_findings(tmp_path):
    _, s = _snap(
        tmp_path,
        {
            "calc.py": "def add(a, b):\n    return a + b\n",
            "test_calc.py": "import pytest\nfrom calc import add\ndef test_add():\n    assert add(1, 2) == 3\n",
        },
    )
    assert scan(s) == []


def test_each_tampering_vector_is_found(tmp_path):
    ws, s = _snap(
        tmp_path,
        {
            "conftest.py": "def pytest_collection_modifyitems(items): items.clear()\n",
            "pytest.ini": "[pytest]\naddopts = -k nothing\n",
            "setup.cfg": "[tool:pytest]\naddopts = -x\n",
            "pyproject.toml": "[tool.pytest.ini_options]\n",
            "tox.ini": "[tox]\n",  # no pytest section: not a finding
            "sitecustomize.py": "",
            "usercustomize.py": "",
            "evil.pth": "import os\n",
            "a.py": "import atexit\n",
            "b.py": "import os\nos._exit(0)\n",
            "c.py": "import _pytest.runner\n",
            "d.py": "import sys\nsys.modules['pytest'].fail = None\n",
            "e.py": "open('/judge/tests/1/hidden/test_h.py').read()\n",
            "f.py": "REPORT = 'junit.xml'\n",
            "test_sort_hidden.py": "x = 1\n",
            "tests/hidden/test_x.py": "",
            "pytest.py": "",
            "g.py": "import pytest\n",
        },
    )
    os.symlink("/judge/tests", ws / "peek")
    s = take_snapshot(ws, tmp_path / "snaps")
    f = scan(s, judge_test_names={"test_sort_hidden.py"})
    details = "\n".join(x.detail for x in f)
    assert _checks(f) == [
        "tamper.conftest",
        "tamper.exit_tricks",
        "tamper.judge_paths",
        "tamper.runner_config",
        "tamper.runner_internals",
        "tamper.shadowing",
        "tamper.site_hook",
        "tamper.symlink",
    ]
    for needle in (
        "conftest.py",
        "pytest.ini",
        "setup.cfg",
        "pyproject.toml",
        "sitecustomize.py",
        "usercustomize.py",
        "evil.pth",
        "a.py:1",
        "b.py:2",
        "c.py:1",
        "d.py:2",
        "e.py:1",
        "f.py:1",
        "g.py:1",
        "test_sort_hidden.py",
        "tests/hidden/test_x.py",
        "peek",
    ):
        assert needle in details, needle
    assert "tox.ini" not in details


def test_files_identical_to_the_starter_are_not_findings(tmp_path):
    starter = tmp_path / "starter"
    starter.mkdir()
    (starter / "conftest.py").write_text("import pytest\n")
    _, s = _snap(tmp_path, {"conftest.py": "import pytest\n"})
    assert scan(s, starter=starter) == []
    _, s2 = _snap(tmp_path, {"conftest.py": "import pytest\nimport atexit\n"}, name="ws2")
    assert "tamper.conftest" in _checks(scan(s2, starter=starter))


def test_lint_finds_syntax_errors_and_warnings(tmp_path):
    _, s = _snap(
        tmp_path,
        {
            "ok.py": "import os\n\ndef f():\n    return os.getcwd()\n",
            "bad.py": "def f(:\n",
            "warn.py": "import sys, json\nfrom x import *\ndef g(a=[]):\n    try:\n        pass\n    except:\n        pass\n",
        },
    )
    lint = lint_snapshot(s)
    assert lint.errors == 1 and "bad.py:1: syntax error" in lint.issues[0]
    text = "\n".join(lint.issues)
    for needle in (
        "unused import 'sys'",
        "unused import 'json'",
        "bare except",
        "wildcard import",
        "mutable default argument in g()",
    ):
        assert needle in text
    assert "ok.py" not in text
    assert lint.warnings == 5
    assert lint_source("__init__.py", "from .a import b\n") == ([], [])


def test_pytest_commands_get_the_trusted_options_last():
    argv, is_pytest = build_argv(
        "python -m pytest -q -c evil.ini --junitxml={report} {tests}",
        ["/judge/tests/1/static", "/judge/tests/1/hidden"],
        "/judge-out/r.xml",
    )
    assert is_pytest
    assert argv[:4] == BOOTSTRAP and argv[-len(FORCED_PYTEST_OPTIONS) :] == FORCED_PYTEST_OPTIONS
    assert "--junitxml=/judge-out/r.xml" in argv
    assert argv.index("/judge/tests/1/static") + 1 == argv.index("/judge/tests/1/hidden")
    # the trusted -c comes after the author's, so it wins
    assert max(i for i, a in enumerate(argv) if a == "-c") > argv.index("evil.ini")
    for form in ("pytest {tests} --junitxml {report}", "python3 -B -m pytest {tests} --junitxml={report}"):
        assert build_argv(form, ["/t"])[1]


def test_other_runners_run_as_written_under_sh():
    argv, is_pytest = build_argv("cargo test -- --format junit > {report}", ["/judge/tests/1/static"], "/o/r.xml")
    assert not is_pytest and argv[:2] == ["sh", "-c"] and argv[2].endswith("> /o/r.xml")


def test_names_used_only_in_string_annotations_count_as_used():
    src = "from typing import Deque, Dict\nx: 'Deque[int]' = None\n__all__ = ['y']\n"
    assert lint_source("m.py", src) == ([], ["m.py:1: unused import 'Dict'"])
