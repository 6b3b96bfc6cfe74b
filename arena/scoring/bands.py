"""Ranks that show ties as ties (issue 38): a rank is never decided by an agent's name.

``rank_bands``: for ratings with a 95% interval, an agent's band runs from 1 + the number of
agents whose interval lies wholly above its own (surely better) to the number of agents
whose interval does not lie wholly below its own; agents whose intervals overlap share
places, shown ``"1-3"`` (one place: ``"2"``). A one-sided interval (after a sweep) is open
on its other side: a sweep's rating has no upper bound, an all-lost one no lower bound.

``competition_ranks``: for plain totals (a challenge's standings), equal totals share the
rank, the next rank skips (``1, 1, 3``)."""

from __future__ import annotations

import math
from typing import Any, Sequence


def _edges(r: dict[str, Any]) -> tuple[float, float]:
    low, high = float(r["low"]), float(r["high"])
    if r.get("one_sided") == "lower":
        high = math.inf
    elif r.get("one_sided") == "upper":
        low = -math.inf
    return low, high


def rank_bands(rows: Sequence[dict[str, Any]]) -> list[tuple[int, int]]:
    """(best, worst) place of each row (each with ``low``, ``high``, ``one_sided``)."""
    edges = [_edges(r) for r in rows]
    out = []
    for i, (low, high) in enumerate(edges):
        above = sum(1 for j, (lo, _) in enumerate(edges) if j != i and lo > high)
        below = sum(1 for j, (_, hi) in enumerate(edges) if j != i and hi < low)
        out.append((1 + above, len(rows) - below))
    return out


def band_text(best: int, worst: int) -> str:
    return str(best) if best == worst else f"{best}-{worst}"


def competition_ranks(values: Sequence[float]) -> list[int]:
    """1 + the number of values strictly greater: equal values share a rank."""
    return [1 + sum(1 for w in values if w > v) for v in values]
