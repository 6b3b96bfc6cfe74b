"""Ratings with no floor (issue 12, item 6): agents rated against each other, never against a
challenge. Every two attempts by different agents on the same challenge are one game, won by
the higher total (equal totals: half a win each). Per weight class (seed 002's brackets), a
Bradley-Terry model is fitted to the games (the MM algorithm of Hunter 2004, as Chatbot Arena
does), shown on the Elo scale (``1000 + 400 log10 p``, the class's mean strength at 1000), with
a 95% bootstrap interval: the attempts of the class resampled with replacement, a fixed seed,
so the same attempts give the same interval.

Why not ``openskill``: its Weng-Lin updates are sequential (the order of the attempts changes
the ratings) and give mu/sigma rather than an interval over the observed games; a batch
Bradley-Terry fit is order-free and the bootstrap is the interval Chatbot Arena publishes.
The fit is 20 lines, so no dependency is added.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from typing import Any, Iterable

BOOTSTRAP = 200
SEED = 20240601
ITERATIONS = 200
PRIOR = 0.5  # a half game won and lost against a virtual average agent: finite ratings for 0 or all wins


def games(attempts: Iterable[Any]) -> list[tuple[str, str, float]]:
    """(agent a, agent b, a's points 1 / 0.5 / 0) for each pair of attempts by different
    agents on the same challenge."""
    by_ch: dict[str, list[Any]] = defaultdict(list)
    for at in attempts:
        by_ch[at.challenge].append(at)
    out = []
    for ch in sorted(by_ch):
        xs = sorted(by_ch[ch], key=lambda x: x.attempt)
        for i, a in enumerate(xs):
            for b in xs[i + 1 :]:
                if a.agent != b.agent:
                    out.append((a.agent, b.agent, 1.0 if a.total > b.total else 0.5 if a.total == b.total else 0.0))
    return out


def bradley_terry(played: list[tuple[str, str, float]]) -> dict[str, float]:
    """Elo-scale strengths from the games (MM iterations, with the PRIOR pseudo-games)."""
    agents = sorted({a for a, _, _ in played} | {b for _, b, _ in played})
    if not agents:
        return {}
    wins = {a: PRIOR for a in agents}
    pairs: dict[tuple[str, str], float] = defaultdict(float)
    for a, b, s in played:
        wins[a] += s
        wins[b] += 1.0 - s
        pairs[(a, b)] += 1.0
        pairs[(b, a)] += 1.0
    opponents: dict[str, list[tuple[str, float]]] = defaultdict(list)
    for (a, b), n in pairs.items():
        opponents[a].append((b, n))
    p = {a: 1.0 for a in agents}
    for _ in range(ITERATIONS):
        new = {}
        for a in agents:
            pa = p[a]
            denom = 2 * PRIOR / (pa + 1.0)  # the virtual average agent has strength 1
            denom += sum(n / (pa + p[b]) for b, n in opponents[a])
            new[a] = wins[a] / denom
        g = math.exp(sum(math.log(v) for v in new.values()) / len(new))
        p = {a: v / g for a, v in new.items()}
    return {a: 1000.0 + 400.0 * math.log10(v) for a, v in p.items()}


def class_ratings(attempts: list[Any]) -> dict[str, dict[str, float | int | str | None]]:
    """For one weight class: agent -> {rating, low, high, games, one_sided}; agents with no
    game against another agent are left out (nothing to rate them against).

    After a sweep (every game won) the bootstrap cannot bound the rating from above: every
    resample is a sweep again, rated at or above the point, so its 2.5% quantile is the point
    itself. Then ``one_sided`` is ``"lower"`` and ``low`` is the exact bound instead: the
    opponents' mean rating plus the Elo gap of winning all n games at the Clopper-Pearson
    one-sided 95% bound ``0.05 ** (1/n)`` (games counted as independent, as the fit counts
    them); ``high`` stays the bootstrap's 97.5% quantile, which is not a bound. Every game
    lost: mirrored, ``one_sided`` ``"upper"``. Otherwise ``one_sided`` is None."""
    played = games(attempts)
    point = bradley_terry(played)
    if not point:
        return {}
    rng = random.Random(SEED)
    by_ch: dict[str, list[Any]] = defaultdict(list)
    for at in attempts:
        by_ch[at.challenge].append(at)
    samples: dict[str, list[float]] = {a: [] for a in point}
    flat = sorted(attempts, key=lambda x: x.attempt)
    for _ in range(BOOTSTRAP):
        draw = [flat[rng.randrange(len(flat))] for _ in flat]
        relabelled = [_Copy(f"{k}:{x.attempt}", x.agent, x.challenge, x.total) for k, x in enumerate(draw)]
        for a, r in bradley_terry(games(relabelled)).items():
            if a in samples:
                samples[a].append(r)
    count: dict[str, int] = defaultdict(int)
    won: dict[str, float] = defaultdict(float)
    against: dict[str, list[str]] = defaultdict(list)
    for a, b, s in played:
        count[a] += 1
        count[b] += 1
        won[a] += s
        won[b] += 1.0 - s
        against[a].append(b)
        against[b].append(a)
    out: dict[str, dict[str, float | int | str | None]] = {}
    for a, r in point.items():
        xs = sorted(samples[a]) or [r]
        low, high = _q(xs, 0.025), _q(xs, 0.975)
        one_sided = None
        n = count[a]
        if n and won[a] in (0.0, float(n)):  # a sweep: every game won (or every game lost)
            opp = sum(point[b] for b in against[a]) / n
            margin = 400.0 * math.log10(_sweep_p(n) / (1.0 - _sweep_p(n)))
            if won[a] == n:
                one_sided, low = "lower", opp + margin
            else:
                one_sided, high = "upper", opp - margin
        out[a] = {
            "rating": round(r, 1),
            "low": round(low, 1),
            "high": round(high, 1),
            "games": count[a],
            "one_sided": one_sided,
        }
    return out


def _sweep_p(n: int) -> float:
    """The exact (Clopper-Pearson) one-sided 95% lower bound of the win probability of an
    agent that won all of its ``n`` games: ``0.05 ** (1 / n)``."""
    return 0.05 ** (1.0 / n)


class _Copy:
    __slots__ = ("attempt", "agent", "challenge", "total")

    def __init__(self, attempt: str, agent: str, challenge: str, total: float) -> None:
        self.attempt, self.agent, self.challenge, self.total = attempt, agent, challenge, total


def _q(xs: list[float], q: float) -> float:
    i = q * (len(xs) - 1)
    lo, hi = math.floor(i), math.ceil(i)
    return xs[lo] + (xs[hi] - xs[lo]) * (i - lo)
