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


def test_tenant_names_up_to_63_characters():
    s = ts.TaskStore()
    assert s.tenant("a" * 63).create("x").tenant == "a" * 63
    with pytest.raises(ts.ValidationError):
        s.tenant("a" * 64)


def test_tenant_names_may_start_with_a_digit_not_a_dash():
    s = ts.TaskStore()
    assert s.tenant("9lives").create("x").id == 1
    with pytest.raises(ts.ValidationError):
        s.tenant("-acme")


def test_default_tenant_view_and_store_share_one_sequence():
    s = ts.TaskStore()
    s.create("x")
    assert s.tenant("default").create("y").id == 2
    assert [t.title for t in s.list()] == ["x", "y"]


def test_task_created_on_the_store_belongs_to_default():
    assert ts.TaskStore().create("x").tenant == "default"


def test_tenants_drops_a_tenant_whose_tasks_are_gone():
    s = ts.TaskStore()
    s.tenant("a").create("x")
    s.tenant("b").create("y")
    s.tenant("a").delete(1)
    assert s.tenants() == ["b"]


def test_tenant_ids_are_never_reused_after_delete():
    s = ts.TaskStore()
    a = s.tenant("a")
    a.create("x")
    a.create("y")
    a.delete(2)
    assert a.create("z").id == 3


def test_tenants_are_sorted_and_include_default_with_tasks():
    s = ts.TaskStore()
    s.tenant("b").create("x")
    s.create("y")
    s.tenant("a").create("z")
    assert s.tenants() == ["a", "b", "default"]


def test_tenant_conflict_error_uses_the_tenant_id():
    s = ts.TaskStore()
    s.create("x")
    s.create("y")
    view = s.tenant("acme")
    view.create("z")
    view.update(1, title="w")
    with pytest.raises(ts.ConflictError) as info:
        view.update(1, expected_version=1, title="v")
    assert (info.value.task_id, info.value.expected, info.value.actual) == (1, 1, 2)


def test_tenant_view_validates_like_the_store():
    view = ts.TaskStore().tenant("acme")
    with pytest.raises(ts.ValidationError):
        view.create("  ")
    with pytest.raises(ts.ValidationError):
        view.list(status="someday")


def test_tenant_names_of_one_character():
    s = ts.TaskStore()
    assert s.tenant("a").create("x").id == 1
    assert s.tenant("0").create("y").id == 1


def test_tenant_ids_interleave_without_gaps():
    s = ts.TaskStore()
    a, b = s.tenant("a"), s.tenant("b")
    ids = [a.create("a1").id, b.create("b1").id, a.create("a2").id, b.create("b2").id]
    assert ids == [1, 1, 2, 2]
    assert [t.id for t in b.list()] == [1, 2]


def test_tenant_update_addresses_the_tenants_own_id():
    s = ts.TaskStore()
    s.tenant("a").create("a1")
    s.tenant("b").create("b1")
    assert s.tenant("b").update(1, title="b1 done").title == "b1 done"
    assert s.tenant("a").get(1).title == "a1"


def test_tenant_delete_addresses_the_tenants_own_id():
    s = ts.TaskStore()
    s.tenant("a").create("a1")
    s.tenant("b").create("b1")
    s.tenant("b").delete(1)
    assert [t.title for t in s.tenant("a").list()] == ["a1"]
    assert s.tenant("b").list() == []
