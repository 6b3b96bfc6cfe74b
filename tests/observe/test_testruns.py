"""Test-run recognition and the plugin's report reader (no sandbox needed)."""

from __future__ import annotations

import json
import os

import pytest

from arena.observe.testruns import command_event, is_pytest, parse_pytest_summary, read_report


@pytest.mark.parametrize(
    "argv,expected",
    [
        (["pytest"], True),
        (["/usr/bin/pytest", "-q"], True),
        (["py.test", "tests"], True),
        (["python", "-m", "pytest"], True),
        (["python3", "-m", "pytest", "-x"], True),
        (["/usr/bin/python3.11", "-X", "dev", "-m", "pytest"], True),
        (["python3", "-mpytest"], True),
        (["python3", "script.py", "-m", "pytest"], False),
        (["python3", "-c", "import pytest"], False),
        (["python3", "-m", "pip"], False),
        (["cat", "pytest"], False),
        ([], False),
    ],
)
def test_is_pytest(argv, expected):
    assert is_pytest(argv) is expected


def test_parse_pytest_summary():
    assert parse_pytest_summary("....F\n=== 1 failed, 4 passed in 0.12s ===\n") == (4, 1)
    assert parse_pytest_summary("3 passed, 1 error in 1.00s") == (3, 1)
    assert parse_pytest_summary("2 passed, 1 skipped, 2 warnings in 0.5s\n") == (2, 0)
    assert parse_pytest_summary("no tests ran in 0.01s") == (0, 0)
    assert parse_pytest_summary("hello\n") is None


def test_report_reader_trusts_only_small_ints(tmp_path):
    (tmp_path / "7.json").write_text(json.dumps({"pid": 7, "start": 99, "passed": 3, "failed": 1, "errors": 1}))
    assert read_report(tmp_path, 7, 100) is None  # another run that had pid 7
    assert read_report(tmp_path, 7, 99) == {"start": 99, "passed": 3, "failed": 1, "errors": 1}
    assert not (tmp_path / "7.json").exists()  # consumed
    (tmp_path / "8.json").write_text(json.dumps({"start": 1, "passed": "3", "failed": 0, "errors": 0}))
    assert read_report(tmp_path, 8, 1) is None
    (tmp_path / "9.json").write_text("x" * 10000)
    assert read_report(tmp_path, 9, None) is None
    (tmp_path / "secret").write_text(json.dumps({"start": 1, "passed": 1, "failed": 0, "errors": 0}))
    os.symlink(tmp_path / "secret", tmp_path / "10.json")
    assert read_report(tmp_path, 10, 1) is None  # never followed
    os.mkfifo(tmp_path / "11.json")
    assert read_report(tmp_path, 11, 1) is None  # never blocks on a FIFO


def test_command_event_shape(tmp_path):
    (tmp_path / "5.json").write_text(json.dumps({"pid": 5, "start": 4, "passed": 2, "failed": 1, "errors": 0}))
    rec = {"argv": ["pytest", "-k", "a b"], "exit_code": 1, "duration_s": 0.5, "pid": 123, "nspid": 5, "start": 4}
    assert command_event(rec, tmp_path) == {
        "argv": ["pytest", "-k", "a b"],
        "command": "pytest -k 'a b'",
        "exit_code": 1,
        "duration_s": 0.5,
        "observed": True,
        "ran_tests": True,
        "passed": 2,
        "failed": 1,
        "pid": 123,
    }
