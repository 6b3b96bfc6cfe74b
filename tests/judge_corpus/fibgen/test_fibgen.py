import itertools
import types

import pytest

from fibgen import chunked, fib, running_total, take


def test_first_ten():
    assert list(itertools.islice(fib(), 10)) == [0, 1, 1, 2, 3, 5, 8, 13, 21, 34]


def test_is_a_generator():
    g = fib()
    assert isinstance(g, types.GeneratorType)
    assert next(g) == 0 and next(g) == 1


def test_chunked_range():
    assert list(chunked(range(7), 3)) == [[0, 1, 2], [3, 4, 5], [6]]


def test_running_total_of_a_test_generator():
    assert list(running_total(x for x in [1, 2, 3])) == [1, 3, 6]


def test_take_stops():
    g = take(2, iter([1]))
    assert next(g) == 1
    with pytest.raises(StopIteration):
        next(g)


def test_for_loop_and_sum():
    assert sum(take(5, fib())) == 7
    assert [x for x in take(3, fib())] == [0, 1, 1]
