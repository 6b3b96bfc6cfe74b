"""Which Marathon phases an attempt is scored over (issue 38, item 2).

Every phase the clock would have revealed is scored: phase 1, every phase revealed (by the
phase gate or by its time mark), and every phase whose time mark fell after the attempt
ended (**abandoned**: the agent quit before it; it scores 0 in Objective and its quality is
0 for Strategy's degradation and pivot rules). Quitting therefore never removes a phase.

Seed 000's "if an agent cannot reach 60 % on Phase 1, it remains in Phase 1 for the entire
Marathon (scored only on Phase 1)" applies as the seed writes it: to an agent that kept
working (abandoned no phase) and never passed phase 1's gate (no judged submission reached
the share of phase 1's static tests that opens phase 2, and phase 2 did not open by it).

A phase with no time mark inside the limit that never opened is not scored: nothing but the
gate would have opened it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from arena.scoring.history import AttemptHistory
from arena.scoring.objective import suite_rates

if TYPE_CHECKING:
    from arena.scoring.context import JudgeContext

EPS = 1e-9


@dataclass(frozen=True)
class PhasePlan:
    scored: list[int]  # the phases averaged into Objective, in order
    abandoned: set[int]  # scored phases the attempt ended before (0 everywhere)
    stuck: bool  # seed 000's "scored only on Phase 1"


def time_mark(h: AttemptHistory, n: int, spec: dict) -> float | None:
    """The attempt second at which the clock reveals phase ``n`` (None: not inside the limit)."""
    marks = list(h.rules.reveal_marks)
    mark = spec.get("reveal_at", marks[n - 2] if 0 <= n - 2 < len(marks) else None)
    if mark is None or float(mark) >= 1.0 or h.time_limit_s <= 0:
        return None
    return float(mark) * h.time_limit_s


def _threshold(h: AttemptHistory, n: int) -> float:
    """The share of phase ``n``'s static tests that opens phase ``n + 1``."""
    for m, _, spec in h.phase_ids():
        if m == n + 1 and spec.get("advance_threshold") is not None:
            return float(spec["advance_threshold"])
    return float(h.rules.advance_threshold)


def passed_gate(h: AttemptHistory, n: int = 1) -> bool:
    """Whether the agent passed phase ``n``'s gate: phase ``n + 1`` opened by it, or some
    judged submission reached the threshold on phase ``n``'s static tests."""
    if any(int(r.get("phase") or 0) == n + 1 and r.get("by") == "threshold" for r in h.phase_reveals):
        return True
    need = _threshold(h, n)
    for s in h.counted:
        if s.judged.build.status == "failure":
            continue
        rate = suite_rates(s.judged, n).get("static")
        if rate is not None and rate + EPS >= need:
            return True
    return False


def phase_plan(h: AttemptHistory) -> PhasePlan:
    ids = h.phase_ids()
    revealed = {1} | {int(r.get("phase") or 0) for r in h.phase_reveals}
    abandoned: set[int] = set()
    if h.finished_t is not None:
        for n, _, spec in ids:
            at = time_mark(h, n, spec)
            if n >= 2 and n not in revealed and at is not None and h.finished_t < at:
                abandoned.add(n)
    if not abandoned and len(ids) > 1 and not passed_gate(h, 1):
        return PhasePlan([1], set(), True)
    scored = sorted(n for n, _, _ in ids if n in revealed or n in abandoned)
    return PhasePlan(scored or [1], abandoned, False)


def plan_of(c: JudgeContext) -> PhasePlan:
    """The attempt's plan, computed once per judged context."""
    plan = c.extra.get("phase_plan")
    if plan is None:
        plan = c.extra["phase_plan"] = phase_plan(c.history)
    return plan


__all__ = ["plan_of", "PhasePlan", "passed_gate", "phase_plan", "time_mark"]
