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

from hostile import calc
from test_hostile_submissions import assert_nothing_left_behind, judge_files

STATIC = '''
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
    assert b.value == 3 and len(b) == 3 and b == b and b != Box(3)


def test_callback_cannot_reach_globals():
    assert calc.climb(lambda: 1) == "refused"
'''

SUBMISSION = calc("    return a * b", prelude='''
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
''')


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
    assert_nothing_left_behind(work)


async def test_in_process_mode_is_marked(backend, calc_in_process, tmp_path):
    result, _, work = await judge_files(tmp_path, backend, calc_in_process,
                                        {"calc.py": calc("    return a * b")})
    assert result.isolation == "in_process"
    assert all(t.outcome == "passed" for t in result.tests)
    assert '"isolation":"in_process"' in result.model_dump_json()
    assert_nothing_left_behind(work)
