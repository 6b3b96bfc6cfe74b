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
