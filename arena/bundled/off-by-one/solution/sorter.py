"""A small stable sort for the reporting pipeline.

``sort`` is a natural merge sort: it splits the input into runs that are already
in order, makes short runs longer with insertion sort, then merges neighbouring
runs until one is left. It is stable (items with equal keys keep their input
order), also when ``reverse=True``, exactly like Python's built-in ``sorted``.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable, List, Optional, Tuple

# Runs shorter than this are extended with insertion sort before merging.
MIN_RUN = 4

KeyFunc = Optional[Callable[[Any], Any]]


def _identity(item: Any) -> Any:
    return item


def _insertion_sort(items: List[Any], keys: List[Any], lo: int, hi: int, start: int) -> None:
    """Sort ``items[lo:hi]`` in place, given that ``items[lo:start]`` is already sorted.

    ``keys`` is kept in step with ``items``. Insertion is after equal keys, so the
    sort stays stable.
    """
    for i in range(start, hi):
        item, k = items[i], keys[i]
        j = i
        while j > lo and k < keys[j - 1]:
            items[j], keys[j] = items[j - 1], keys[j - 1]
            j -= 1
        items[j], keys[j] = item, k


def _reverse(items: List[Any], keys: List[Any], lo: int, hi: int) -> None:
    """Reverse ``items[lo:hi]`` (and ``keys``) in place."""
    items[lo:hi] = items[lo:hi][::-1]
    keys[lo:hi] = keys[lo:hi][::-1]


def _run_end(items: List[Any], keys: List[Any], start: int, n: int) -> int:
    """Return the end (exclusive) of the natural run that starts at ``start``.

    A descending run is reversed in place so that every run is ascending.
    """
    end = start + 1
    if end == n:
        return end
    if keys[end] < keys[start]:
        # strictly descending run: reversing it cannot swap equal keys
        while end < n and keys[end] < keys[end - 1]:
            end += 1
        _reverse(items, keys, start, end)
    else:
        while end < n and keys[end] >= keys[end - 1]:
            end += 1
    return end


def _find_runs(items: List[Any], keys: List[Any]) -> List[Tuple[int, int]]:
    """Split ``items`` into sorted runs ``(lo, hi)`` covering the whole list.

    Short runs are extended to ``MIN_RUN`` items, and a tail shorter than
    ``MIN_RUN`` is absorbed into the run before it, so no run is tiny.
    """
    n = len(items)
    runs: List[Tuple[int, int]] = []
    start = 0
    while start < n:
        end = _run_end(items, keys, start, n)
        if end - start < MIN_RUN:
            forced = min(start + MIN_RUN, n)
            _insertion_sort(items, keys, start, forced, end)
            end = forced
        if n - end < MIN_RUN and end < n:
            _insertion_sort(items, keys, start, n, end)
            end = n
        runs.append((start, end))
        start = end
    return runs


def _merge(left: List[Tuple[Any, Any]], right: List[Tuple[Any, Any]]) -> List[Tuple[Any, Any]]:
    """Merge two sorted lists of ``(key, item)`` pairs; ties go to ``left``."""
    out: List[Tuple[Any, Any]] = []
    i = j = 0
    while i < len(left) and j < len(right):
        if left[i][0] <= right[j][0]:
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    out.extend(left[i:])
    out.extend(right[j:])
    return out


def sort(items: Iterable[Any], *, key: KeyFunc = None, reverse: bool = False) -> List[Any]:
    """Return a new sorted list of ``items`` (stable, like ``sorted``).

    ``key`` is called once per item. With ``reverse=True`` the order is
    descending and items with equal keys still keep their input order.
    """
    key = key or _identity
    data = list(items)
    if reverse:
        # Reverse, sort ascending, reverse back: equal keys keep their order.
        data.reverse()
    keys = [key(item) for item in data]
    runs = _find_runs(data, keys)
    pieces = [list(zip(keys[lo:hi], data[lo:hi])) for lo, hi in runs]
    while len(pieces) > 1:
        merged = []
        for p in range(0, len(pieces) - 1, 2):
            merged.append(_merge(pieces[p], pieces[p + 1]))
        if len(pieces) % 2:
            merged.append(pieces[-1])
        pieces = merged
    result = [item for _, item in pieces[0]] if pieces else []
    if reverse:
        result.reverse()
    return result


def is_sorted(items: Iterable[Any], *, key: KeyFunc = None, reverse: bool = False) -> bool:
    """True when ``items`` is in order (non-decreasing, or non-increasing if ``reverse``)."""
    key = key or _identity
    keys = [key(item) for item in items]
    pairs = zip(keys, keys[1:])
    if reverse:
        return all(b <= a for a, b in pairs)
    return all(a <= b for a, b in pairs)


def merge_sorted(left: Iterable[Any], right: Iterable[Any], *, key: KeyFunc = None) -> List[Any]:
    """Merge two already-sorted iterables into one sorted list (stable: left first)."""
    key = key or _identity
    a = [(key(x), x) for x in left]
    b = [(key(x), x) for x in right]
    return [item for _, item in _merge(a, b)]


def median(items: Iterable[Any]) -> Any:
    """The middle item of the sorted items (the lower middle for an even count)."""
    ordered = sort(items)
    if not ordered:
        raise ValueError("median of an empty sequence")
    return ordered[(len(ordered) - 1) // 2]
