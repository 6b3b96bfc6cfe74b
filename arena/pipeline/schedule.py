"""A calibration run whose scripted schedule slipped is not scored (issue 20, item 5).

The attempt clock runs ``time_scale`` times real time, so a second the machine steals from
a scripted agent costs it ``time_scale`` attempt-seconds (90 at the default scale of a
90-minute Marathon): its later steps start late and it is scored as if it were slow.
``TimedAgent`` wraps a scripted agent's runner and records, for every step, its real
duration, how late a ``wait`` woke (attempt clock past its target) and the machine's load
(1-minute load average per CPU) when it started. ``slips(runs)`` (pure) reads those
records for all the runs of one calibration:

- a ``wait`` that woke more than ``TOLERANCE_S`` real seconds after its target;
- a work step (run, submit, overlay, ...) that took more than its *quiet* duration plus
  ``TOLERANCE_S`` real seconds, the quiet duration being 1.5 times the fastest the same
  step took in another run of the same agent (``own_quiet``), or, for an agent with no
  other run yet, the median of that kind of step over every run of the calibration (so a
  single run flagged by the median is rerun, and the rerun says whether the step is slow
  on every run: the script's pace, or a slip);
- a step that started while the load per CPU was above ``LOAD_LIMIT``.

Each of these delays every later step by ``time_scale`` x its overrun; a run with any of
them is rerun (``calibration.py``), and a run that slipped on every try is reported and not
scored. The figures are real seconds so that they mean the same at every time scale.
"""

from __future__ import annotations

import os
import statistics
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from arena.agents.base import AgentContext, AgentOutcome
    from arena.agents.scripted import ScriptedAgentRunner

TOLERANCE_S = 1.0  # real seconds a step may start late (the "1 s stall")
LOAD_LIMIT = 3.0  # 1-minute load average per CPU above which a step's timing is not trusted
QUIET_FACTOR = 1.5


@dataclass
class Step:
    index: int
    kind: str
    real_s: float  # real seconds the step took
    late_s: float = 0.0  # waits: real seconds past the target when it woke
    load: float = 0.0  # load average per CPU when the step started


@dataclass
class Timing:
    scale: float
    steps: list[Step] = field(default_factory=list)


def load_per_cpu() -> float:
    try:
        return os.getloadavg()[0] / (os.cpu_count() or 1)
    except OSError:  # not available on this platform: never a reason to mark a run
        return 0.0


class TimedAgent:
    """A scripted agent runner that times its steps (everything else is the runner's)."""

    def __init__(self, inner: "ScriptedAgentRunner", scale: float) -> None:
        self.inner = inner
        self.timing = Timing(scale=scale)

    def __getattr__(self, name: str) -> Any:  # Any: whatever the runner has
        return getattr(self.inner, name)

    async def run(self, ctx: "AgentContext") -> "AgentOutcome":
        from arena.agents.base import AgentOutcome  # noqa: PLC0415
        from arena.agents.scripted import _seconds  # noqa: PLC0415

        for i, (kind, value) in enumerate(self.inner.remaining_steps()):
            self.inner.step_index = i
            load = load_per_cpu()
            t0, a0 = time.monotonic(), ctx.elapsed()
            await getattr(self.inner, f"_{kind}")(ctx, value)
            real = time.monotonic() - t0
            late = 0.0
            if kind == "wait":
                late = max(0.0, (ctx.elapsed() - (a0 + _seconds(value))) / self.timing.scale)
            self.timing.steps.append(Step(i, kind, round(real, 3), round(late, 3), round(load, 2)))
        return AgentOutcome(detail="script finished")


def quiet_durations(timings: list[Timing]) -> dict[str, float]:
    """Per step kind (waits aside): the median real duration over all the runs."""
    by_kind: dict[str, list[float]] = {}
    for t in timings:
        for s in t.steps:
            if s.kind != "wait":
                by_kind.setdefault(s.kind, []).append(s.real_s)
    return {k: statistics.median(v) for k, v in by_kind.items()}


def own_quiet(t: Timing, others: list[Timing]) -> dict[int, float]:
    """Per step index: the fastest the same step of the same agent took in its other runs.
    A submission's judge run takes as long as the code under test makes it (a broken store
    whose threads time out judges in seconds, not the median's two): the same step in
    another run of the same script is the fair yardstick, so a step that is slow in every
    run is the script's pace, not a slip."""
    out: dict[int, float] = {}
    for o in others:
        if o is t:
            continue
        for s in o.steps:
            if s.kind != "wait":
                out[s.index] = min(out.get(s.index, s.real_s), s.real_s)
    return out


def slip_reasons(
    t: Timing,
    quiet: dict[str, float],
    tolerance: float = TOLERANCE_S,
    load_limit: float = LOAD_LIMIT,
    own: dict[int, float] | None = None,
) -> list[str]:
    """Why this run's schedule slipped (empty: it kept to its schedule). ``own``: per step
    index, the same agent's other runs (``own_quiet``), which replace the kind's median."""
    own = own or {}
    out = []
    for s in t.steps:
        if s.load > load_limit:
            out.append(f"step {s.index + 1} ({s.kind}) started at load {s.load:g} per CPU (limit {load_limit:g})")
        if s.kind == "wait":
            if s.late_s > tolerance:
                out.append(
                    f"step {s.index + 1} (wait) woke {s.late_s:g}s late ({s.late_s * t.scale:.0f} attempt-s; tolerance {tolerance:g}s)"
                )
            continue
        base = own.get(s.index, quiet.get(s.kind, 0.0))
        allowed = base * QUIET_FACTOR + tolerance
        if s.real_s > allowed:
            over = s.real_s - base
            out.append(
                f"step {s.index + 1} ({s.kind}) took {s.real_s:g}s, {over:.2f}s over its quiet {base:g}s "
                f"(allowed {allowed:.2f}s): later steps started {over * t.scale:.0f} attempt-s late"
            )
    return out
