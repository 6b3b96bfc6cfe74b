"""Phase 1 static tests: CRUD, list, search, validation."""
import pytest

from taskstore import NotFound, TaskStore, ValidationError


def seeded():
    """A store with sample tasks (a plain function, so a broken store fails tests, not setup)."""
    s = TaskStore()
    s.create("Fix the Login page", description="users cannot sign in", tags=["Bug", "web"])
    s.create("Water plants", status="doing", tags=["home"])
    s.create("Write quarterly report", description="numbers for Q3", tags=["work"])
    return s


def test_crud_create_returns_task():
    task = TaskStore().create("Buy milk", description="2 litres", tags=["home"])
    assert (task.id, task.title, task.description, task.status) == (1, "Buy milk", "2 litres", "todo")


def test_crud_ids_increase():
    s = TaskStore()
    assert [s.create(f"t{i}").id for i in range(3)] == [1, 2, 3]


def test_crud_get_returns_created_task():
    store = seeded()
    assert store.get(2).title == "Water plants"


def test_crud_get_missing_raises_not_found():
    store = seeded()
    with pytest.raises(NotFound):
        store.get(42)


def test_crud_update_changes_fields():
    store = seeded()
    task = store.update(1, status="done", title="Fix the login page")
    assert (task.status, task.title) == ("done", "Fix the login page")
    assert store.get(1).status == "done"


def test_crud_delete_then_get_raises():
    store = seeded()
    store.delete(2)
    with pytest.raises(NotFound):
        store.get(2)


def test_list_all_in_id_order():
    store = seeded()
    assert [t.id for t in store.list()] == [1, 2, 3]


def test_list_by_status():
    store = seeded()
    assert [t.id for t in store.list(status="doing")] == [2]


def test_list_by_tag():
    store = seeded()
    assert [t.id for t in store.list(tag="work")] == [3]


def test_search_case_insensitive():
    store = seeded()
    assert [t.id for t in store.search("LOGIN")] == [1]


def test_search_matches_description():
    store = seeded()
    assert [t.id for t in store.search("q3")] == [3]


def test_search_all_words_must_match():
    store = seeded()
    assert [t.id for t in store.search("fix page")] == [1]
    assert store.search("fix plants") == []


def test_validation_blank_title_rejected():
    with pytest.raises(ValidationError):
        TaskStore().create("   ")


def test_validation_unknown_status_rejected():
    with pytest.raises(ValidationError):
        TaskStore().create("x", status="someday")


def test_tags_normalised():
    store = seeded()
    assert store.get(1).tags == ("bug", "web")
