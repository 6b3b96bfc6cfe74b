"""The judged view of one attempt that every judge's rules read, and the rule result type."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from arena.formats import FormatRules
from arena.scoring.history import AttemptHistory, Submission
from arena.scoring.objective import r1, submission_score, suite_rates
from arena.scoring.record import IterationRecord, build_records


class Adjustment(NamedTuple):
    """What a rule found: ``(rule, points, evidence)``."""

    rule: str
    points: float
    evidence: str

    def as_dict(self) -> dict:
        return {"rule": self.rule, "points": r1(self.points), "evidence": self.evidence}


@dataclass
class JudgeContext:
    history: AttemptHistory
    counted: list[Submission]
    trajectory: list[float]
    records: list[IterationRecord]
    final: Submission | None
    final_score: float
    rules: FormatRules
    extra: dict = field(default_factory=dict)
    worked: bool = True  # see did_work(): False = Process, Strategy, Integrity are 0

    @classmethod
    def build(cls, history: AttemptHistory) -> "JudgeContext":
        counted = history.counted
        traj = [submission_score(s.judged, history.deliverables, s.phase) for s in counted]
        records = build_records(history, traj)
        final = history.final
        final_score = traj[counted.index(final)] if final is not None else 0.0
        return cls(
            history=history,
            counted=counted,
            trajectory=traj,
            records=records,
            final=final,
            final_score=final_score,
            rules=history.rules,
            worked=did_work(history),
        )

    def label(self, k: int) -> str:
        """How evidence names counted submission k (0-based index)."""
        return f"submission {self.counted[k].number}"


def did_work(history: AttemptHistory) -> bool:
    """Whether the attempt did any work the non-objective judges may reward: some counted
    submission builds and, by then, the workspace has differed from the starter (a
    submission's ``diff`` is against the previous submission, the first one's against the
    starter; a submission without a recorded diff counts as changed). A null agent (the
    untouched starter, or nothing) and a lone non-building submission did no work."""
    changed = False
    for s in history.submissions:  # received order: diffs chain through every submission
        if not s.diff or int(s.diff.get("files_changed", 1) or 0) > 0:
            changed = True
        if changed and s.counted and s.judged.build.status != "failure":
            return True
    return False


FULL_CREDIT_SHARE = 0.5  # closing half of the starter's gap to 100 earns the whole of P/S/I


@dataclass(frozen=True)
class Work:
    """How much the final objective moved over the untouched starter's (issue 20 item 1)."""

    starter: float | None  # the starter's objective, None when the attempt did not record it
    objective: float
    share: float  # (objective - starter) / (100 - starter), 0-1
    credit: float  # the share of Process, Strategy and Integrity earned, 0-1

    def as_dict(self) -> dict:
        return {
            "starter": None if self.starter is None else r1(self.starter),
            "objective": r1(self.objective),
            "share": round(self.share, 3),
            "credit": round(self.credit, 3),
        }


def work_credit(objective: float, starter: float | None, worked: bool) -> Work:
    """``credit = min(1, share / FULL_CREDIT_SHARE)`` where ``share`` is the part of the
    starter's gap to 100 the final objective closed (0 when it gained nothing). An attempt
    that did no work (``did_work``) gets 0; one whose log has no ``starter.judged`` (made
    before attempts recorded it, or the starter could not be judged) keeps the work gate
    alone (credit 1), and the scorecard flags ``work_unmeasured``."""
    if not worked:
        return Work(starter, objective, 0.0, 0.0)
    if starter is None:
        return Work(None, objective, 1.0, 1.0)
    room = 100.0 - starter
    share = 0.0 if room <= 0.05 else max(0.0, min(1.0, (objective - starter) / room))
    return Work(starter, objective, share, min(1.0, share / FULL_CREDIT_SHARE))


def steps(traj: list[float]) -> list[tuple[int, float, float]]:
    """(k, previous score, score) for each consecutive pair, k = index of the later one."""
    return [(k, traj[k - 1], traj[k]) for k in range(1, len(traj))]


def same_phase_steps(c: "JudgeContext") -> list[tuple[int, float, float]]:
    """Trajectory steps between submissions of the same Marathon phase: a step across a
    phase boundary adds the new phase's tests, so its drop is not a regression (all steps
    outside Marathons)."""
    out = c.extra.get("same_phase_steps")  # asked for by several rules: computed once per context
    if out is None:
        counted = c.counted
        out = c.extra["same_phase_steps"] = [
            (k, a, b) for k, a, b in steps(c.trajectory) if counted[k].phase == counted[k - 1].phase
        ]
    return list(out)


def test_chasing_gap(sub: Submission | None) -> tuple[float, float, float] | None:
    """(static rate, adversarial rate, gap) when static tests pass well but adversarial tests
    with other inputs fail (seed 001 test-chasing detection); None when it does not apply."""
    if sub is None or sub.result is None or sub.result.build.status == "failure":
        return None
    rates = suite_rates(sub.result)
    if "adversarial" not in rates or "static" not in rates:
        return None
    st, adv = rates["static"], rates["adversarial"]
    gap = st - adv
    if st >= 0.75 and gap >= 0.4:
        return st, adv, gap
    return None


def fmt_scores(xs: list[float]) -> str:
    return "[" + ", ".join(f"{x:g}" for x in xs) + "]"
