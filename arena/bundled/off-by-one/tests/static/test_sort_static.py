"""Judge-side static tests for sorter.py (names and categories are disclosed)."""
from sorter import is_sorted, median, merge_sorted, sort


def by_key(record):
    return record[0]


def test_basic_integers():
    assert sort([5, 2, 9, 1, 5, 6, 0, 3, 8, 7, 4]) == [0, 1, 2, 3, 4, 5, 5, 6, 7, 8, 9]


def test_basic_strings():
    assert sort(["pear", "apple", "fig", "banana"]) == ["apple", "banana", "fig", "pear"]


def test_basic_with_key():
    words = ["ccc", "a", "bb", "dddd"]
    assert sort(words, key=len) == ["a", "bb", "ccc", "dddd"]


def test_basic_reverse():
    assert sort([3, 1, 4, 1, 5, 9, 2, 6], reverse=True) == [9, 6, 5, 4, 3, 2, 1, 1]


def test_basic_does_not_mutate_input():
    data = [3, 2, 1, 5, 4]
    sort(data)
    assert data == [3, 2, 1, 5, 4]


def test_basic_accepts_any_iterable():
    assert sort(x % 7 for x in range(14)) == sorted(x % 7 for x in range(14))


def test_edge_empty():
    assert sort([]) == []


def test_edge_single_element():
    assert sort([42]) == [42]


def test_edge_single_element_reverse():
    assert sort(["only"], reverse=True) == ["only"]


def test_edge_two_elements():
    assert sort([2, 1]) == [1, 2]
    assert sort([1, 2]) == [1, 2]


def test_edge_all_equal_keys_keep_input_order():
    records = [(7, "a"), (7, "b"), (7, "c"), (7, "d"), (7, "e")]
    assert sort(records, key=by_key) == records


def test_edge_all_equal_values():
    assert sort([3, 3, 3, 3, 3, 3]) == [3, 3, 3, 3, 3, 3]


def test_stability_reverse_keeps_equal_keys_in_input_order():
    records = [(2, "a"), (1, "b"), (2, "c"), (3, "d"), (1, "e"), (2, "f")]
    expected = [(3, "d"), (2, "a"), (2, "c"), (2, "f"), (1, "b"), (1, "e")]
    assert sort(records, key=by_key, reverse=True) == expected


def test_stability_reverse_all_equal_keys_keep_input_order():
    records = [(5, "a"), (5, "b"), (5, "c"), (5, "d")]
    assert sort(records, key=by_key, reverse=True) == records


def test_stability_reverse_matches_builtin_sorted():
    records = [(i * 3 % 4, i) for i in range(30)]
    assert sort(records, key=by_key, reverse=True) == sorted(records, key=by_key, reverse=True)


def test_stability_matches_builtin_sorted():
    records = [(i * 7 % 5, i) for i in range(40)]
    assert sort(records, key=by_key) == sorted(records, key=by_key)


def test_api_is_sorted():
    assert is_sorted([])
    assert is_sorted([1, 1, 2])
    assert not is_sorted([2, 1])
    assert is_sorted([3, 2, 2], reverse=True)


def test_api_merge_sorted():
    assert merge_sorted([1, 4, 9], [2, 3, 10]) == [1, 2, 3, 4, 9, 10]


def test_api_median_single_element():
    assert median([11]) == 11


def test_stability_ties_at_start_of_a_run():
    records = [(4, "a"), (4, "b"), (5, "c"), (6, "d"), (7, "e")]
    assert sort(records, key=by_key) == records


def test_stability_ties_inside_a_descending_run():
    records = [(9, "a"), (7, "b"), (7, "c"), (5, "d"), (3, "e")]
    assert sort(records, key=by_key) == [(3, "e"), (5, "d"), (7, "b"), (7, "c"), (9, "a")]


def test_stability_report_rows_by_priority():
    rows = [(3, "deploy"), (3, "review"), (2, "triage"), (2, "test"), (1, "docs"), (1, "lint")]
    assert sort(rows, key=by_key) == sorted(rows, key=by_key)


def test_stability_two_descending_batches():
    keys = [5, 4, 4, 2, 1] + [5, 3, 3, 2, 1]
    records = [(k, i) for i, k in enumerate(keys)]
    assert sort(records, key=by_key) == sorted(records, key=by_key)


def test_stability_two_batches_starting_with_ties():
    keys = [3, 3, 4, 5, 6] + [1, 1, 2, 3, 6]
    records = [(k, i) for i, k in enumerate(keys)]
    assert sort(records, key=by_key) == sorted(records, key=by_key)


def test_stability_key_function_with_ties():
    words = ["bb", "aa", "c", "dd", "e", "ff", "g", "hh"]
    assert sort(words, key=len) == ["c", "e", "g", "bb", "aa", "dd", "ff", "hh"]
