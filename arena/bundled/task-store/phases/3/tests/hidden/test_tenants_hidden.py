"""Phase 3 hidden tests."""
import pytest

import taskstore as ts


def test_tenant_delete_is_isolated():
    s = ts.TaskStore()
    s.tenant("a").create("x")
    s.tenant("b").create("y")
    s.tenant("a").delete(1)
    assert s.tenant("b").get(1).title == "y"


def test_two_views_of_one_tenant_share_data():
    s = ts.TaskStore()
    s.tenant("a").create("x")
    assert s.tenant("a").get(1).title == "x"


def test_default_tenant_is_named_default():
    s = ts.TaskStore()
    s.create("x")
    assert s.tenant("default").get(1).title == "x"
    assert "default" in s.tenants()


def test_update_of_another_tenants_id_is_not_found():
    s = ts.TaskStore()
    s.tenant("a").create("x")
    with pytest.raises(ts.NotFound):
        s.tenant("b").update(1, title="stolen")
    assert s.tenant("a").get(1).title == "x"


def test_tenant_list_filters_still_work():
    s = ts.TaskStore()
    a = s.tenant("a")
    a.create("x", status="done", tags=["k"])
    a.create("y", tags=["k"])
    assert [t.title for t in a.list(status="done", tag="k")] == ["x"]
