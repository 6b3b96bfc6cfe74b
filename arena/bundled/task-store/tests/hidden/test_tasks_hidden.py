"""Phase 1 hidden tests."""
import pytest

from taskstore import NotFound, TaskStore, ValidationError


def test_ids_not_reused_after_delete():
    s = TaskStore()
    s.create("a")
    s.create("b")
    s.delete(2)
    assert s.create("c").id == 3


def test_update_unknown_field_rejected():
    s = TaskStore()
    s.create("a")
    with pytest.raises(ValidationError):
        s.update(1, priority="high")


def test_update_missing_task_raises_not_found():
    with pytest.raises(NotFound):
        TaskStore().update(7, title="x")


def test_delete_missing_task_raises_not_found():
    with pytest.raises(NotFound):
        TaskStore().delete(7)


def test_search_tag_term():
    s = TaskStore()
    s.create("Call mum", tags=["home"])
    s.create("Call the bank", tags=["money"])
    assert [t.id for t in s.search("call tag:money")] == [2]


def test_search_blank_query_returns_everything():
    s = TaskStore()
    s.create("a")
    s.create("b")
    assert [t.id for t in s.search("   ")] == [1, 2]


def test_list_rejects_unknown_status():
    with pytest.raises(ValidationError):
        TaskStore().list(status="someday")


def test_duplicate_tags_collapse():
    assert TaskStore().create("x", tags=["A", "a", " a "]).tags == ("a",)
