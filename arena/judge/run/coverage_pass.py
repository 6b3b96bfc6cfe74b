"""Coverage without charging the agent for it (issue 12, item 4).

The timed run — the one ``judge.timeout`` bounds, whose results are the verdict — runs
the tests as plain pytest would: no tracer. Coverage comes from a second run of the
same tests on the same snapshot, in a fresh judge sandbox of the same kind, started with
``--gauntlet-coverage`` (the bootstrap then traces, branch mode, from collection to the
end of the test loop). Like the timed run, it takes a sandbox prepared before its
submission (local) or a pooled one (Docker), keyed apart from the timed runs' and started
with ``GAUNTLET_JUDGE_TRACE=1`` so that its fork server sets the tracer up while waiting;
a cold one when none is ready. Only its ``coverage.json`` is read; its test results, exit code
and output are discarded, so nothing the tracer slows down can time a test out or fail it.

It runs only after a timed run that completed: a pytest command, no infrastructure
error, no timeout, a build that did not fail. Its own budget is
``min(BUDGET_FACTOR × judge.timeout, BUDGET_BASE_S + BUDGET_FACTOR × the timed run's
duration)``; when it overruns, the result has no coverage and a notice says why.
"""

from __future__ import annotations

import dataclasses
import logging

from arena.judge.run import command as cmd
from arena.results import JudgeResult

log = logging.getLogger(__name__)

BUDGET_FACTOR = 3.0
BUDGET_BASE_S = 5.0
NOTICE_OVERRUN = "Coverage not measured: the traced run overran its budget of {budget:g} s."


def ever(spec) -> bool:
    """Whether any timed run of ``spec`` can earn a coverage pass (what a judge warms)."""
    return not spec.coverage and getattr(spec, "wants_coverage", True) and cmd.build_argv(spec.command, [])[1]


def spec_for(spec, limit: float | None = None):
    """The coverage pass's spec: traced, with its own budget (the timed run's timeout
    until the budget is known: a prepared sandbox's key does not depend on it)."""
    return dataclasses.replace(spec, coverage=True, timeout_s=spec.timeout_s if limit is None else limit)


def wanted(spec, result: JudgeResult) -> bool:
    """Whether the timed run earns a coverage pass."""
    return (
        ever(spec)
        and result.infra_error is None
        and not result.timed_out
        and result.build.status != "failure"
        and bool(result.tests)
    )


def budget(spec, timed_run_s: float) -> float:
    return round(min(BUDGET_FACTOR * spec.timeout_s, BUDGET_BASE_S + BUDGET_FACTOR * max(0.0, timed_run_s)), 3)


async def run(judge, spec, snapshot, expected, result: JudgeResult, later=None) -> None:
    """Run the coverage pass with ``judge``'s sandboxes and set ``result.coverage``.
    Never changes the verdict: a failed pass leaves ``coverage`` None. A sandbox of its
    own kind: prepared (local) or pooled (Docker) with the tracer already set up, keyed
    apart from the timed runs' (never one of theirs), else a cold one."""
    limit = budget(spec, result.duration_s)
    cspec = spec_for(spec, limit)
    side = JudgeResult(submission=result.submission, snapshot_hash=result.snapshot_hash)
    try:
        await judge._dispatch(cspec, snapshot, expected, side, later)
    except (OSError, ValueError, RuntimeError) as e:
        log.warning("judge: the coverage pass failed: %s", e)
        side.coverage = None
    if side.timed_out:
        result.notices.append(NOTICE_OVERRUN.format(budget=limit))
    result.coverage = side.coverage
