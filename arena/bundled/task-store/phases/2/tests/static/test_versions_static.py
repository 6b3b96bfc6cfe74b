"""Phase 2 static tests: versions and optimistic concurrency on top of phase 1's API."""
import pytest

import taskstore as ts


def test_version_starts_at_one():
    assert ts.TaskStore().create("a").version == 1


def test_version_increments_on_each_update():
    s = ts.TaskStore()
    s.create("a")
    s.update(1, title="b")
    assert s.update(1, status="doing").version == 3
    assert s.get(1).version == 3


def test_update_with_current_version_succeeds():
    s = ts.TaskStore()
    s.create("a")
    assert s.update(1, expected_version=1, title="b").title == "b"


def test_conflict_on_stale_version():
    s = ts.TaskStore()
    s.create("a")
    s.update(1, title="b")
    with pytest.raises(ts.ConflictError):
        s.update(1, expected_version=1, title="c")


def test_conflict_error_reports_versions():
    s = ts.TaskStore()
    s.create("a")
    s.update(1, title="b")
    with pytest.raises(ts.ConflictError) as info:
        s.update(1, expected_version=1, title="c")
    assert (info.value.task_id, info.value.expected, info.value.actual) == (1, 1, 2)


def test_delete_with_stale_version_conflicts():
    s = ts.TaskStore()
    s.create("a")
    s.update(1, title="b")
    with pytest.raises(ts.ConflictError):
        s.delete(1, expected_version=1)
    s.delete(1, expected_version=2)
    with pytest.raises(ts.NotFound):
        s.get(1)


def test_search_and_list_see_latest_version():
    s = ts.TaskStore()
    s.create("draft plan", tags=["work"])
    s.update(1, expected_version=1, title="final plan", status="done")
    assert [t.version for t in s.search("final")] == [2]
    assert s.search("draft") == []
    assert [t.id for t in s.list(status="done", tag="work")] == [1]
