import pytest

from ctxtools import Timer, opened, suppressing


def test_suppress_matching():
    with suppressing(ValueError, KeyError):
        raise ValueError("swallowed")


def test_other_exceptions_propagate():
    with pytest.raises(TypeError, match="boom"):
        with suppressing(ValueError):
            raise TypeError("boom")


def test_subclass_is_suppressed():
    with suppressing(LookupError):
        {}["missing"]


def test_generator_manager_closes():
    log = []
    with opened(log.append) as r:
        assert r == "resource"
    assert log == ["open", "close"]


def test_generator_manager_closes_on_error():
    log = []
    with pytest.raises(RuntimeError):
        with opened(log.append):
            raise RuntimeError("inside")
    assert log == ["open", "close"]


def test_timer_with_injected_clock():
    ticks = iter([10.0, 12.5])
    with Timer(clock=lambda: next(ticks)) as t:
        pass
    assert t.elapsed == 2.5
