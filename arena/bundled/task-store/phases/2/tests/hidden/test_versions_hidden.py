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
