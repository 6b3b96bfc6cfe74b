"""Seed 003 gate 3 (difficulty calibration): the package's four benchmark agents
(``agents/{naive,standard,elite,reference}.yaml``) run as real attempts — sandbox, judge,
store — and are scored by ``arena.scoring.judge_attempt``; the scores must fall in the
seed's bands, spread, order, and repeat within 10 points (flakiness)."""
from __future__ import annotations

import shutil
import statistics
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.challenge.errors import error, info
from arena.challenge.loader import Challenge
from arena.judge.results import Finding

AGENTS = ("naive", "standard", "elite", "reference")
# Seed 003 step 3.2 bands (inclusive, except reference: strictly above 85).
BANDS = {"naive": (5.0, 25.0), "standard": (25.0, 55.0), "elite": (55.0, 80.0)}
REFERENCE_ABOVE = 85.0
MIN_SPREAD = 15.0  # sample standard deviation of the four scores must exceed it
FLAKY_AGENTS = ("elite", "standard")
FLAKY_RUNS = 3
FLAKY_LIMIT = 10.0  # max - min over the runs


@dataclass
class Calibration:
    runs: dict[str, list[float]] = field(default_factory=dict)  # agent -> totals, first run first
    attempts: dict[str, list[str]] = field(default_factory=dict)  # agent -> attempt ids
    findings: list[Finding] = field(default_factory=list)

    @property
    def scores(self) -> dict[str, float]:
        return {a: r[0] for a, r in self.runs.items() if r}

    @property
    def spread(self) -> float | None:
        s = self.scores
        return round(statistics.stdev(s[a] for a in AGENTS), 2) if all(a in s for a in AGENTS) else None


def default_time_scale(ch: Challenge) -> float:
    """About a minute of real time for the whole time limit (judge runs stay short
    against it: 2 s of judging is ~3% of the attempt)."""
    return max(1.0, ch.manifest.time_limit_s / 60.0)


def assess(runs: dict[str, list[float]]) -> list[Finding]:
    """The gate 3 conditions on the scores (pure)."""
    s = {a: r[0] for a, r in runs.items() if r}
    out: list[Finding] = []
    if s["reference"] <= REFERENCE_ABOVE:
        out.append(error("calibration", f"agents/reference.yaml: scored {s['reference']:g}: expected above {REFERENCE_ABOVE:g} (the challenge must be solvable)"))
    for agent, (lo, hi) in BANDS.items():
        if not lo <= s[agent] <= hi:
            why = "too easy" if s[agent] > hi else "too hard"
            out.append(error("calibration", f"agents/{agent}.yaml: scored {s[agent]:g}: expected {lo:g}-{hi:g} ({why} for the {agent} agent)"))
    spread = statistics.stdev(s[a] for a in AGENTS)
    if spread <= MIN_SPREAD:
        out.append(error("calibration", f"score spread (stddev) {spread:.1f}: expected above {MIN_SPREAD:g} (the challenge must discriminate)"))
    if not s["reference"] > s["elite"] > s["standard"] > s["naive"]:
        got = " > ".join(f"{a} {s[a]:g}" for a in reversed(AGENTS))
        out.append(error("calibration", f"score order: expected reference > elite > standard > naive, got {got}"))
    for agent in FLAKY_AGENTS:
        r = runs.get(agent, [])
        if len(r) > 1 and max(r) - min(r) > FLAKY_LIMIT:
            out.append(error("flakiness", f"agents/{agent}.yaml: scores {', '.join(f'{x:g}' for x in r)} over {len(r)} runs vary by {max(r) - min(r):g}: expected at most {FLAKY_LIMIT:g}"))
    if not out:
        out.append(info("calibration", "scores " + ", ".join(f"{a} {s[a]:g}" for a in AGENTS) + f"; spread {spread:.1f}"))
    return out


async def _run(ch: Challenge, store_path: Path, backend: Any, time_scale: float, repeats: dict[str, int], parallel: int) -> Calibration:
    from arena.attempt import Arena  # noqa: PLC0415 — the whole engine, only when calibrating
    from arena.scoring import judge_attempt  # noqa: PLC0415
    from arena.scoring.load import attempt_events  # noqa: PLC0415

    cal = Calibration()
    arena = await Arena.open(store_path, backend=backend, parallel=parallel)
    try:
        jobs = [(name, arena.attempt(ch, f"scripted:{name}", time_scale=time_scale)) for name in AGENTS for _ in range(repeats.get(name, 1))]
        statuses = await arena.run_all([a for _, a in jobs])
    finally:
        await arena.close()
    broken = False
    for (name, attempt), status in zip(jobs, statuses):
        cal.attempts.setdefault(name, []).append(attempt.id)
        if status != "finished":
            broken = True
            cal.findings.append(error("calibration", f"agents/{name}.yaml: attempt {attempt.id} ended {status}: expected it to run to the end"))
            continue
        _, events = await attempt_events(store_path, attempt.id)
        cal.runs.setdefault(name, []).append(round(float(judge_attempt(events).total), 2))
    if not broken:
        cal.findings += assess(cal.runs)
    return cal


async def calibrate(ch: Challenge, *, backend: Any, time_scale: float | None = None, store: Path | None = None,
                    flakiness: bool = True, parallel: int = 2) -> Calibration:
    missing = [a for a in AGENTS if a not in ch.agent_names]
    if missing:
        return Calibration(findings=[error("calibration", f"agents/{a}.yaml: missing: expected the {a} benchmark agent (gate 3 runs all four)") for a in missing])
    repeats = {a: FLAKY_RUNS for a in FLAKY_AGENTS} if flakiness else {}
    scale = time_scale or default_time_scale(ch)
    if store is not None:
        return await _run(ch, store, backend, scale, repeats, parallel)
    tmp = Path(tempfile.mkdtemp(prefix="gauntlet-calibrate-"))
    try:
        return await _run(ch, tmp / "calibration.db", backend, scale, repeats, parallel)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
