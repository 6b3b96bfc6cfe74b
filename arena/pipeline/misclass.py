"""Seed 002's misclassification detection and a class suggestion, from calibration scores.

``classification(scores, declared)`` (pure) reads the four benchmark agents' first-run
totals:

- **detection** (seed 002 ``detect_misclassification``): the median of the scores against
  the declared class's expected median (lightweight 75, middleweight 55, contender 42,
  heavyweight 30, frontier 15): 20+ above is "too easy, consider demoting to an easier
  class", 20+ below "too hard, consider promoting to a harder class", else confirmed;
- **suggestion**: the classes whose seed 002 bands all hold the naive, standard and elite
  scores and the spread (``fits``); ``suggested`` is the declared class when it fits, else
  the one fitting class, else (none or several) the class whose bands the scores miss by
  the fewest points (ties: the one whose expected median is nearest the scores' median).
"""

from __future__ import annotations

import statistics

from arena.challenge.errors import info
from arena.pipeline.bands import CLASS_BANDS
from arena.results import Finding

CLASS_MEDIANS = {"lightweight": 75.0, "middleweight": 55.0, "contender": 42.0, "heavyweight": 30.0, "frontier": 15.0}
MARGIN = 20.0
SCORED = ("naive", "standard", "elite", "reference")


def _miss(value: float, band: tuple[float, float]) -> float:
    lo, hi = band
    return max(0.0, lo - value, value - hi)


def classification(scores: dict[str, float], declared: str) -> dict:
    s = {a: float(scores[a]) for a in SCORED if a in scores}
    med = round(statistics.median(s.values()), 2) if s else None
    expected = CLASS_MEDIANS.get(declared)
    if med is None or expected is None:
        verdict = "not assessed"
    elif med > expected + MARGIN:
        verdict = (
            f"likely misclassified: median {med:g} is 20+ above {declared}'s expectation "
            f"({expected:g}): consider demoting to an easier class"
        )
    elif med < expected - MARGIN:
        verdict = (
            f"likely misclassified: median {med:g} is 20+ below {declared}'s expectation "
            f"({expected:g}): consider promoting to a harder class"
        )
    else:
        verdict = "classification confirmed"
    misses: dict[str, float] = {}
    if all(a in s for a in ("naive", "standard", "elite")):
        spread = s["elite"] - s["naive"]
        for wc, band in CLASS_BANDS.items():
            misses[wc] = round(
                sum(_miss(s[a], band[a]) for a in ("naive", "standard", "elite")) + _miss(spread, band["spread"]), 2
            )
    fits = [wc for wc, m in misses.items() if m == 0]
    if declared in fits:
        suggested = declared
    elif len(fits) == 1:
        suggested = fits[0]
    elif misses:
        pool = fits or list(misses)
        suggested = min(pool, key=lambda wc: (misses[wc], abs(CLASS_MEDIANS[wc] - (med or 0.0))))
    else:
        suggested = None
    return {
        "declared": declared,
        "median": med,
        "expected_median": expected,
        "verdict": verdict,
        "fits": fits,
        "misses": misses,
        "suggested": suggested,
    }


def classification_findings(c: dict) -> list[Finding]:
    """Info notes (the band errors of gate 3 are what fail a package)."""
    out = [info("classification", f"{c['declared']}: {c['verdict']}")]
    if c["suggested"] and c["suggested"] != c["declared"]:
        fit = (
            "the scores fit its bands"
            if c["suggested"] in c["fits"]
            else f"no class's bands fit; nearest, {c['misses'][c['suggested']]:g} points off"
        )
        out.append(
            info("classification", f"suggested weight class: {c['suggested']} ({fit}); declared {c['declared']}")
        )
    return out
