"""A package's scripted agents as real attempts (sandbox, judge, store), scored by
``arena.scoring.judge_attempt``: what gate 3 (calibrate) and gate 4 (audit, the attacks)
both run. Every scripted attempt keeps to its own schedule (pipeline/schedule.py); a run
whose schedule slipped all the same is rerun up to ``MAX_RERUNS`` times, and one that
slipped on every try is excluded: kept out of the scores, reported under ``slipped``
(``excluded`` in the report) with an error finding, never published as verified."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.agents.scripted import ScriptedAgentRunner
from arena.bus import EventBus
from arena.challenge.errors import error, info
from arena.challenge.loader import Challenge
from arena.pipeline.schedule import TimedAgent, Timing, slip_reasons
from arena.results import Finding
from arena.sandbox.base import Backend

MAX_RERUNS = 2


@dataclass
class AgentRuns:
    runs: dict[str, list[float]] = field(default_factory=dict)  # agent -> totals, first run first
    objectives: dict[str, list[float]] = field(default_factory=dict)  # agent -> Objective per run
    attempts: dict[str, list[str]] = field(default_factory=dict)  # agent -> attempt ids (scored runs)
    slipped: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # agent -> runs not scored
    findings: list[Finding] = field(default_factory=list)
    broken: bool = False


async def _batch(
    ch: Challenge,
    store_path: Path,
    backend: Backend,
    scale: float,
    names: list[str],
    parallel: int,
    bus: EventBus | None = None,
) -> list[tuple[str, str, str, Timing | None]]:
    """(agent, attempt id, status, timing) per job, in order. ``bus``: the attempts'
    events go there too (a live view of a calibration, e.g. the TUI's generate screen)."""
    from arena.attempt import Arena  # noqa: PLC0415 — the whole engine, only when running

    arena = await Arena.open(store_path, backend=backend, parallel=parallel, bus=bus)
    try:
        jobs = []
        for name in names:
            a = arena.attempt(ch, f"scripted:{name}", time_scale=scale)
            if isinstance(a.agent, ScriptedAgentRunner):  # a scripted runner: time its steps
                a.agent = TimedAgent(a.agent, scale)
            jobs.append((name, a))
        statuses = await arena.run_all([a for _, a in jobs])
    finally:
        await arena.close()
    return [(name, a.id, status, getattr(a.agent, "timing", None)) for (name, a), status in zip(jobs, statuses)]


async def run_agents(
    ch: Challenge,
    store_path: Path,
    backend: Backend,
    scale: float,
    repeats: dict[str, int],
    parallel: int = 2,
    *,
    check_schedule: bool = True,
    bus: EventBus | None = None,
) -> AgentRuns:
    from arena.scoring import judge_attempt  # noqa: PLC0415
    from arena.scoring.load import attempt_events  # noqa: PLC0415

    out = AgentRuns()
    names = [n for n, k in repeats.items() for _ in range(k)]
    done = await _batch(ch, store_path, backend, scale, names, parallel, bus)
    pending = done
    for round_ in range(MAX_RERUNS + 1):
        rerun: list[str] = []
        for name, aid, status, timing in pending:
            if status != "finished":
                out.broken = True
                out.findings.append(
                    error(
                        "calibration",
                        f"agents/{name}.yaml: attempt {aid} ended {status}: expected it to run to the end",
                    )
                )
                continue
            _, events = await attempt_events(store_path, aid)
            card = judge_attempt(events)
            why = []
            if timing is not None and check_schedule:
                why = slip_reasons(timing)
            if why:
                out.slipped.setdefault(name, []).append(
                    {"attempt": aid, "total": round(float(card.total), 2), "reasons": why}
                )
                rerun.append(name)
                continue
            out.runs.setdefault(name, []).append(round(float(card.total), 2))
            out.objectives.setdefault(name, []).append(round(float(card.components["objective"]), 2))
            out.attempts.setdefault(name, []).append(aid)
        if not rerun or round_ == MAX_RERUNS:
            break
        pending = await _batch(ch, store_path, backend, scale, rerun, parallel, bus)
    for name, rows in out.slipped.items():
        scored = len(out.runs.get(name, []))
        wanted = repeats.get(name, 1)
        detail = "; ".join(rows[-1]["reasons"][:3])
        if scored < wanted:
            out.findings.append(
                error(
                    "schedule",
                    f"agents/{name}.yaml: {len(rows)} run(s) slipped their schedule (last: {detail}); "
                    f"{scored} of {wanted} run(s) kept to it after {MAX_RERUNS} rerun(s): excluded, not scored "
                    f"(calibrate with a smaller --time-scale, or on a machine with fewer other processes)",
                )
            )
        else:
            out.findings.append(
                info(
                    "schedule",
                    f"agents/{name}.yaml: {len(rows)} run(s) slipped their schedule and were rerun "
                    f"(first: {'; '.join(rows[0]['reasons'][:2])}): excluded; only the on-schedule runs are scored",
                )
            )
    return out
