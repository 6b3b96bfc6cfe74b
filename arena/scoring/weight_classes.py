"""Seed 002 weight classes: promotion, relegation ("under review" and relegation
matches), percentile normalisation within a class and the class multipliers.

Readings where seed 002 is open (docs/judging.md):
- "Complete N+ challenges" counts distinct challenges with a judged attempt in the class;
  "last N attempts" are the agent's most recent attempts in the class (fewer if it has fewer).
- "At least one score ≥ X" looks at every attempt of the agent in the class.
- "ELO ≥ X (within bracket)": the agent's Elo within that class's bracket (ratings.py keeps
  one Elo per bracket; an attempt moves only its own class's).
- "Demonstrated recovery": attempts whose trajectory improved between iterations, on
  distinct challenges.
- Relegation's "promotion threshold" is the threshold of the promotion *into* the agent's
  current class: the Elo trigger fires below that Elo − 200 (none for classes entered
  without an Elo criterion), and relegation matches demote when their mean is below that
  promotion's mean-score criterion.
- "Class median" and "bottom 10th percentile" use every judged score in the class so far
  (all agents). Lightweight has no class below it: its agents are never put under review.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from statistics import median

from arena.formats import WEIGHT_CLASSES

MULTIPLIERS = {"lightweight": 1.0, "middleweight": 1.3, "contender": 1.6, "heavyweight": 2.0, "frontier": 2.5}
RELEGATION_MATCHES = 3


@dataclass(frozen=True)
class Promotion:
    completed: int  # distinct challenges
    window: int  # last N attempts for the mean
    mean_min: float
    floor: float | None = None  # no score below this in the window
    elo_min: float | None = None
    best_min: float | None = None  # at least one score ≥ this in the class
    recoveries: int = 0  # challenges where the score improved between iterations


PROMOTION: dict[str, Promotion] = {
    "lightweight": Promotion(completed=3, window=5, mean_min=80, floor=60),
    "middleweight": Promotion(completed=5, window=5, mean_min=55, elo_min=1200, best_min=70),
    "contender": Promotion(completed=7, window=7, mean_min=45, elo_min=1600, recoveries=2),
    "heavyweight": Promotion(completed=5, window=5, mean_min=40, elo_min=2000, best_min=55),
}


def normalize_class(value: object) -> str:
    """A class by name or as 1-5 (CONTRACT §7); unknown values fall back to lightweight."""
    s = str(value or "").strip().lower()
    if s.isdigit() and 1 <= int(s) <= len(WEIGHT_CLASSES):
        return WEIGHT_CLASSES[int(s) - 1]
    return s if s in WEIGHT_CLASSES else "lightweight"


def next_class(cls: str) -> str | None:
    i = WEIGHT_CLASSES.index(cls)
    return WEIGHT_CLASSES[i + 1] if i + 1 < len(WEIGHT_CLASSES) else None


def prev_class(cls: str) -> str | None:
    i = WEIGHT_CLASSES.index(cls)
    return WEIGHT_CLASSES[i - 1] if i > 0 else None


def percentile_rank(score: float, pool: list[float]) -> float:
    """0-100: share of the class's scores below this one (ties count half)."""
    if not pool:
        return 50.0
    below = sum(1 for x in pool if x < score)
    equal = sum(1 for x in pool if x == score)
    return 100.0 * (below + 0.5 * equal) / len(pool)


@dataclass
class ClassAttempt:
    challenge: str
    total: float
    improved: bool  # the trajectory rose between some two iterations


@dataclass
class AgentClassState:
    weight_class: str = "lightweight"
    under_review: bool = False
    matches: list[float] = field(default_factory=list)
    history: dict[str, list[ClassAttempt]] = field(default_factory=dict)
    log: list[str] = field(default_factory=list)

    def in_class(self, cls: str) -> list[ClassAttempt]:
        return self.history.setdefault(cls, [])


def promotion_check(state: AgentClassState, elo: float) -> tuple[bool, list[str]]:
    """Does the agent meet every criterion to leave its class upward? (ok, unmet reasons)."""
    cls = state.weight_class
    rule = PROMOTION.get(cls)
    if rule is None:
        return False, ["frontier is the top class"]
    atts = state.in_class(cls)
    last = [a.total for a in atts[-rule.window :]]
    unmet = []
    done = len({a.challenge for a in atts})
    if done < rule.completed:
        unmet.append(f"{done} of {rule.completed} {cls} challenges completed")
    if not last or sum(last) / len(last) < rule.mean_min:
        mean = sum(last) / len(last) if last else 0.0
        unmet.append(f"mean {mean:.1f} < {rule.mean_min:g} on last {rule.window}")
    if rule.floor is not None and any(x < rule.floor for x in last):
        unmet.append(f"a score below {rule.floor:g} in the last {rule.window}")
    if rule.elo_min is not None and elo < rule.elo_min:
        unmet.append(f"Elo {elo:.0f} < {rule.elo_min:g}")
    if rule.best_min is not None and not any(a.total >= rule.best_min for a in atts):
        unmet.append(f"no score ≥ {rule.best_min:g}")
    if rule.recoveries:
        rec = len({a.challenge for a in atts if a.improved})
        if rec < rule.recoveries:
            unmet.append(f"{rec} of {rule.recoveries} recoveries")
    return not unmet, unmet


def relegation_triggers(state: AgentClassState, elo: float, pool: list[float]) -> list[str]:
    """Seed 002's three relegation triggers that hold now (empty: none)."""
    cls = state.weight_class
    below = prev_class(cls)
    if below is None:
        return []
    atts = [a.total for a in state.in_class(cls)]
    out = []
    if len(atts) >= 5 and pool:
        mean5, med = sum(atts[-5:]) / 5, median(pool)
        if mean5 < 0.15 * med:
            out.append(f"mean of last 5 ({mean5:.1f}) below 15% of the class median ({med:.1f})")
    entry = PROMOTION[below].elo_min
    if entry is not None and elo < entry - 200:
        out.append(f"Elo {elo:.0f} more than 200 below the promotion threshold {entry:g}")
    if len(atts) >= 3 and all(percentile_rank(x, pool) < 10 for x in atts[-3:]):
        out.append("3 consecutive scores in the bottom 10th percentile of the class")
    return out


def apply_attempt(
    state: AgentClassState, cls: str, att: ClassAttempt, elo: float, pool: list[float], label: str = ""
) -> None:
    """Record one judged attempt (in challenge class ``cls``) and move the agent if due."""
    state.in_class(cls).append(att)
    cur = state.weight_class
    if cls != cur:
        return
    if state.under_review:
        state.matches.append(att.total)
        if len(state.matches) < RELEGATION_MATCHES:
            return
        mean = sum(state.matches) / len(state.matches)
        below = prev_class(cur)
        threshold = PROMOTION[below].mean_min if below else 0.0
        state.under_review, state.matches = False, []
        if below is not None and mean < threshold:  # a review starts only with a class below
            state.weight_class = below
            state.log.append(f"{label}: relegated to {below} (relegation matches mean {mean:.1f} < {threshold:g})")
        else:
            state.log.append(f"{label}: review cleared (relegation matches mean {mean:.1f} ≥ {threshold:g})")
        return
    ok, _ = promotion_check(state, elo)
    above = next_class(cur)
    if ok and above is not None:  # promotion_check is never ok in the top class
        state.weight_class = above
        state.log.append(f"{label}: promoted to {state.weight_class}")
        return
    why = relegation_triggers(state, elo, pool)
    if why:
        state.under_review, state.matches = True, []
        state.log.append(f"{label}: under review ({'; '.join(why)})")
