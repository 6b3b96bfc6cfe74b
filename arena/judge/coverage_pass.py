"""Coverage without charging the agent for it (issue 12, item 4).

The timed run — the one ``judge.timeout`` bounds, whose results are the verdict — runs
the tests as plain pytest would: no tracer. Coverage comes from a second run of the
same tests on the same snapshot, in a fresh judge sandbox of the same kind, started with
``--gauntlet-coverage`` (the bootstrap then traces, branch mode, from collection to the
end of the test loop). Only its ``coverage.json`` is read; its test results, exit code
and output are discarded, so nothing the tracer slows down can time a test out or fail it.

It runs only after a timed run that completed: a pytest command, no infrastructure
error, no timeout, a build that did not fail. Its own budget is
``min(BUDGET_FACTOR × judge.timeout, BUDGET_BASE_S + BUDGET_FACTOR × the timed run's
duration)``; when it overruns, the result has no coverage and a notice says why.
"""

from __future__ import annotations

import dataclasses
import logging

from arena.judge import command as cmd
from arena.results import JudgeResult

log = logging.getLogger(__name__)

BUDGET_FACTOR = 3.0
BUDGET_BASE_S = 5.0
NOTICE_OVERRUN = "Coverage not measured: the traced run overran its budget of {budget:g} s."


def wanted(spec, result: JudgeResult) -> bool:
    """Whether the timed run earns a coverage pass."""
    return (
        not spec.coverage
        and getattr(spec, "wants_coverage", True)
        and result.infra_error is None
        and not result.timed_out
        and result.build.status != "failure"
        and bool(result.tests)
        and cmd.build_argv(spec.command, [])[1]
    )


def budget(spec, timed_run_s: float) -> float:
    return round(min(BUDGET_FACTOR * spec.timeout_s, BUDGET_BASE_S + BUDGET_FACTOR * max(0.0, timed_run_s)), 3)


async def run(judge, spec, snapshot, expected, result: JudgeResult) -> None:
    """Run the coverage pass with ``judge``'s sandboxes and set ``result.coverage``.
    Never changes the verdict: a failed pass leaves ``coverage`` None."""
    limit = budget(spec, result.duration_s)
    cspec = dataclasses.replace(spec, coverage=True, timeout_s=limit)
    side = JudgeResult(submission=result.submission, snapshot_hash=result.snapshot_hash)
    try:
        # a cold sandbox of its own: never a pooled or prepared one (those are the timed runs',
        # and a pool keyed by this pass's budget would pre-start containers nobody takes)
        await judge._run_sandboxed(cspec, snapshot, expected, side)
    except (OSError, ValueError, RuntimeError) as e:
        log.warning("judge: the coverage pass failed: %s", e)
        side.coverage = None
    if side.timed_out:
        result.notices.append(NOTICE_OVERRUN.format(budget=limit))
    result.coverage = side.coverage
