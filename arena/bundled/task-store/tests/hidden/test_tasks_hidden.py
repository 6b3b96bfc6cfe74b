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


def test_update_normalises_tags():
    s = TaskStore()
    s.create("a")
    assert s.update(1, tags=[" Urgent", "urgent", "BUG"]).tags == ("bug", "urgent")
    assert s.get(1).tags == ("bug", "urgent")


def test_update_blank_title_rejected_and_nothing_changes():
    s = TaskStore()
    s.create("a")
    with pytest.raises(ValidationError):
        s.update(1, title="  ")
    assert s.get(1).title == "a"


def test_list_tag_filter_is_normalised_like_tags():
    s = TaskStore()
    s.create("a", tags=["Bug"])
    s.create("b")
    assert [t.id for t in s.list(tag=" BUG ")] == [1]


def test_search_tag_term_ignores_case():
    s = TaskStore()
    s.create("a", tags=["bug"])
    s.create("b", tags=["web"])
    assert [t.id for t in s.search("tag:BUG")] == [1]


def test_search_every_tag_term_must_match():
    s = TaskStore()
    s.create("a", tags=["bug", "web"])
    s.create("b", tags=["bug"])
    assert [t.id for t in s.search("tag:bug tag:web")] == [1]


def test_validation_description_must_be_a_string():
    with pytest.raises(ValidationError):
        TaskStore().create("a", description=None)


def test_validation_title_of_200_characters_is_accepted():
    assert len(TaskStore().create("x" * 200).title) == 200


def test_crud_failed_create_does_not_use_an_id():
    s = TaskStore()
    with pytest.raises(ValidationError):
        s.create("a", status="someday")
    assert s.create("b").id == 1


def test_crud_deleted_task_cannot_be_updated():
    s = TaskStore()
    s.create("a")
    s.delete(1)
    with pytest.raises(NotFound):
        s.update(1, title="b")


def test_update_description_validated():
    s = TaskStore()
    s.create("a", description="d")
    with pytest.raises(ValidationError):
        s.update(1, description=5)
    assert s.get(1).description == "d"


def test_tags_stored_sorted():
    assert TaskStore().create("x", tags=["b", "c", "a"]).tags == ("a", "b", "c")


def test_tags_none_rejected():
    with pytest.raises(ValidationError):
        TaskStore().create("x", tags=None)


def test_list_combines_status_and_tag():
    s = TaskStore()
    s.create("a", status="done", tags=["k"])
    s.create("b", status="done")
    s.create("c", tags=["k"])
    assert [t.id for t in s.list(status="done", tag="k")] == [1]
