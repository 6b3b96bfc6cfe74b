"""Phase 2 hidden tests."""
import pytest

import taskstore as ts


def test_failed_validation_does_not_bump_version():
    s = ts.TaskStore()
    s.create("a")
    with pytest.raises(ts.ValidationError):
        s.update(1, status="bogus")
    assert s.get(1).version == 1


def test_conflict_leaves_task_unchanged():
    s = ts.TaskStore()
    s.create("a")
    s.update(1, title="b")
    with pytest.raises(ts.ConflictError):
        s.update(1, expected_version=1, title="c")
    assert (s.get(1).title, s.get(1).version) == ("b", 2)


def test_stale_version_on_missing_task_is_not_found():
    with pytest.raises(ts.NotFound):
        ts.TaskStore().update(5, expected_version=1, title="x")


def test_conflict_error_is_a_task_store_error():
    assert issubclass(ts.ConflictError, ts.TaskStoreError)


def test_delete_with_current_version_succeeds():
    s = ts.TaskStore()
    s.create("a")
    s.update(1, title="b")
    s.delete(1, expected_version=2)
    with pytest.raises(ts.NotFound):
        s.get(1)


def test_conflict_on_delete_reports_versions_and_keeps_task():
    s = ts.TaskStore()
    s.create("a")
    s.update(1, title="b")
    with pytest.raises(ts.ConflictError) as info:
        s.delete(1, expected_version=1)
    assert (info.value.task_id, info.value.expected, info.value.actual) == (1, 1, 2)
    assert s.get(1).title == "b"


def test_version_zero_is_a_real_expectation():
    s = ts.TaskStore()
    s.create("a")
    with pytest.raises(ts.ConflictError):
        s.update(1, expected_version=0, title="b")
    assert s.get(1).title == "a"


def test_version_is_not_a_field_callers_can_set():
    s = ts.TaskStore()
    s.create("a")
    with pytest.raises(ts.ValidationError):
        s.update(1, version=10)
    assert s.get(1).version == 1


def test_version_of_held_task_does_not_move():
    s = ts.TaskStore()
    held = s.create("a")
    s.update(1, title="b")
    assert (held.version, s.get(1).version) == (1, 2)


def test_versions_are_per_task():
    s = ts.TaskStore()
    s.create("a")
    s.create("b")
    s.update(1, title="c")
    s.update(1, title="d")
    assert [t.version for t in s.list()] == [3, 1]


def test_failed_unknown_field_update_does_not_bump_version():
    s = ts.TaskStore()
    s.create("a")
    with pytest.raises(ts.ValidationError):
        s.update(1, colour="red")
    assert s.get(1).version == 1


def test_delete_of_missing_task_with_version_is_not_found():
    with pytest.raises(ts.NotFound):
        ts.TaskStore().delete(9, expected_version=1)


def test_explicit_none_version_means_unconditional():
    s = ts.TaskStore()
    s.create("a")
    assert s.update(1, expected_version=None, title="b").version == 2
