"""Seed 003 gate 3 (difficulty calibration): the package's four benchmark agents
(``agents/{naive,standard,elite,reference}.yaml``) run as real attempts — sandbox, judge,
store — and are scored by ``arena.scoring.judge_attempt``. The naive/standard/elite scores
must fall in seed 002's bands for the package's weight class and their spread
(elite - naive) in that class's range; seed 003 adds the class-independent conditions:
reference above 85, strict order, repeats within 10 points (flakiness). Seed 003's
"stddev > 15" is only an informational note, never a failure (it contradicts seed 002's
lightweight bands, and any warning would fail the gate's exit code; see docs/foundation.md,
"Calibration bands: where seeds 002 and 003 disagree")."""

from __future__ import annotations

import shutil
import statistics
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from arena.challenge.errors import error, info
from arena.challenge.loader import Challenge, load_challenge
from arena.pipeline.baselines import BASELINES, assess_baselines, with_baselines
from arena.pipeline.misclass import classification, classification_findings
from arena.results import Finding
from arena.sandbox.base import Backend

AGENTS = ("naive", "standard", "elite", "reference")
Band = tuple[float, float]
# Seed 002 "Weight Class Validation" -> "Benchmark Agent Calibration": per weight class, the
# inclusive bands of the naive, standard and elite agents and of the spread (elite - naive).
# The one source of truth for gate 3's bands (publish re-checks reports against it).
CLASS_BANDS: dict[str, dict[str, Band]] = {
    "lightweight": {"naive": (60.0, 80.0), "standard": (80.0, 95.0), "elite": (90.0, 100.0), "spread": (20.0, 35.0)},
    "middleweight": {"naive": (25.0, 50.0), "standard": (50.0, 75.0), "elite": (70.0, 90.0), "spread": (35.0, 55.0)},
    "contender": {"naive": (10.0, 30.0), "standard": (35.0, 55.0), "elite": (55.0, 80.0), "spread": (45.0, 65.0)},
    "heavyweight": {"naive": (0.0, 15.0), "standard": (15.0, 40.0), "elite": (40.0, 60.0), "spread": (50.0, 65.0)},
    "frontier": {"naive": (0.0, 5.0), "standard": (5.0, 20.0), "elite": (20.0, 40.0), "spread": (25.0, 40.0)},
}
BANDED = ("naive", "standard", "elite")
REFERENCE_ABOVE = 85.0  # seed 003, every class: strictly above
MIN_STDEV = 15.0  # seed 003 "stddev > 15": an info note only (lightweight's own bands give ~12)
FLAKY_AGENTS = ("elite", "standard")
FLAKY_RUNS = 3
FLAKY_LIMIT = 10.0  # max - min over the runs


@dataclass
class Calibration:
    runs: dict[str, list[float]] = field(default_factory=dict)  # agent -> totals, first run first
    attempts: dict[str, list[str]] = field(default_factory=dict)  # agent -> attempt ids
    findings: list[Finding] = field(default_factory=list)
    classification: dict | None = None  # seed 002 misclassification + class suggestion (misclass.py)

    @property
    def scores(self) -> dict[str, float]:
        return {a: r[0] for a, r in self.runs.items() if r}

    @property
    def spread(self) -> float | None:
        """Seed 002's spread: elite - naive (first runs)."""
        s = self.scores
        return round(s["elite"] - s["naive"], 2) if "elite" in s and "naive" in s else None


def default_time_scale(ch: Challenge) -> float:
    """About a minute of real time for the whole time limit (judge runs stay short
    against it: 2 s of judging is ~3% of the attempt)."""
    return max(1.0, ch.manifest.time_limit_s / 60.0)


def bands(weight_class: str) -> dict[str, Band]:
    """Seed 002's bands for a weight class (name as ``Manifest.weight_class`` normalises it)."""
    try:
        return CLASS_BANDS[weight_class]
    except KeyError:
        raise ValueError(f"weight class {weight_class!r}: expected one of {', '.join(CLASS_BANDS)}") from None


def assess(runs: dict[str, list[float]], weight_class: str) -> list[Finding]:
    """The gate 3 conditions on the scores (pure); ``runs`` holds all four agents."""
    band = bands(weight_class)
    s = {a: r[0] for a, r in runs.items() if r}
    out: list[Finding] = []
    if s["reference"] <= REFERENCE_ABOVE:
        out.append(
            error(
                "calibration",
                f"agents/reference.yaml: scored {s['reference']:g}: expected above {REFERENCE_ABOVE:g} (the challenge must be solvable)",
            )
        )
    for agent in BANDED:
        lo, hi = band[agent]
        if not lo <= s[agent] <= hi:
            why = "too easy" if s[agent] > hi else "too hard"
            out.append(
                error(
                    "calibration",
                    f"agents/{agent}.yaml: scored {s[agent]:g}: expected {lo:g}-{hi:g} ({why} for the {agent} agent in {weight_class})",
                )
            )
    spread = round(s["elite"] - s["naive"], 2)
    lo, hi = band["spread"]
    if not lo <= spread <= hi:
        out.append(
            error("calibration", f"score spread (elite - naive) {spread:g}: expected {lo:g}-{hi:g} for {weight_class}")
        )
    if not s["reference"] > s["elite"] > s["standard"] > s["naive"]:
        got = " > ".join(f"{a} {s[a]:g}" for a in reversed(AGENTS))
        out.append(error("calibration", f"score order: expected reference > elite > standard > naive, got {got}"))
    for agent in FLAKY_AGENTS:
        r = runs.get(agent, [])
        if len(r) > 1 and max(r) - min(r) > FLAKY_LIMIT:
            out.append(
                error(
                    "flakiness",
                    f"agents/{agent}.yaml: scores {', '.join(f'{x:g}' for x in r)} over {len(r)} runs vary by {max(r) - min(r):g}: expected at most {FLAKY_LIMIT:g}",
                )
            )
    if not [f for f in out if f.severity == "error"]:
        out.append(
            info(
                "calibration",
                f"{weight_class}: scores " + ", ".join(f"{a} {s[a]:g}" for a in AGENTS) + f"; spread {spread:g}",
            )
        )
    stdev = statistics.stdev(s[a] for a in AGENTS)
    if stdev <= MIN_STDEV:
        out.append(
            info(
                "calibration",
                f"score stddev {stdev:.1f}: seed 003 asks above {MIN_STDEV:g} (a note, not a failure: seed 002's {weight_class} bands take precedence)",
            )
        )
    return out


async def _run(
    ch: Challenge, store_path: Path, backend: Backend, time_scale: float, repeats: dict[str, int], parallel: int
) -> Calibration:
    from arena.attempt import Arena  # noqa: PLC0415 — the whole engine, only when calibrating
    from arena.scoring import judge_attempt  # noqa: PLC0415
    from arena.scoring.load import attempt_events  # noqa: PLC0415

    cal = Calibration()
    arena = await Arena.open(store_path, backend=backend, parallel=parallel)
    try:
        names = [n for n in AGENTS + BASELINES if n in ch.agent_names]
        jobs = [
            (name, arena.attempt(ch, f"scripted:{name}", time_scale=time_scale))
            for name in names
            for _ in range(repeats.get(name, 1))
        ]
        statuses = await arena.run_all([a for _, a in jobs])
    finally:
        await arena.close()
    broken = False
    for (name, attempt), status in zip(jobs, statuses):
        cal.attempts.setdefault(name, []).append(attempt.id)
        if status != "finished":
            broken = True
            cal.findings.append(
                error(
                    "calibration",
                    f"agents/{name}.yaml: attempt {attempt.id} ended {status}: expected it to run to the end",
                )
            )
            continue
        _, events = await attempt_events(store_path, attempt.id)
        cal.runs.setdefault(name, []).append(round(float(judge_attempt(events).total), 2))
    if not broken:
        cal.findings += assess({a: r for a, r in cal.runs.items() if a in AGENTS}, ch.manifest.weight_class)
        cal.findings += assess_baselines(cal.runs, bands(ch.manifest.weight_class))
        cal.classification = classification(cal.scores, ch.manifest.weight_class)
        cal.findings += classification_findings(cal.classification)
    return cal


async def calibrate(
    ch: Challenge,
    *,
    backend: Backend,
    time_scale: float | None = None,
    store: Path | None = None,
    flakiness: bool = True,
    parallel: int = 2,
) -> Calibration:
    missing = [a for a in AGENTS if a not in ch.agent_names]
    if missing:
        return Calibration(
            findings=[
                error(
                    "calibration", f"agents/{a}.yaml: missing: expected the {a} benchmark agent (gate 3 runs all four)"
                )
                for a in missing
            ]
        )
    repeats = {a: FLAKY_RUNS for a in FLAKY_AGENTS} if flakiness else {}
    scale = time_scale or default_time_scale(ch)
    tmp = Path(tempfile.mkdtemp(prefix="gauntlet-calibrate-"))
    try:  # the null agent and the deletion attack join the author's agents (pipeline/baselines.py)
        ch = load_challenge(with_baselines(Path(ch.root), tmp))
        return await _run(ch, store if store is not None else tmp / "calibration.db", backend, scale, repeats, parallel)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
