"""Issue 38 item 4, the fast half: a scripted agent in calibration keeps to its own time
(pipeline/schedule.py) — declared waits plus the CPU its own commands used — whatever the
machine made it wait for; only a step that starts late against that time slipped, load
decides nothing; and a run calibration excluded is never published as verified. The clock
is the engine's ``AttemptClock`` over ``ManualTime``: a "slow machine" is a command that
moves the source clock a long way while using little CPU."""

from __future__ import annotations

import contextlib
from pathlib import Path

from arena.challenge import load_challenge
from arena.clock import AttemptClock, ManualTime
from arena.formats import rules_for
from arena.pipeline.publishing import calibration_findings, excluded_findings, parse_calibration
from arena.pipeline.schedule import TOLERANCE_S, Step, TimedAgent, Timing, slip_reasons

OFF_BY_ONE = Path(__file__).resolve().parents[1] / "arena" / "bundled" / "off-by-one"
SCALE = 60.0


class _Cgroup:
    def __init__(self) -> None:
        self.cpu = 0.0

    def cpu_seconds(self) -> float:
        return self.cpu


class _Sandbox:
    def __init__(self) -> None:
        self.cg = _Cgroup()


class _Ctx:
    """What TimedAgent reads of an attempt: its clock, sandbox, holds and sleeps."""

    def __init__(self) -> None:
        self.src = ManualTime()
        self.clock = AttemptClock(self.src, rules_for("sprint"), 900, scale=SCALE)
        self.sandbox = _Sandbox()
        self.submitted: list[float] = []

    def elapsed(self) -> float:
        return self.clock.elapsed()

    async def sleep_until(self, t: float) -> None:
        self.src.set(max(self.src.now(), self.clock.source_time(t)))

    def hold(self, io: bool = False) -> contextlib.AbstractAsyncContextManager[None]:
        return contextlib.nullcontext()


class _Script:
    """A scripted runner: ``run`` takes ``machine_s`` real seconds and uses ``cpu_s`` of CPU."""

    def __init__(self, steps, machine_s: float, cpu_s: float = 0.5) -> None:
        self.steps, self.machine_s, self.cpu_s, self.step_index = steps, machine_s, cpu_s, 0

    def remaining_steps(self):
        return list(self.steps)

    async def _run(self, ctx: _Ctx, value: object) -> None:
        ctx.src.advance(self.machine_s)
        ctx.sandbox.cg.cpu += self.cpu_s

    async def _submit(self, ctx: _Ctx, value: object) -> None:
        ctx.submitted.append(round(ctx.elapsed(), 6))


async def _play(steps, machine_s: float) -> tuple[list[float], Timing]:
    ctx = _Ctx()
    agent = TimedAgent(_Script(steps, machine_s), SCALE)  # type: ignore[arg-type]
    await agent.run(ctx)  # type: ignore[arg-type]
    return ctx.submitted, agent.timing


STEPS = [("run", "pytest"), ("wait", 120), ("run", "pytest"), ("submit", None), ("wait", 60), ("submit", None)]


async def test_the_script_keeps_its_own_time_on_a_quiet_and_a_loaded_machine():
    quiet, t_quiet = await _play(STEPS, machine_s=0.6)
    loaded, t_loaded = await _play(STEPS, machine_s=12.0)  # a machine 20x slower to run it
    # own time: 0.5 s CPU x 60 + 120 s wait + 0.5 x 60, then the second submit 60 s later
    assert quiet == loaded == [180.0, 240.0]
    assert slip_reasons(t_quiet) == [] and slip_reasons(t_loaded) == []
    assert [s.cpu_s for s in t_loaded.steps if s.kind == "run"] == [0.5, 0.5]
    # before (the command's real seconds x the scale): 12 s cost 720 attempt-seconds a step


async def test_a_command_that_uses_more_cpu_is_the_agents_pace_not_a_slip():
    ctx_steps = [("run", "pytest"), ("submit", None)]
    ctx = _Ctx()
    agent = TimedAgent(_Script(ctx_steps, machine_s=3.0, cpu_s=3.0), SCALE)  # type: ignore[arg-type]
    await agent.run(ctx)  # type: ignore[arg-type]
    assert ctx.submitted == [180.0] and slip_reasons(agent.timing) == []


def test_only_a_late_start_slips_and_load_decides_nothing():
    limit = TOLERANCE_S * SCALE
    on_time = Timing(SCALE, [Step(0, "run", 9.0, 0.0, load=12.0), Step(1, "submit", 30.0, limit, load=9.0)])
    assert slip_reasons(on_time) == []  # at the tolerance exactly, at any load
    late = Timing(SCALE, [Step(0, "wait", 0.0, 0.0), Step(1, "submit", 2.0, 150.0, load=0.1)])
    assert slip_reasons(late) == [
        "step 2 (submit) started 150 attempt-s after the script's own instant "
        "(tolerance 60 attempt-s: 1 real s at time scale 60)"
    ]


def _report(doc_extra: dict) -> object:
    runs = {"naive": [15.0], "standard": [40.0], "elite": [70.0], "reference": [95.0]}
    doc = {"challenge": "off-by-one", "runs": runs, "attempts": {a: [f"a-{a}"] for a in runs}, **doc_extra}
    return parse_calibration(doc, "cal.json")


def test_publish_refuses_a_report_that_scores_an_excluded_run():
    ch = load_challenge(OFF_BY_ONE)
    for extra in (
        {"excluded": {"elite": ["a-elite"]}},
        {"slipped": {"elite": [{"attempt": "a-elite", "total": 70.0, "reasons": ["late"]}]}},
    ):
        rep = _report(extra)
        [why] = excluded_findings(rep)  # type: ignore[arg-type]
        assert why.severity == "error" and "attempt a-elite was excluded" in why.detail
        for verify in (True, False):  # verified or not, gate 3 has an error: nothing is published
            found = calibration_findings(ch, rep, "sha256:x", verify=verify)  # type: ignore[arg-type]
            assert why in found
    # an excluded run that the report does not score is only history (its rerun is scored)
    assert excluded_findings(_report({"excluded": {"elite": ["a-other"]}})) == []  # type: ignore[arg-type]
    [bad] = excluded_findings(_report({"excluded": ["a-elite"]}))  # type: ignore[arg-type]
    assert "key 'excluded'" in bad.detail
