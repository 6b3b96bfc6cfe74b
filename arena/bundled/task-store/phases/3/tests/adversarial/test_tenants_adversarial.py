"""Phase 3 adversarial tests: tenants probing each other."""
import threading

import pytest

import taskstore as ts


def test_adv_delete_of_another_tenants_id_is_not_found():
    s = ts.TaskStore()
    s.tenant("victim").create("secret")
    with pytest.raises(ts.NotFound):
        s.tenant("attacker").delete(1)
    assert s.tenant("victim").get(1).title == "secret"


def test_adv_versions_do_not_leak_between_tenants():
    s = ts.TaskStore()
    s.tenant("a").create("x")
    s.tenant("a").update(1, title="y")
    s.tenant("b").create("z")
    with pytest.raises(ts.ConflictError) as info:
        s.tenant("b").update(1, expected_version=2, title="w")
    assert info.value.actual == 1


def test_adv_search_never_crosses_tenants():
    s = ts.TaskStore()
    for i in range(20):
        s.tenant(f"t{i}").create(f"shared word {i}", tags=["common"])
    for i in range(20):
        found = s.tenant(f"t{i}").search("shared tag:common")
        assert [t.title for t in found] == [f"shared word {i}"]


def test_adv_concurrent_tenants_get_their_own_id_sequences():
    s = ts.TaskStore()
    barrier = threading.Barrier(6)

    def work(i):
        view = s.tenant(f"t{i}")
        barrier.wait()
        for k in range(30):
            view.create(f"{i}-{k}")

    threads = [threading.Thread(target=work, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    for i in range(6):
        tasks = s.tenant(f"t{i}").list()
        assert [t.id for t in tasks] == list(range(1, 31))
        assert all(t.title.startswith(f"{i}-") for t in tasks)


def test_adv_tenant_view_cannot_be_rebound():
    s = ts.TaskStore()
    view = s.tenant("a")
    s.tenant("b").create("b's task")
    with pytest.raises(ts.NotFound):
        view.get(1)
