import logging

from greeter import banner, greet, warn


def test_greet_prints(capsys):
    greet("Ada")
    assert capsys.readouterr().out == "Hello, Ada!\n"


def test_greet_returns_none(capsys):
    assert greet("Bob") is None
    out, err = capsys.readouterr()
    assert out == "Hello, Bob!\n" and err == ""


def test_warn_goes_to_stderr(capsys):
    warn("careful")
    captured = capsys.readouterr()
    assert captured.err == "warning: careful\n"
    assert captured.out == ""


def test_banner_lines(capsys):
    banner(["a", "bb"])
    assert capsys.readouterr().out.splitlines() == ["+----+", "| a  |", "| bb |", "+----+"]


def test_logs_a_record(caplog):
    with caplog.at_level(logging.INFO, logger="greeter"):
        greet("Cy")
    assert [r.getMessage() for r in caplog.records] == ["greeted Cy"]
