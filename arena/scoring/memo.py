"""Per-result memoisation shared by the judges (one module, imported by record and resultview)."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import TypeVar

T = TypeVar("T")


def memo(result: object, key: Hashable, compute: Callable[[], T]) -> T:
    """``compute()`` once per result when the result carries a ``cache`` dict (the judges'
    ``ResultView`` does); otherwise recompute."""
    cache = getattr(result, "cache", None)
    if cache is None:
        return compute()
    if key not in cache:
        cache[key] = compute()
    value: T = cache[key]
    return value
