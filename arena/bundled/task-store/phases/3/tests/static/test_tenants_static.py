"""Phase 3 static tests: tenants, on top of phase 1's CRUD/search and phase 2's versions."""
import pytest

import taskstore as ts


def seeded():
    """A store with sample tasks (a plain function, so a broken store fails tests, not setup)."""
    s = ts.TaskStore()
    acme = s.tenant("acme")
    acme.create("Invoice Globex", tags=["billing"])
    acme.create("Hire engineer")
    globex = s.tenant("globex")
    globex.create("Invoice Acme", description="overdue", tags=["billing"])
    return s


def test_tenant_sees_only_its_own_tasks():
    store = seeded()
    assert [t.title for t in store.tenant("acme").list()] == ["Invoice Globex", "Hire engineer"]
    assert [t.title for t in store.tenant("globex").list()] == ["Invoice Acme"]


def test_tenant_ids_start_at_one():
    store = seeded()
    assert store.tenant("globex").get(1).title == "Invoice Acme"
    assert store.tenant("acme").get(1).title == "Invoice Globex"
    assert store.tenant("initech").create("first").id == 1


def test_tenant_cannot_get_another_tenants_task():
    store = seeded()
    with pytest.raises(ts.NotFound):
        store.tenant("globex").get(2)


def test_tenant_search_is_isolated():
    store = seeded()
    assert [t.title for t in store.tenant("acme").search("invoice")] == ["Invoice Globex"]
    assert [t.title for t in store.tenant("globex").search("tag:billing")] == ["Invoice Acme"]


def test_tenant_update_uses_versions():
    store = seeded()
    acme = store.tenant("acme")
    assert acme.update(1, expected_version=1, status="done").version == 2
    with pytest.raises(ts.ConflictError):
        acme.update(1, expected_version=1, status="doing")
    assert store.tenant("globex").get(1).version == 1


def test_default_store_api_still_works():
    store = seeded()
    task = store.create("Personal errand")
    assert task.id == 1
    assert [t.title for t in store.list()] == ["Personal errand"]
    assert store.search("invoice") == []


def test_tenant_name_validated():
    s = ts.TaskStore()
    for bad in ("", "Acme", "a b", "../x", None):
        with pytest.raises(ts.ValidationError):
            s.tenant(bad)


def test_tenants_lists_tenants_with_tasks():
    store = seeded()
    store.tenant("empty")
    assert store.tenants() == ["acme", "globex"]


def test_task_knows_its_tenant():
    store = seeded()
    assert store.tenant("acme").get(1).tenant == "acme"
