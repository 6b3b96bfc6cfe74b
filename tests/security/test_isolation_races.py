"""What ``judge.isolation: in_process`` was once kept for, under process isolation, both
backends (issue 11: the bundled rate-limiter and task-store now run isolated).

- a test's threads racing on one submission object race in the submission's process
  (each test thread has its own channel and a thread of its own in the worker): an
  unlocked check-then-act loses, a locked one wins exactly once;
- a test's ``tracemalloc`` measures the submission's process (where its objects live):
  a keeper of every user grows, a bounded one does not; code that clears or stops
  tracing inside the measured call voids the reading instead of passing;
- handles the test lets go of are released in the worker (a loop over fresh objects
  does not grow the submission's memory);
- the submission's exceptions keep what their ``__init__`` stored; a standard-library
  exception (``dataclasses.FrozenInstanceError``) is the trusted side's own class.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from hostile import calc
from test_hostile_submissions import assert_nothing_left_behind, judge_files

STATIC = '''
import dataclasses
import threading
import tracemalloc

import pytest

from store import Conflict, Counter, Keeper, Tamper


class Slow(int):
    """An expected value whose comparison takes a moment (holds a racing thread)."""

    def __ne__(self, other):
        threading.Event().wait(0.003)
        return int(self) != other

    __hash__ = int.__hash__


def measure(fn):
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        fn()
        return tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()


def test_race_threads_one_winner():
    for _ in range(3):
        c = Counter()
        barrier = threading.Barrier(6)
        wins = []

        def write(i):
            barrier.wait()
            try:
                c.bump(expected=Slow(0))
                wins.append(i)
            except Conflict:
                pass

        threads = [threading.Thread(target=write, args=(i,)) for i in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(20)
        assert len(wins) == 1 and c.value == 1, (wins, c.value)


def test_exception_attributes_and_stdlib_classes():
    c = Counter()
    with pytest.raises(Conflict) as info:
        c.bump(expected=5)
    assert (info.value.expected, info.value.actual) == (5, 0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.record().value = 3


def test_memory_bounded_keeper():
    k = Keeper()
    grown = measure(lambda: [k.see(f"user-{i}") for i in range(600)])
    assert grown < 30_000, grown


def test_memory_handles_let_go():
    c = Counter()
    grown = measure(lambda: [c.record().value for _ in range(600)])
    assert grown < 30_000, grown


def test_memory_tracing_not_stoppable_inside():
    t = Tamper()
    grown = measure(t.work)
    assert grown < 30_000, grown
'''

HONEST = """
import collections
import dataclasses
import threading


class Conflict(Exception):
    def __init__(self, expected, actual):
        super().__init__(f"expected {expected}, at {actual}")
        self.expected, self.actual = expected, actual


@dataclasses.dataclass(frozen=True)
class Record:
    value: int


class Counter:
    def __init__(self):
        self.value = 0
        self._lock = threading.Lock()

    def bump(self, expected):
        with self._lock:
            if expected != self.value:
                raise Conflict(expected, self.value)
            self.value += 1

    def record(self):
        return Record(self.value)


class Keeper:
    def __init__(self):
        self.seen = collections.OrderedDict()

    def see(self, user):
        self.seen[user] = True
        while len(self.seen) > 50:
            self.seen.popitem(last=False)


class Tamper:
    def work(self):
        return None
"""

# The same API with each flaw the tests are there to catch.
FLAWED = (
    HONEST.replace(
        """        with self._lock:
            if expected != self.value:
                raise Conflict(expected, self.value)
            self.value += 1""",
        """        if expected != self.value:
            raise Conflict(expected, self.value)
        self.value += 1""",
    )
    .replace(
        """        while len(self.seen) > 50:
            self.seen.popitem(last=False)""",
        """        pass""",
    )
    .replace(
        """    def work(self):
        return None""",
        """    def work(self):
        import tracemalloc
        self.junk = [bytes(1000) for _ in range(300)]
        tracemalloc.clear_traces()  # what a forged reading needs: the growth forgotten""",
    )
)

SUITE = "static/test_calc_static.py::"
ALWAYS = {SUITE + "test_exception_attributes_and_stdlib_classes", SUITE + "test_memory_handles_let_go"}
CAUGHT = {
    SUITE + "test_race_threads_one_winner",
    SUITE + "test_memory_bounded_keeper",
    SUITE + "test_memory_tracing_not_stoppable_inside",
}


@pytest.fixture(scope="module")
def race_calc(tmp_path_factory):
    from arena.challenge import load_challenge

    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "calc"
    root = tmp_path_factory.mktemp("calc-races") / "calc"
    shutil.copytree(fixture, root)
    (root / "tests/static/test_calc_static.py").write_text(STATIC)
    y = root / "challenge.yaml"
    y.write_text(y.read_text().replace("  timeout: 6s\n", "  timeout: 40s\n"))
    return load_challenge(root)


def outcomes(result) -> dict:
    return {t.id: (t.outcome, t.message) for t in result.tests if t.id.startswith(SUITE)}


async def test_honest_store_passes_every_race_and_memory_test(backend, race_calc, tmp_path):
    result, _, work = await judge_files(
        tmp_path, backend, race_calc, {"calc.py": calc("    return a * b"), "store.py": HONEST}
    )
    assert result.infra_error is None and result.isolation == "process"
    got = outcomes(result)
    assert set(got) == ALWAYS | CAUGHT
    assert {k: v for k, v in got.items() if v[0] != "passed"} == {}
    assert_nothing_left_behind(work)


async def test_flawed_store_is_caught(backend, race_calc, tmp_path):
    result, _, work = await judge_files(
        tmp_path, backend, race_calc, {"calc.py": calc("    return a * b"), "store.py": FLAWED}
    )
    assert result.infra_error is None and result.isolation == "process"
    got = outcomes(result)
    assert {k for k, v in got.items() if v[0] == "passed"} == ALWAYS, got
    assert "void" in got[SUITE + "test_memory_tracing_not_stoppable_inside"][1]
    assert_nothing_left_behind(work)


# alone (scripts/test.sh): assert_nothing_left_behind looks for hostile processes machine-wide
# (GHOSTILE in a command line): beside another xdist worker's hostile runs it saw theirs.
pytestmark = pytest.mark.alone
