"""The scorecard (CONTRACT §6): the four judges and the composite, from stored events only.

``judge_attempt(events)`` is deterministic: floats are rounded to 0.1 and
``Scorecard.to_json()`` sorts keys, so judging the same attempt twice gives the same bytes.
"""

from __future__ import annotations

import json
from typing import Any, Iterable

from pydantic import BaseModel, Field

from arena.scoring.context import JudgeContext, Work, work_credit
from arena.scoring.history import AttemptHistory
from arena.scoring.integrity import judge_integrity
from arena.scoring.objective import Deliverables, phase_score, r1, submission_score
from arena.scoring.phases import plan_of
from arena.scoring.process import judge_process
from arena.scoring.resultview import test_phases
from arena.scoring.llm_judge import deliverable_adjustment
from arena.scoring.static import not_run
from arena.scoring.strategy import judge_strategy
from arena.usage import usage_from_events

COMPONENTS = ("objective", "process", "strategy", "integrity")


class Adjusted(BaseModel):
    rule: str
    points: float
    evidence: str


class Flag(BaseModel):
    rule: str
    detail: str
    points: float = 0.0


class PhaseScore(BaseModel):
    id: str
    objective: float
    reached: bool = True  # False: not part of Objective (arena/scoring/phases.py)
    abandoned: bool = False  # the attempt ended before its time mark: scored 0


class Scorecard(BaseModel):
    attempt: str
    challenge: str
    agent: str
    format: str
    weight_class: str
    trajectory: list[float]
    components: dict[str, float]
    weights: dict[str, float]
    total: float
    process_adjustments: list[Adjusted] = Field(default_factory=list)
    flags: list[Flag] = Field(default_factory=list)
    phases: list[PhaseScore] = Field(default_factory=list)
    # Extensions (CONTRACT: extend freely).
    scored_submission: int | None = None
    status: str | None = None
    process_raw: float = 0.0
    strategy_adjustments: list[Adjusted] = Field(default_factory=list)
    iterations: list[dict[str, Any]] = Field(default_factory=list)
    usage: dict[str, Any] = Field(default_factory=lambda: usage_from_events([]))
    not_judged: list[str] = Field(default_factory=list)  # judge-model parts with no reading
    # issue 20: the objective gained over the untouched starter and the share of Process,
    # Strategy and Integrity it earns ({starter, objective, share, credit}; arena/scoring/context.py)
    work: dict[str, Any] = Field(default_factory=dict)

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.model_dump(mode="json"), sort_keys=True, indent=indent, ensure_ascii=False)


def _phase_scores(c: JudgeContext) -> tuple[list[dict[str, Any]], float | None]:
    """PhaseScore fields per Marathon phase (validated with the Scorecard, in one call).
    Objective is the mean over the scored phases (arena/scoring/phases.py: every phase the
    clock would have revealed; an abandoned phase scores 0; seed 000's stuck agent phase 1
    only). A revealed phase with nothing done in it scores 0."""
    if c.rules.name != "marathon":
        return [], None
    plan = plan_of(c)
    out: list[dict[str, Any]] = []
    for n, pid, _ in c.history.phase_ids():
        out.append(
            {
                "id": pid,
                "objective": r1(_final_phase(c, n)),
                "reached": n in plan.scored,
                "abandoned": n in plan.abandoned,
            }
        )
    counted = [p["objective"] for p in out if p["reached"]]
    mean = sum(counted) / len(counted) if counted else 0.0
    return out, mean


def _final_phase(c: JudgeContext, n: int, deliverables: Deliverables = None) -> float:
    """Phase ``n``'s objective at the scored submission (0 when it has none of its tests)."""
    if c.final is None or n not in test_phases(c.final.judged):
        return 0.0
    return phase_score(c.final.judged, c.history.deliverables if deliverables is None else deliverables, n)


def _tests_only(c: JudgeContext) -> list[tuple[str, str, float]]:
    """The deliverables without the file ones: what the work credit is computed on."""
    return [d for d in c.history.deliverables if d[1] == "tests"]


def work_objective(c: JudgeContext) -> float:
    """The final objective without deliverable shares (issue 38: the work credit measures the
    work, not what the agent wrote about it), aggregated as Objective is."""
    items = _tests_only(c)
    if c.rules.name != "marathon":
        return submission_score(c.final.judged, items, c.final.phase) if c.final is not None else 0.0
    phases = plan_of(c).scored
    return sum(_final_phase(c, n, items) for n in phases) / len(phases)


def starter_objective(c: JudgeContext) -> float | None:
    """The untouched starter's objective without deliverable shares, aggregated as
    ``work_objective`` (Marathon: the mean over the scored phases); None when the attempt
    did not record it."""
    st = c.history.starter
    if st is None:
        return None
    items = _tests_only(c)
    if c.rules.name != "marathon":
        return submission_score(st, items)
    phases = plan_of(c).scored
    return sum(phase_score(st, items, n) for n in phases) / len(phases)


def extra_flags(c: JudgeContext) -> list[dict]:
    """Flags that carry no points: an attempt that did no work, an agent run on the host."""
    out = []
    if not c.worked:
        why = (
            "no submission was judged" if not c.counted else "no counted submission both built and changed the starter"
        )
        out.append({"rule": "no_work", "detail": f"{why}: Process, Strategy and Integrity are 0", "points": 0.0})
    out += not_run(c)
    if c.history.started.get("unsandboxed") is True:
        out.append(
            {
                "rule": "unsandboxed_agent",
                "points": 0.0,
                "detail": f"agent {c.history.started.get('agent', '')} ran on the host, outside any sandbox",
            }
        )
    return out


def work_flags(c: JudgeContext, work: Work) -> list[dict]:
    """A flag when the work credit cut Process, Strategy and Integrity, or could not be measured."""
    if not c.worked:
        return []  # no_work says it
    if work.starter is None:
        return [
            {
                "rule": "work_unmeasured",
                "points": 0.0,
                "detail": "the attempt recorded no starter.judged: Process, Strategy and Integrity are not scaled by work",
            }
        ]
    if work.credit >= 1.0:
        return []
    return [
        {
            "rule": "work_credit",
            "points": 0.0,
            "detail": f"objective without deliverables {work.objective:.1f} over the starter's {work.starter:.1f} closed "
            f"{work.share:.0%} of its gap to 100: Process, Strategy and Integrity count {work.credit:.0%}",
        }
    ]


def judge_context(c: JudgeContext, readings: dict | None = None) -> Scorecard:
    """``readings``: the judge model's stored readings (arena/scoring/llm_judge.py)."""
    h = c.history
    phases, phase_mean = _phase_scores(c)
    objective = phase_mean if phase_mean is not None else c.final_score
    delta, not_judged = deliverable_adjustment(h, c.final.result if c.final else None, readings)
    if c.final is not None and c.final_score > 0:
        objective = max(0.0, min(100.0, objective + delta))
    process, raw, p_adj = judge_process(c)
    strategy, s_adj = judge_strategy(c)
    integrity, flags = judge_integrity(c)
    work = work_credit(work_objective(c), starter_objective(c), c.worked)
    process, strategy, integrity = (x * work.credit for x in (process, strategy, integrity))
    comps = {"objective": r1(objective), "process": r1(process), "strategy": r1(strategy), "integrity": r1(integrity)}
    weights = dict(c.rules.weights)
    total = r1(sum(weights[k] * comps[k] for k in COMPONENTS))
    s = h.started
    return Scorecard(
        attempt=h.attempt,
        challenge=str(s.get("challenge", "")),
        agent=str(s.get("agent", "")),
        format=c.rules.name,
        weight_class=str(s.get("weight_class", "")),
        trajectory=[r1(x) for x in c.trajectory],
        components=comps,
        weights=weights,
        total=total,
        process_adjustments=[Adjusted.model_validate(a.as_dict()) for a in p_adj],
        flags=[
            Flag.model_validate(f)
            for f in [{"rule": a.rule, "detail": a.evidence, "points": r1(a.points)} for a in flags]
            + extra_flags(c)
            + work_flags(c, work)
        ],
        phases=[PhaseScore.model_validate(p) for p in phases],
        scored_submission=c.final.number if c.final else None,
        status=(h.finished or {}).get("status") if h.finished else "running",
        process_raw=r1(raw),
        strategy_adjustments=[Adjusted.model_validate(a.as_dict()) for a in s_adj],
        iterations=[r.to_dict() for r in c.records],
        usage=usage_from_events(h.events),
        not_judged=not_judged,
        work=work.as_dict(),
    )


def judge_attempt(events: Iterable[Any], readings: dict | None = None) -> Scorecard:
    """Judge one attempt from its stored events (``Event`` objects or dicts) and the judge
    model's stored readings, if any."""
    return judge_context(JudgeContext.build(AttemptHistory.from_events(events)), readings)


def score_preview(events_so_far: Iterable[Any]) -> dict[str, float]:
    """The Standard 4th-submission preview: the four components as judged so far."""
    card = judge_attempt(events_so_far)
    return {k: card.components[k] for k in COMPONENTS}
