"""Visible tests. Run them with: python -m pytest -q"""
import pytest

from taskstore import NotFound, TaskStore, ValidationError


def test_create_and_get():
    store = TaskStore()
    task = store.create("Write report", tags=["work"])
    assert store.get(task.id).title == "Write report"


def test_get_missing_raises_not_found():
    with pytest.raises(NotFound):
        TaskStore().get(99)


def test_blank_title_rejected():
    with pytest.raises(ValidationError):
        TaskStore().create("   ")


def test_update_status():
    store = TaskStore()
    task = store.create("Ship it")
    assert store.update(task.id, status="done").status == "done"


def test_search_is_case_insensitive():
    store = TaskStore()
    store.create("Fix the Login page")
    store.create("Water plants")
    assert [t.title for t in store.search("login")] == ["Fix the Login page"]
