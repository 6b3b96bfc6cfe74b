"""A calibration run judges what a scripted agent did, not when the machine got to it
(issue 20 item 5, issue 38 item 4).

The attempt clock runs ``time_scale`` times real time, so a second the machine steals from
a scripted agent would cost it ``time_scale`` attempt-seconds (90 at the default scale of a
90-minute Marathon): its later steps would start late and it would be scored as if it were
slow. A loaded machine (CI runs two test processes on two cores) moved every run's
schedule by minutes. ``TimedAgent`` wraps a scripted agent's runner in calibration and
audit and keeps the script to its *own* time:

- the script's own time advances by its declared waits and by its own work: a ``run``
  step is charged the CPU its sandbox used (``arena.sandbox.cpu``) times the time scale,
  what the command costs on a machine that gives it a CPU when it asks; the other work
  steps (overlay, delete, read, submit, message) are charged what they took, at real speed;
- work steps run with the attempt clock at real speed (``AttemptClock.unscaled``, as
  judging does), so the time the machine makes a command wait costs real seconds, not
  ``time_scale`` times them, and every step starts at the script's own instant (a step that
  would start early waits for it): the attempt sees the schedule a quiet machine gives;
- a ``run`` step in a sandbox that cannot say its CPU (the rootless local backend) is
  charged its real duration times the scale, as before this module kept its own time;
- a step that starts more than ``TOLERANCE_S`` real seconds (that times the scale in
  attempt-seconds) after the script's own instant *slipped*: the machine did not run the
  calibration process itself for that long. ``slip_reasons(timing)`` (pure) lists them.

A run that slipped is rerun up to ``MAX_RERUNS`` times (``agent_runs.py``); one that slipped
on every try is *excluded*: kept out of the scores, reported (an error finding, and under
``excluded`` in the report), and never published as verified (``publishing.py``). The
machine's load is recorded per step for the report and decides nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from arena.agents.base import AgentContext, AgentOutcome
    from arena.agents.scripted import ScriptedAgentRunner
    from arena.sandbox.cpu import Meter

TOLERANCE_S = 1.0  # real seconds a wait may end past the script's own instant


@dataclass
class Step:
    index: int
    kind: str
    real_s: float  # real seconds the step took
    late_s: float = 0.0  # attempt-seconds it started after the script's own instant
    load: float = 0.0  # load average per CPU when the step started (reported, decides nothing)
    cpu_s: float | None = None  # run steps: CPU seconds the agent's sandbox used (None: unknown)


@dataclass
class Timing:
    scale: float
    steps: list[Step] = field(default_factory=list)


def load_per_cpu() -> float:
    try:
        return os.getloadavg()[0] / (os.cpu_count() or 1)
    except OSError:  # not available on this platform
        return 0.0


async def _cpu(meter: Meter | None) -> float | None:
    if meter is None:
        return None
    try:
        got = await asyncio.to_thread(meter)  # a meter may block (docker asks its engine once)
    except Exception:  # noqa: BLE001 — the sandbox cannot say: unknown, never a failure
        return None
    return float(got) if got is not None else None


class TimedAgent:
    """A scripted agent runner kept to its own schedule and timed (the steps are the runner's)."""

    def __init__(self, inner: "ScriptedAgentRunner", scale: float) -> None:
        self.inner = inner
        self.timing = Timing(scale=scale)

    def __getattr__(self, name: str) -> Any:  # Any: whatever the runner has
        return getattr(self.inner, name)

    async def run(self, ctx: "AgentContext") -> "AgentOutcome":
        from arena.agents.base import AgentOutcome  # noqa: PLC0415
        from arena.agents.scripted import _seconds  # noqa: PLC0415
        from arena.sandbox.cpu import cpu_meter  # noqa: PLC0415

        clock = getattr(ctx, "clock", None)
        meter = cpu_meter(ctx.sandbox)
        scale = self.timing.scale
        own = ctx.elapsed()  # the script's own time: its waits and its own work
        for i, (kind, value) in enumerate([*self.inner.remaining_steps(), ("end", None)]):
            if ctx.elapsed() < own:  # never ahead of its own schedule
                async with ctx.hold():  # waiting for its own time is a declared wait, not a hang
                    await ctx.sleep_until(own)
            late = max(0.0, ctx.elapsed() - own)
            if late > TOLERANCE_S * scale:
                own = ctx.elapsed()  # a slip counts once, not again at every later step
            if kind == "end":
                break
            self.inner.step_index = i
            load, t0, a0, cpu = load_per_cpu(), time.monotonic(), ctx.elapsed(), None
            if kind == "wait":
                own += _seconds(value)
            else:
                c0 = await _cpu(meter) if kind == "run" else None
                # a submission keeps the scaled clock: its judge run is unscaled by the judge
                # already, and a rule's own wait (a Sprint's 30 s double-submit window before
                # feedback) is attempt time, not 30 real seconds per submission
                with clock.unscaled() if clock is not None and kind != "submit" else contextlib.nullcontext():
                    await getattr(self.inner, f"_{kind}")(ctx, value)
                c1 = await _cpu(meter) if c0 is not None else None
                if c0 is not None and c1 is not None:
                    cpu = round(max(0.0, c1 - c0), 3)
                    own += cpu * scale
                elif kind == "run":  # no CPU reading: its real duration, scaled
                    own += (time.monotonic() - t0) * scale
                else:
                    own += ctx.elapsed() - a0
            real = time.monotonic() - t0
            self.timing.steps.append(Step(i, kind, round(real, 3), round(late, 3), round(load, 2), cpu))
        return AgentOutcome(detail="script finished")


def slip_reasons(t: Timing, tolerance: float = TOLERANCE_S) -> list[str]:
    """Why this run did not keep to its own schedule (empty: it did): the steps that started
    more than ``tolerance`` real seconds' worth of attempt time after the script's own instant."""
    limit = tolerance * t.scale
    return [
        f"step {s.index + 1} ({s.kind}) started {s.late_s:.0f} attempt-s after the script's own instant "
        f"(tolerance {limit:.0f} attempt-s: {tolerance:g} real s at time scale {t.scale:g})"
        for s in t.steps
        if s.late_s > limit
    ]
