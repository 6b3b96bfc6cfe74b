import pytest

import registry
from registry import count, register, registered


@pytest.fixture(autouse=True)
def fresh():
    registry.reset()
    yield
    registry.reset()


def test_register_one():
    register("a")
    assert count() == 1


def test_starts_empty_again():
    assert count() == 0
    assert registered() == []


def test_register_many_sorted():
    for n in ("c", "a", "b"):
        register(n)
    assert registered() == ["a", "b", "c"]


def test_duplicates_refused():
    register("a")
    with pytest.raises(KeyError):
        register("a")


def test_module_global_replaced(monkeypatch):
    monkeypatch.setattr(registry, "LIMIT", 2)
    register("x")
    register("y")
    with pytest.raises(OverflowError):
        register("z")


def test_limit_restored():
    assert registry.LIMIT == 100
    for i in range(3):
        register(str(i))
    assert count() == 3
