"""Two iteration rules of the Process Judge about when an agent stopped (moved from Strategy
by issue 20: seed 001, "The Process Judge is the only judge that evaluates iteration
behavior"). Process points are on seed 001's -30..+20 scale, so they weigh half of what they
did as Strategy points (-10 each there).

- stopped_while_failing (-5): seed 001 "When NOT to stop early": budget and time left
  (≥ 20% of the limit after the last feedback) while static tests still fail.
- final_below_best (-drop/4, at most -5): risk calibration: the scored submission is worse
  than an earlier one.
"""

from __future__ import annotations

from arena.scoring.context import Adjustment, JudgeContext
from arena.scoring.resultview import not_passed


def stopped_while_failing(c: JudgeContext) -> Adjustment | None:
    if c.final is None or c.history.time_limit_s <= 0 or not c.counted:
        return None
    budget = int(c.history.started.get("budget") or 0)
    used = len([s for s in c.history.submissions if not s.replaced])
    last = c.counted[-1]
    left = c.history.time_limit_s - (last.feedback_t or last.judged_t or last.t)
    if used < budget and left >= 0.2 * c.history.time_limit_s:
        failing = not_passed(c.final.judged, "static")
        if failing:
            return Adjustment(
                "stopped_while_failing",
                -5.0,
                f"stopped after {used} of {budget} submissions with {left:.0f}s left and "
                f"{failing} static tests failing",
            )
    return None


def final_below_best(c: JudgeContext) -> Adjustment | None:
    if not c.trajectory or c.final is None:  # a trajectory has a final (scored) submission
        return None
    best = max(c.trajectory)
    if c.final_score >= best - 0.05:
        return None
    drop = best - c.final_score
    return Adjustment(
        "final_below_best",
        -float(min(5.0, round(drop / 4, 1))),
        f"scored submission {c.final.number} ({c.final_score:g}) below the best ({best:g})",
    )


__all__ = ["final_below_best", "stopped_while_failing"]
