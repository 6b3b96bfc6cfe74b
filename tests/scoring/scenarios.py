"""Small attempt scenarios for rule tests: one call per iteration."""

from __future__ import annotations

from typing import Iterable

from eventkit import Attempt, passing

from arena.scoring import judge_attempt


def iteration(
    a: Attempt,
    passed: int | Iterable[int],
    *,
    total: int = 100,
    files=("src/app.py",),
    reads=("src/app.py",),
    test_runs: int = 1,
    dur: float = 300.0,
    read_feedback: bool = True,
    edit_delay: float = 30.0,
    similarity: float = 0.6,
    identical: bool = False,
    build_ok: bool = True,
    adversarial: list[bool] | None = None,
    hidden: list[bool] | None = None,
    module: str = "app",
    phase: int = 1,
    phase_tests: dict | None = None,
    edits_per_file: int = 1,
) -> Attempt:
    start = a.t
    if read_feedback and a.n > 0:
        a.read_feedback(after=2)
    for p in reads:
        a.read(p, after=2)
    a.t = max(a.t, start + edit_delay)
    a.emit("file.changed", path=files[0], change="modified", lines_added=2, lines_removed=1) if files else None
    for p in list(files)[1:]:
        a.edit(p, after=1)
    for p in list(files)[:1] * (edits_per_file - 1):
        a.edit(p, after=1)
    for _ in range(test_runs):
        a.run_tests(1, 1, after=5)
    a.submit(
        static=passing(total, passed),
        adversarial=adversarial or (),
        hidden=hidden or (),
        module=module,
        files=list(files),
        similarity=similarity,
        identical=identical,
        build_ok=build_ok,
        at=max(a.t, start + dur),
        phase=phase,
        phase_tests=phase_tests,
    )
    return a


def run(scores: list, fmt: str = "standard", **kw):
    """Judge an attempt whose iterations score ``scores`` (counts of 100 tests passing or
    sets of passing indexes); ``kw`` applies to every iteration, ``per`` overrides per index."""
    per = kw.pop("per", {})
    a = Attempt(fmt, time_limit_s=kw.pop("time_limit_s", 3600), budget=max(4, len(scores)))
    for i, s in enumerate(scores):
        iteration(a, s, **{**kw, **per.get(i, {})})
    return judge_attempt(a.finish())


def process(card) -> dict[str, float]:
    return {x.rule: x.points for x in card.process_adjustments}


def strategy(card) -> dict[str, float]:
    return {x.rule: x.points for x in card.strategy_adjustments}


def flags(card) -> dict[str, float]:
    out: dict[str, float] = {}
    for f in card.flags:
        out[f.rule] = out.get(f.rule, 0) + f.points
    return out
