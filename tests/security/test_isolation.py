"""Process isolation (issue 11, item 1): what crosses the data-only boundary, both backends.

A copy of the calc fixture whose static tests use what ordinary judge tests use:
lambdas and generators passed into the submission, the submission's own exception
classes under ``pytest.raises``, objects returned as handles, and a callback the
submission tries to climb out of (to the test module's globals).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from hostile import calc, make_in_process
from test_hostile_submissions import assert_nothing_left_behind, judge_files

STATIC = """
import pytest

import calc
from calc import BadInput, Box, add, apply, mul, sub

SECRET = "judge-side secret"


def test_add_small():
    assert add(2, 3) == 5


def test_add_negative():
    assert add(-2, -3) == -5


def test_sub():
    assert sub(10, 4) == 6


def test_mul():
    assert mul(6, 7) == 42


def test_callback_lambda_and_generator():
    assert apply(lambda v: v * 2, [1, 2, 3]) == [2, 4, 6]
    assert apply(str, (x for x in range(3))) == ["0", "1", "2"]


def test_submission_exception_class():
    with pytest.raises(BadInput, match="negative"):
        calc.check(-1)
    with pytest.raises(ValueError):
        calc.check(-1)


def test_handles():
    b = Box(3)
    # Two of the submission's objects compare by its own __eq__ (as in one interpreter);
    # against a value the test made, its "yes" is not believed (an isolation notice).
    assert b.value == 3 and len(b) == 3 and b == b and b == Box(3) and b != 3


def test_callback_cannot_reach_globals():
    assert calc.climb(lambda: 1) == "refused"
"""

SUBMISSION = calc(
    "    return a * b",
    prelude="""
class BadInput(ValueError):
    pass


def check(x):
    if x < 0:
        raise BadInput(f"negative: {x}")
    return x


def apply(f, items):
    return [f(i) for i in items]


class Box:
    def __init__(self, v):
        self.value = v

    def __len__(self):
        return self.value

    def __eq__(self, other):
        return True


def climb(cb):
    for name in ("__globals__", "__code__", "__closure__", "func_globals"):
        try:
            getattr(cb, name)
            return "reached " + name
        except Exception:
            pass
    return "refused"
""",
)


@pytest.fixture
def rich_calc(tmp_path):
    from arena.challenge import load_challenge

    FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "calc"  # as tests/security/conftest.py

    root = tmp_path / "calc-rich"
    shutil.copytree(FIXTURE, root)
    (root / "tests/static/test_calc_static.py").write_text(STATIC)
    return load_challenge(root)


async def test_ordinary_tests_work_across_the_boundary(backend, rich_calc, tmp_path):
    result, _, work = await judge_files(tmp_path, backend, rich_calc, {"calc.py": SUBMISSION})
    assert result.infra_error is None and result.isolation == "process"
    bad = {t.id: t.message for t in result.tests if t.outcome != "passed"}
    assert bad == {}, bad
    got = [(n.test, n.construct) for n in result.isolation_notices]
    assert got == [("static/test_calc_static.py::test_handles", "eq-test-value")], got
    assert any(line.startswith("isolation: static/test_calc_static.py::test_handles:") for line in result.notices)
    assert_nothing_left_behind(work)


async def test_in_process_mode_is_marked(backend, calc_in_process, tmp_path):
    result, _, work = await judge_files(tmp_path, backend, calc_in_process, {"calc.py": calc("    return a * b")})
    assert result.isolation == "in_process"
    assert all(t.outcome == "passed" for t in result.tests)
    assert '"isolation":"in_process"' in result.model_dump_json()
    assert_nothing_left_behind(work)


# Suites and processes: the process that imported the submission at collection serves the
# first suite (its state goes on within the suite), every later suite gets a fresh one
# (module state starts over); in-process, one interpreter keeps it across all suites. The
# untimed coverage pass runs everything in one process: its coverage still counts what
# each suite ran (a line only the hidden suite reaches is covered).
COUNTER = calc(
    "    return a * b",
    prelude="""
N = [0]


def bump():
    N[0] += 1
    return N[0]


def only_hidden(x):
    if x > 0:
        return "positive"
    return "not positive"
""",
)

SUITES = {
    "static/test_calc_static.py": "from calc import bump\n\n\ndef test_first():\n    assert bump() == 1\n\n\n"
    "def test_second_in_the_same_process():\n    assert bump() == 2\n",
    "hidden/test_calc_hidden.py": "import calc\n\n\ndef test_hidden_fresh():\n"
    "    assert calc.only_hidden(1) == 'positive'\n    assert calc.bump() == 1\n",
    "adversarial/test_calc_adversarial.py": "from calc import bump\n\n\ndef test_edge_fresh():\n"
    "    assert bump() == 1\n",
}


def _counter_challenge(root: Path, in_process: bool):
    from arena.challenge import load_challenge

    shutil.copytree(Path(__file__).resolve().parents[1] / "fixtures" / "calc", root)
    for rel, text in SUITES.items():
        (root / "tests" / rel).write_text(text)
    if in_process:
        make_in_process(root)
    return load_challenge(root)


async def test_each_later_suite_gets_a_fresh_process(backend, tmp_path):
    ch = _counter_challenge(tmp_path / "calc-counter", in_process=False)
    result, _, work = await judge_files(tmp_path, backend, ch, {"calc.py": COUNTER})
    assert result.infra_error is None and result.isolation == "process"
    outcomes = {t.name: t.outcome for t in result.tests}
    assert outcomes == {
        "test_first": "passed",
        "test_second_in_the_same_process": "passed",
        "test_hidden_fresh": "passed",
        "test_edge_fresh": "passed",
    }, result.tests
    isolated_coverage = result.coverage
    assert_nothing_left_behind(work)
    # The same tests in one interpreter: the counter goes on across suites.
    ch_in = _counter_challenge(tmp_path / "calc-counter-in", in_process=True)
    result, _, work = await judge_files(tmp_path, backend, ch_in, {"calc.py": COUNTER}, name="in")
    outcomes = {t.name: t.outcome for t in result.tests}
    assert outcomes["test_first"] == outcomes["test_second_in_the_same_process"] == "passed"
    assert outcomes["test_hidden_fresh"] == outcomes["test_edge_fresh"] == "failed", result.tests
    # The coverage pass measured in one process what one interpreter measures: the same
    # lines and branches, the hidden suite's call included (10 of 14 statements; 8 without).
    assert isolated_coverage is not None and isolated_coverage == result.coverage, (isolated_coverage, result.coverage)
    assert isolated_coverage.line_percent == 71.4, isolated_coverage


# alone (scripts/test.sh): assert_nothing_left_behind looks for hostile processes machine-wide
# (GHOSTILE in a command line): beside another xdist worker's hostile runs it saw theirs.
pytestmark = pytest.mark.alone
