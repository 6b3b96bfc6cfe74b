"""Phase 1 adversarial tests: aliasing, atomicity, hostile input."""
import dataclasses

import pytest

from taskstore import TaskStore, ValidationError


def test_adv_returned_task_cannot_be_mutated():
    s = TaskStore()
    task = s.create("a")
    with pytest.raises(dataclasses.FrozenInstanceError):
        task.title = "hacked"
    assert s.get(1).title == "a"


def test_adv_caller_list_of_tags_is_not_aliased():
    s = TaskStore()
    tags = ["x"]
    s.create("a", tags=tags)
    tags.append("y")
    assert s.get(1).tags == ("x",)


def test_adv_search_treats_regex_characters_literally():
    s = TaskStore()
    s.create("abc")
    s.create("a.c (draft)")
    assert [t.id for t in s.search("a.c")] == [2]
    assert [t.id for t in s.search("(draft")] == [2]


def test_adv_failed_update_changes_nothing():
    s = TaskStore()
    s.create("a")
    with pytest.raises(ValidationError):
        s.update(1, title="b", status="bogus")
    assert (s.get(1).title, s.get(1).status) == ("a", "todo")


def test_adv_title_too_long_rejected():
    with pytest.raises(ValidationError):
        TaskStore().create("x" * 201)


def test_adv_tags_must_be_strings():
    with pytest.raises(ValidationError):
        TaskStore().create("a", tags=[None])
    with pytest.raises(ValidationError):
        TaskStore().create("a", tags="not-a-list")


def test_adv_held_task_is_a_snapshot():
    s = TaskStore()
    held = s.create("a", tags=["x"])
    s.update(1, title="b", tags=["y"])
    assert (held.title, held.tags) == ("a", ("x",))


def test_adv_update_cannot_change_the_id():
    s = TaskStore()
    s.create("a")
    with pytest.raises(ValidationError):
        s.update(1, id=7)
    assert s.get(1).id == 1


def test_adv_update_tags_given_as_a_string_rejected():
    s = TaskStore()
    s.create("a", tags=["x"])
    with pytest.raises(ValidationError):
        s.update(1, tags="urgent")
    assert s.get(1).tags == ("x",)


def test_adv_blank_tag_rejected():
    with pytest.raises(ValidationError):
        TaskStore().create("a", tags=["ok", "   "])


def test_adv_title_must_be_a_string():
    with pytest.raises(ValidationError):
        TaskStore().create(12345)


def test_adv_tags_from_a_one_shot_iterator():
    s = TaskStore()
    s.create("a", tags=(t for t in ["B", "a", "b"]))
    assert s.get(1).tags == ("a", "b")


def test_adv_search_splits_on_any_whitespace():
    s = TaskStore()
    s.create("Fix the login page")
    s.create("Fix the sink")
    assert [t.id for t in s.search(" login\tfix\n")] == [1]


def test_adv_search_plain_terms_ignore_tags():
    s = TaskStore()
    s.create("Water plants", tags=["urgent"])
    assert s.search("urgent") == []


def test_adv_search_folds_case_beyond_ascii():
    s = TaskStore()
    s.create("Straße reparieren")
    s.create("Strasbourg trip")
    assert [t.id for t in s.search("STRASSE")] == [1]


def test_adv_too_long_title_update_changes_nothing():
    s = TaskStore()
    s.create("a")
    with pytest.raises(ValidationError):
        s.update(1, title="x" * 201)
    assert s.get(1).title == "a"


def test_adv_status_must_match_exactly():
    s = TaskStore()
    for bad in ("DONE", " done", "Todo"):
        with pytest.raises(ValidationError):
            s.create("a", status=bad)


def test_adv_unhashable_status_is_a_validation_error():
    with pytest.raises(ValidationError):
        TaskStore().create("a", status=["todo"])


def test_adv_unknown_field_rejects_the_whole_update():
    s = TaskStore()
    s.create("a")
    with pytest.raises(ValidationError):
        s.update(1, title="b", colour="red")
    assert s.get(1).title == "a"


def test_adv_stores_do_not_share_state():
    first, second = TaskStore(), TaskStore()
    first.create("a")
    assert second.list() == [] and second.create("b").id == 1


def test_adv_delete_twice_is_not_found():
    from taskstore import NotFound

    s = TaskStore()
    s.create("a")
    s.delete(1)
    with pytest.raises(NotFound):
        s.delete(1)
