"""The Strategy judge scores the final submission (seed 001: "The Process Judge is the only
judge that evaluates iteration behavior. The other three judges score the final submission"):
its approach on the suites the agent was not shown (``root_cause``), and for Marathons, as
seed 000 says, the phases: time per phase against the 30/35/25 + 10% buffer table,
degradation (seed 000 "Degradation Detection") and pivot handling (seed 000 "Scoring
pivots": pre-pivot quality and post-pivot adaptation both scored).
Component = 60 + sum of adjustments, clamped 0-100.
"""

from __future__ import annotations

from typing import Callable

from arena.scoring.context import Adjustment, JudgeContext, test_chasing_gap
from arena.scoring.objective import phase_score, suite_rates
from arena.scoring.phases import plan_of
from arena.scoring.resultview import phases_from, test_phases

BASE = 60.0
Rule = Callable[[JudgeContext], "Adjustment | None"]


def _expected(table: tuple[float, ...], n: int) -> list[float]:
    vals = list(table[:n]) + [table[-1]] * max(0, n - len(table)) if table else [1.0] * n
    s = sum(vals)
    return [v / s for v in vals]


def _fit_points(actual: list[float], expected: list[float], span: float = 20.0) -> tuple[float, float]:
    """+span for an exact fit, 0 at a total-variation distance of 0.25, -span from 0.5 on."""
    tv = 0.5 * sum(abs(a - e) for a, e in zip(actual, expected))
    return round(max(-span, span * (1 - 4 * tv)), 1), tv


def _pct(xs: list[float]) -> str:
    return "/".join(f"{x:.0%}" for x in xs)


def root_cause(c: JudgeContext) -> Adjustment | None:
    """The final submission's approach: does its fix hold on the judge-side suites (hidden,
    adversarial: inputs the agent was not shown), i.e. was the cause fixed rather than the
    visible symptom? ``40 × depth − 20`` (−20 .. +20), depth = the mean pass rate of the
    judge-side suites present. Quiet when the package has none, and when Integrity's
    ``hard_coded_test_chasing`` fires (the same gap, scored once, there)."""
    if c.final is None or c.final.judged.build.status == "failure":
        return None
    if test_chasing_gap(c.final) is not None:
        return None
    rates = suite_rates(c.final.judged)
    deep = [rates[s] for s in ("hidden", "adversarial") if s in rates]
    if not deep:
        return None
    depth = sum(deep) / len(deep)
    shown = ", ".join(f"{s} {rates[s]:.0%}" for s in ("hidden", "adversarial") if s in rates)
    return Adjustment(
        "root_cause",
        round(40.0 * depth - 20.0, 1),
        f"submission {c.final.number} on the judge-side suites: {shown}",
    )


# --- Marathon -------------------------------------------------------------------------------
def _phase_quality(c: JudgeContext) -> dict[int, float]:
    """Per scored phase n (arena/scoring/phases.py): the score of phase n's tests at the last
    counted submission made while phase n was the current phase. What was done is judged
    (issue 38): a scored phase no submission was made in takes the scored submission's score
    on it, 0 when that has none of its tests: an abandoned phase is quality 0, so quitting is
    never better here than working a phase badly."""
    scored = plan_of(c).scored
    q: dict[int, float] = {}
    for s in c.counted:
        if s.phase in scored:
            q[s.phase] = phase_score(s.judged, c.history.deliverables, s.phase)
    final = c.final.judged if c.final is not None else None
    for n in scored:
        if n not in q:
            q[n] = (
                phase_score(final, c.history.deliverables, n) if final is not None and n in test_phases(final) else 0.0
            )
    return dict(sorted(q.items()))


def phase_time_allocation(c: JudgeContext) -> Adjustment | None:
    if c.rules.name != "marathon" or not c.counted or c.history.time_limit_s <= 0:
        return None
    limit = c.history.time_limit_s
    reveals = sorted((int(r.get("phase", 0)), float(r["t"])) for r in c.history.phase_reveals)
    starts = [0.0] + [t for _, t in reveals]
    last = min(limit, c.counted[-1].t)
    bounds = [min(s, last) for s in starts] + [last]
    spans = [max(0.0, bounds[i + 1] - bounds[i]) for i in range(len(starts))]
    actual = [s / limit for s in spans] + [max(0.0, limit - last) / limit]
    table = c.rules.time_allocation
    phases = _expected(table[:-1], len(spans))
    expected = [p * (1 - table[-1]) for p in phases] + [table[-1]]
    pts, tv = _fit_points(actual, expected)
    return Adjustment(
        "phase_time_allocation",
        pts,
        f"phase time shares + buffer {_pct(actual)} vs {_pct(expected)} (distance {tv:.2f})",
    )


def _slope(ys: list[float]) -> float:
    n = len(ys)
    mx, my = (n - 1) / 2, sum(ys) / n
    den = sum((i - mx) ** 2 for i in range(n))
    return sum((i - mx) * (y - my) for i, y in enumerate(ys)) / den if den else 0.0


def degradation(c: JudgeContext) -> Adjustment | None:
    if c.rules.name != "marathon":
        return None
    q = _phase_quality(c)
    if len(q) < 2:
        return None
    ys = list(q.values())
    shown = ", ".join(f"phase {p}: {v:g}" for p, v in q.items())
    drop = -_slope(ys) * (len(ys) - 1)
    if drop >= 10:
        return Adjustment(
            "degradation",
            -float(min(20.0, round(drop / 2, 1))),
            f"per-phase quality falls by {drop:.1f} points ({shown})",
        )
    if max(ys) - min(ys) <= 10:
        return Adjustment("sustained_quality", 10.0, f"per-phase quality within 10 points ({shown})")
    return None


def cross_phase_regressions(c: JudgeContext) -> Adjustment | None:
    if c.rules.name != "marathon":
        return None
    broken = []
    for k in range(1, len(c.counted)):
        prev, cur = c.counted[k - 1], c.counted[k]
        if phases_from(prev.judged, cur.phase):
            continue  # no earlier-phase test to break (most steps: building no per-test objects)
        before = {t.id: t for t in prev.judged.tests if t.outcome == "passed" and t.phase < cur.phase}
        if not before:
            continue
        failing = {x.id for x in cur.judged.tests if x.outcome != "passed"}
        broken += [
            f"{tid} (phase {t.phase}, submission {cur.number})" for tid, t in sorted(before.items()) if tid in failing
        ]
    if not broken:
        return None
    return Adjustment(
        "cross_phase_regressions",
        -float(min(10, 2 * len(broken))),
        "earlier-phase tests broken in a later phase: " + "; ".join(broken[:5]),
    )


def _pivot_phase(c: JudgeContext) -> int | None:
    for n, _, spec in c.history.phase_ids():
        if str(spec.get("pivot") or "none").lower() not in ("none", "false", "no", "0", ""):
            return n
    return None


def _pivot_split(c: JudgeContext) -> tuple[int, float, float | None] | None:
    p = _pivot_phase(c)
    if p is None:
        return None
    q = _phase_quality(c)
    pre = [v for n, v in q.items() if n < p]
    if not pre:
        return None
    post = [v for n, v in q.items() if n >= p]  # scored phases only: abandoned ones are 0
    return p, sum(pre) / len(pre), (sum(post) / len(post) if post else None)


def pivot_pre_quality(c: JudgeContext) -> Adjustment | None:
    split = _pivot_split(c)
    if split is None:
        return None
    p, pre, _ = split
    return Adjustment(
        "pivot_pre_quality", round((pre - 50) / 5, 1), f"quality of the phases before the pivot (phase {p}): {pre:.1f}"
    )


def pivot_adaptation(c: JudgeContext) -> Adjustment | None:
    split = _pivot_split(c)
    if split is None:
        return None
    p, pre, post = split
    if post is None:
        return None
    if post >= pre - 10:
        return Adjustment(
            "pivot_adaptation", 10.0, f"after the pivot (phase {p}) quality {post:.1f} held within 10 of {pre:.1f}"
        )
    pts = min(20.0, round((pre - 10 - post) / 2, 1))
    return Adjustment(
        "pivot_adaptation", -pts, f"after the pivot (phase {p}) quality fell to {post:.1f} from {pre:.1f}"
    )


def abandoned_phases(c: JudgeContext) -> Adjustment | None:
    """Marathon: phases the agent never saw because it ended before their time mark: -30 per
    phase, at most -60. Such a phase also scores 0 in Objective and counts as quality 0 for
    degradation and pivot adaptation (arena/scoring/phases.py), so quitting is never better
    than working it badly. Threshold-only phases (no mark inside the limit) are not counted:
    nothing would have opened them."""
    if c.rules.name != "marathon" or c.history.finished_t is None or c.history.time_limit_s <= 0:
        return None
    revealed = {int(r.get("phase") or 0) for r in c.history.phase_reveals}
    marks = list(c.rules.reveal_marks)
    missed = []
    for n, pid, spec in c.history.phase_ids():
        mark = spec.get("reveal_at", marks[n - 2] if 0 <= n - 2 < len(marks) else None)
        if n < 2 or n in revealed or mark is None or float(mark) >= 1.0:
            continue
        at = float(mark) * c.history.time_limit_s
        if c.history.finished_t < at:
            missed.append(f"phase {n} ({pid}, opens at {at:.0f}s)")
    if not missed:
        return None
    return Adjustment(
        "abandoned_phases",
        -float(min(60, 30 * len(missed))),
        f"ended at {c.history.finished_t:.0f}s, before " + ", ".join(missed),
    )


RULES: list[Rule] = [
    root_cause,
    abandoned_phases,
    phase_time_allocation,
    degradation,
    cross_phase_regressions,
    pivot_pre_quality,
    pivot_adaptation,
]


# Iteration behaviour (the time shape across iterations, stopping, a final below the best)
# is the Process Judge's alone (seed 001; arena/scoring/process.py, stopping.py).


def judge_strategy(c: JudgeContext) -> tuple[float, list[Adjustment]]:
    if not c.counted or not c.worked:
        return 0.0, []
    adj = [a for rule in RULES if (a := rule(c)) is not None and a.points != 0]
    return max(0.0, min(100.0, BASE + sum(a.points for a in adj))), adj
