"""Phase 2 adversarial tests: real threads racing on the same task.

The values handed to the store are slow to compare or iterate, which holds each thread
inside whatever check-then-act window an implementation has, so a store without proper
locking loses deterministically instead of once in a while.
"""
import threading

import taskstore as ts

PAUSE = 0.003


def pause():
    threading.Event().wait(PAUSE)


class SlowVersion(int):
    """An expected_version whose comparisons take a moment."""

    def _slow(op):
        def method(self, other):
            pause()
            return getattr(int, op)(self, other)
        return method

    __eq__ = _slow("__eq__")
    __ne__ = _slow("__ne__")
    __lt__ = _slow("__lt__")
    __le__ = _slow("__le__")
    __gt__ = _slow("__gt__")
    __ge__ = _slow("__ge__")
    __hash__ = int.__hash__


class SlowTags:
    """A tags collection that takes a moment to iterate."""

    def __init__(self, tags):
        self.tags = list(tags)

    def __iter__(self):
        pause()
        return iter(self.tags)

    def __len__(self):
        return len(self.tags)


def race(n, fn):
    barrier = threading.Barrier(n)
    results = [None] * n

    def run(i):
        barrier.wait()
        try:
            results[i] = fn(i)
        except ts.ConflictError as exc:
            results[i] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    return results


def test_adv_same_version_exactly_one_writer_wins():
    for _round in range(5):
        s = ts.TaskStore()
        s.create("start")
        results = race(8, lambda i: s.update(1, expected_version=SlowVersion(1), title=f"w{i}"))
        winners = [r for r in results if not isinstance(r, ts.ConflictError)]
        assert len(winners) == 1, f"{len(winners)} writers all won version 1"
        assert s.get(1).version == 2


def test_adv_no_lost_updates_with_retry_loops():
    s = ts.TaskStore()
    s.create("0")

    def bump(_i):
        for _ in range(10):
            while True:
                task = s.get(1)
                try:
                    s.update(1, expected_version=SlowVersion(task.version), title=str(int(task.title) + 1))
                    break
                except ts.ConflictError:
                    continue

    race(4, bump)
    assert s.get(1).title == "40"
    assert s.get(1).version == 41


def test_adv_concurrent_creates_get_unique_ids():
    s = ts.TaskStore()
    race(8, lambda i: [s.create(f"t{i}-{k}", tags=SlowTags(["x"])) for k in range(5)])
    ids = [t.id for t in s.list()]
    assert sorted(ids) == list(range(1, 41))
