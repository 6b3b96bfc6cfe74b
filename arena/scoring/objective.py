"""The Objective judge: the 0-100 score of one submission.

A pure function of a ``JudgeResult`` and the manifest's deliverables. Choices where the
seeds are silent (documented in docs/judging.md):

- The tests score is a weighted mean of the suites' pass rates: static 0.5, hidden 0.3,
  adversarial 0.2, renormalised over the suites that have tests. Skipped and errored tests
  count as not passed (a submission must not win by making tests skip).
- A deliverable of kind ``tests`` takes the tests score; any other kind takes the judge's
  ``result.deliverables[name]`` (0.0-1.0; missing = 0). Weights are renormalised to sum 1.
  With no deliverables the tests score is the whole objective.
- A build failure scores 0 (seed 000: syntax errors = automatic 0 on Objective; seed 001:
  a broken iteration 0 scores 0). An infrastructure error is not the agent's result: it
  scores 0 here and ``judge_attempt`` leaves such submissions out of the trajectory.
- Marathon phases are scored independently: ``phase_score(result, deliverables, n)`` uses
  only phase n's tests. ``submission_score(result, deliverables, phase)`` — the trajectory
  point — is the mean of the per-phase scores of the phases in play (those present in the
  result, up to ``phase`` when given: the attempt's current phase).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeAlias

from arena.results import JudgeResult, TestResult
from arena.scoring.resultview import Judged, ResultView, memo, view

if TYPE_CHECKING:
    from arena.challenge.models import Deliverable

# The manifest's deliverables in any of the shapes judging meets them: parsed
# (name, kind, weight) tuples, the stored dicts, or the manifest's models.
DeliverableItem: TypeAlias = tuple[str, str, float]
Deliverables: TypeAlias = "Iterable[DeliverableItem | Mapping[str, Any] | Deliverable] | None"

SUITE_WEIGHTS: dict[str, float] = {"static": 0.5, "hidden": 0.3, "adversarial": 0.2}


def r1(x: float) -> float:
    """Round a score for output: one decimal, no negative zero."""
    v = round(float(x) + 0.0, 1)
    return 0.0 if v == 0 else v


def pass_rate(tests: Iterable[TestResult]) -> float | None:
    tests = list(tests)
    if not tests:
        return None
    return sum(1 for t in tests if t.outcome == "passed") / len(tests)


def suite_rates(result: Judged, phase: int | None = None) -> dict[str, float]:
    """Pass rate per suite that has tests (optionally one phase's tests only)."""
    return memo(result, ("rates", phase), lambda: _suite_rates(result, phase))


def _suite_rates(result: Judged, phase: int | None) -> dict[str, float]:
    cache = getattr(result, "cache", None)
    if cache is not None and "counts" in cache:  # a ResultView counted while it was built
        totals: dict[str, list[int]] = {}
        for (ph, suite), (n, ok) in cache["counts"].items():
            if phase is None or ph == phase:
                c = totals.setdefault(suite, [0, 0])
                c[0] += n
                c[1] += ok
    else:
        totals = {}
        for t in result.tests:
            if phase is None or t.phase == phase:
                c = totals.setdefault(t.suite, [0, 0])
                c[0] += 1
                c[1] += t.outcome == "passed"
    return {s: totals[s][1] / totals[s][0] for s in SUITE_WEIGHTS if s in totals}


def tests_score(result: Judged, phase: int | None = None) -> float:
    """0-100 weighted pass rate of one phase's tests (or of all tests when phase is None)."""
    rates = suite_rates(result, phase)
    if not rates:
        return 0.0
    total_w = sum(SUITE_WEIGHTS[s] for s in rates)
    return 100.0 * sum(SUITE_WEIGHTS[s] * r for s, r in rates.items()) / total_w


def phases_in(result: Judged) -> list[int]:
    cache = getattr(result, "cache", None)
    if cache is not None and "counts" in cache:
        return sorted({ph for ph, _ in cache["counts"]}) or [1]
    return sorted({t.phase for t in result.tests}) or [1]


def deliverable_items(deliverables: Deliverables) -> list[DeliverableItem]:
    """(name, kind, weight) of each deliverable: dicts, manifest models or parsed tuples."""
    items: list[DeliverableItem] = []
    for d in deliverables or []:
        if type(d) is tuple and len(d) == 3:  # already parsed (AttemptHistory.deliverables)
            items.append(d)
            continue
        if isinstance(d, dict) or isinstance(d, Mapping):
            name, kind, weight = d.get("name", ""), d.get("kind", "tests"), d.get("weight", 0.0)
        else:  # a pydantic model of the manifest
            name, kind, weight = getattr(d, "name", ""), getattr(d, "kind", "tests"), getattr(d, "weight", 0.0)
        items.append((str(name), str(kind), float(weight or 0.0)))
    return items


def _score_one_phase(result: Judged, items: list[DeliverableItem], phase: int | None) -> float:
    ts = tests_score(result, phase)
    total_w = sum(w for _, _, w in items)
    if not items or total_w <= 0:
        return ts
    acc = 0.0
    for name, kind, weight in items:
        met = ts / 100.0 if kind == "tests" else max(0.0, min(1.0, float(result.deliverables.get(name, 0.0))))
        acc += weight * met
    return 100.0 * acc / total_w


def submission_score(
    result: JudgeResult | ResultView | Mapping[str, Any], deliverables: Deliverables = None, phase: int | None = None
) -> float:
    """The 0-100 objective score of one submission (rounded to 0.1)."""
    judged = view(result)
    if judged.infra_error or judged.build.status == "failure":
        return 0.0
    items = deliverable_items(deliverables)
    in_play = [p for p in phases_in(judged) if phase is None or p <= phase] or [1]
    per_phase = [_score_one_phase(judged, items, p) for p in in_play]
    return r1(sum(per_phase) / len(per_phase))


def phase_score(result: JudgeResult | ResultView | Mapping[str, Any], deliverables: Deliverables, phase: int) -> float:
    """The 0-100 objective of one Marathon phase: only that phase's tests count."""
    judged = view(result)
    if judged.infra_error or judged.build.status == "failure":
        return 0.0
    return r1(_score_one_phase(judged, deliverable_items(deliverables), phase))
