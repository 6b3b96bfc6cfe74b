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


def test_adv_tenant_name_with_trailing_newline_rejected():
    with pytest.raises(ts.ValidationError):
        ts.TaskStore().tenant("acme\n")


def test_adv_tenant_name_non_ascii_rejected():
    s = ts.TaskStore()
    for bad in ("acmé", "ａcme", "acme\u0661"):
        with pytest.raises(ts.ValidationError):
            s.tenant(bad)


def test_adv_tenant_name_must_be_a_string():
    with pytest.raises(ts.ValidationError):
        ts.TaskStore().tenant(42)


def test_adv_foreign_id_with_a_version_is_not_found_not_conflict():
    s = ts.TaskStore()
    s.tenant("a").create("x")
    s.tenant("a").update(1, title="y")
    for call in (lambda v: v.update(1, expected_version=1, title="z"), lambda v: v.delete(1, expected_version=1)):
        with pytest.raises(ts.NotFound):
            call(s.tenant("b"))
    assert s.tenant("a").get(1).title == "y"


def test_adv_probe_of_a_foreign_id_looks_like_a_missing_id():
    s = ts.TaskStore()
    s.tenant("a").create("x")
    probes = []
    for exists_elsewhere in (True, False):
        if not exists_elsewhere:
            s.tenant("a").delete(1)
        with pytest.raises(ts.NotFound) as info:
            s.tenant("b").get(1)
        probes.append((type(info.value), str(info.value), info.value.args))
    assert probes[0] == probes[1]


def test_adv_tenant_writers_race_on_one_version():
    class SlowVersion(int):
        def __ne__(self, other):
            threading.Event().wait(0.003)
            return int(self) != other

        def __eq__(self, other):
            threading.Event().wait(0.003)
            return int(self) == other

        __hash__ = int.__hash__

    for _round in range(3):
        s = ts.TaskStore()
        view = s.tenant("acme")
        view.create("start")
        barrier = threading.Barrier(6)
        wins = []

        def write(i):
            barrier.wait()
            try:
                view.update(1, expected_version=SlowVersion(1), title=f"w{i}")
                wins.append(i)
            except ts.ConflictError:
                pass

        threads = [threading.Thread(target=write, args=(i,)) for i in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(20)
        assert len(wins) == 1 and view.get(1).version == 2, wins


def test_adv_task_cannot_be_moved_to_another_tenant():
    s = ts.TaskStore()
    s.tenant("a").create("x")
    with pytest.raises(ts.ValidationError):
        s.tenant("a").update(1, tenant="b")
    assert s.tenant("a").get(1).tenant == "a"
    with pytest.raises(ts.NotFound):
        s.tenant("b").get(1)


def test_adv_named_tenants_never_show_through_the_store():
    s = ts.TaskStore()
    s.tenant("a").create("secret plan", tags=["x"])
    with pytest.raises(ts.NotFound):
        s.get(1)
    assert s.list() == [] and s.search("") == [] and s.search("tag:x") == []


def test_adv_tenant_name_with_surrounding_space_rejected():
    s = ts.TaskStore()
    for bad in (" acme", "acme ", "ac me"):
        with pytest.raises(ts.ValidationError):
            s.tenant(bad)


def test_adv_default_tenant_view_deletes_from_the_store():
    s = ts.TaskStore()
    s.create("x")
    s.tenant("default").delete(1)
    with pytest.raises(ts.NotFound):
        s.get(1)


def test_adv_each_tenant_versions_its_own_task_one():
    s = ts.TaskStore()
    views = [s.tenant(n) for n in ("a", "b", "c")]
    for v in views:
        v.create("x")
    for k, v in enumerate(views):
        for _ in range(k):
            v.update(1, expected_version=v.get(1).version, title="y")
    assert [v.get(1).version for v in views] == [1, 2, 3]
