"""Visible tests for sorter.py. Run them with: python -m pytest -q"""
from sorter import is_sorted, median, merge_sorted, sort


def test_sorts_integers():
    assert sort([5, 2, 9, 1, 5, 6, 0, 3]) == [0, 1, 2, 3, 5, 5, 6, 9]


def test_empty_input():
    assert sort([]) == []


def test_already_sorted_and_reversed():
    assert sort(range(10)) == list(range(10))
    assert sort(range(9, -1, -1)) == list(range(10))


def test_single_element():
    assert sort([42]) == [42]


def test_all_equal_keys_keep_input_order():
    records = [(7, "a"), (7, "b"), (7, "c"), (7, "d"), (7, "e")]
    assert sort(records, key=lambda r: r[0]) == records


def test_reverse_keeps_equal_keys_in_input_order():
    # This test used to expect ascending[::-1], which reverses the order of equal
    # keys. The function is documented as stable for reverse=True (like sorted),
    # so the test was wrong, not the function.
    records = [(2, "a"), (1, "b"), (2, "c"), (3, "d"), (1, "e"), (2, "f")]
    expected = [(3, "d"), (2, "a"), (2, "c"), (2, "f"), (1, "b"), (1, "e")]
    assert sort(records, key=lambda r: r[0], reverse=True) == expected


def test_is_sorted():
    assert is_sorted([1, 2, 2, 3])
    assert not is_sorted([2, 1])


def test_merge_sorted():
    assert merge_sorted([1, 4, 9], [2, 3, 10]) == [1, 2, 3, 4, 9, 10]


def test_median_odd():
    assert median([9, 1, 5]) == 5
