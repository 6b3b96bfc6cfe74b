"""Judge-side hidden tests for sorter.py (only pass/fail counts are disclosed)."""
import random

from sorter import median, sort


def by_key(record):
    return record[0]


def test_edge_ties_inside_descending_run():
    records = [(3, "a"), (2, "b"), (2, "c"), (1, "d")]
    assert sort(records, key=by_key) == [(1, "d"), (2, "b"), (2, "c"), (3, "a")]


def test_edge_ties_at_end_of_descending_run():
    records = [(9, "a"), (8, "b"), (5, "c"), (5, "d"), (5, "e"), (6, "f"), (7, "g")]
    assert sort(records, key=by_key) == sorted(records, key=by_key)


def test_edge_every_length_up_to_twenty():
    rng = random.Random(3)
    for n in range(21):
        data = [rng.randint(0, 5) for _ in range(n)]
        assert sort(data) == sorted(data), n


def test_edge_single_record_with_key():
    assert sort([("x", 1)], key=lambda r: r[1]) == [("x", 1)]


def test_edge_all_equal_keys_large():
    records = [(0, i) for i in range(500)]
    assert sort(records, key=by_key) == records


def test_stability_random_ties():
    rng = random.Random(11)
    for _ in range(30):
        records = [(rng.randint(0, 3), i) for i in range(rng.randint(0, 60))]
        assert sort(records, key=by_key) == sorted(records, key=by_key)


def test_stability_random_ties_reverse():
    rng = random.Random(12)
    for _ in range(30):
        records = [(rng.randint(0, 3), i) for i in range(rng.randint(0, 60))]
        expected = sorted(records, key=by_key, reverse=True)
        assert sort(records, key=by_key, reverse=True) == expected


def test_api_median_all_equal():
    assert median([4, 4, 4, 4]) == 4
