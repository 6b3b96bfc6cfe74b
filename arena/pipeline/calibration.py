"""Seed 003 gate 3 (difficulty calibration): the package's four benchmark agents
(``agents/{naive,standard,elite,reference}.yaml``) run as real attempts — sandbox, judge,
store — and are scored by ``arena.scoring.judge_attempt``. The naive/standard/elite scores
must fall in seed 002's bands for the package's weight class and their spread
(elite - naive) in that class's range; seed 003 adds the class-independent conditions:
reference above 85, strict order, repeats within 10 points (flakiness). Seed 003's own
fixed bands (elite 55-80, standard 25-55, naive 5-25) and its "stddev > 15" are reported
beside them (``seed_003``, info findings) and decide nothing: they are seed 003's contender
shape and contradict seed 002's other classes (its lightweight bands give a stddev of ~12;
docs/foundation.md, "Calibration bands: where seeds 002 and 003 disagree").

Beside the four, calibrate runs the null agent and gate 4's three attacks
(pipeline/baselines.py); every run's schedule is checked (pipeline/schedule.py)."""

from __future__ import annotations

import shutil
import statistics
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from arena.bus import EventBus
from arena.challenge.errors import error, info
from arena.challenge.loader import Challenge, load_challenge
from arena.pipeline.bands import CLASS_BANDS, Band  # the one table (re-exported here)
from arena.pipeline.baselines import BASELINES, assess_baselines, with_baselines
from arena.pipeline.common import default_time_scale  # re-exported: callers import it from here
from arena.pipeline.misclass import classification, classification_findings
from arena.results import Finding
from arena.sandbox.base import Backend

AGENTS = ("naive", "standard", "elite", "reference")
BANDED = ("naive", "standard", "elite")
REFERENCE_ABOVE = 85.0  # seed 003, every class: strictly above
MIN_STDEV = 15.0  # seed 003 "stddev > 15": an info note only (lightweight's own bands give ~12)
# Seed 003 Quality Gate 3's fixed bands (every class): reported beside seed 002's, never deciding.
SEED_003_BANDS: dict[str, Band] = {"elite": (55.0, 80.0), "standard": (25.0, 55.0), "naive": (5.0, 25.0)}
FLAKY_AGENTS = ("elite", "standard")
FLAKY_RUNS = 3
FLAKY_LIMIT = 10.0  # max - min over the runs


@dataclass
class Calibration:
    runs: dict[str, list[float]] = field(default_factory=dict)  # agent -> totals, first run first
    attempts: dict[str, list[str]] = field(default_factory=dict)  # agent -> attempt ids
    findings: list[Finding] = field(default_factory=list)
    classification: dict | None = None  # seed 002 misclassification + class suggestion (misclass.py)
    objectives: dict[str, list[float]] = field(default_factory=dict)  # agent -> Objective per run
    slipped: dict[str, list[dict]] = field(default_factory=dict)  # runs not scored (schedule slipped)
    seed_003: dict | None = None  # seed 003's fixed bands and stddev, reported (seed_003_report)

    @property
    def scores(self) -> dict[str, float]:
        return {a: r[0] for a, r in self.runs.items() if r}

    @property
    def spread(self) -> float | None:
        """Seed 002's spread: elite - naive (first runs)."""
        s = self.scores
        return round(s["elite"] - s["naive"], 2) if "elite" in s and "naive" in s else None


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


def seed_003_report(scores: dict[str, float]) -> dict:
    """Seed 003's fixed bands and stddev rule on the first-run totals (reported only)."""
    checks = {
        a: {
            "band": list(SEED_003_BANDS[a]),
            "score": scores[a],
            "ok": SEED_003_BANDS[a][0] <= scores[a] <= SEED_003_BANDS[a][1],
        }
        for a in SEED_003_BANDS
        if a in scores
    }
    stdev = round(statistics.stdev(scores[a] for a in AGENTS), 2) if all(a in scores for a in AGENTS) else None
    checks["stddev"] = {"above": MIN_STDEV, "score": stdev, "ok": stdev is not None and stdev > MIN_STDEV}
    return {
        "decides": False,
        "why": "seed 002's class bands decide (docs/foundation.md)",
        "checks": checks,
        "ok": all(c["ok"] for c in checks.values()),
    }


def seed_003_findings(rep: dict) -> list[Finding]:
    parts = [
        f"{a} {c['score']:g} {'in' if c['ok'] else 'outside'} {c['band'][0]:g}-{c['band'][1]:g}"
        for a, c in rep["checks"].items()
        if a != "stddev"
    ]
    sd = rep["checks"]["stddev"]
    parts.append(f"stddev {sd['score']:g} {'above' if sd['ok'] else 'not above'} {sd['above']:g}")
    return [
        info("calibration", "seed 003's fixed bands (reported, seed 002's class bands decide): " + ", ".join(parts))
    ]


async def _run(
    ch: Challenge,
    store_path: Path,
    backend: Backend,
    time_scale: float,
    repeats: dict[str, int],
    parallel: int,
    bus: EventBus | None = None,
) -> Calibration:
    from arena.pipeline.agent_runs import run_agents  # noqa: PLC0415 — the whole engine, only when calibrating

    names = [n for n in AGENTS + BASELINES if n in ch.agent_names]
    got = await run_agents(
        ch, store_path, backend, time_scale, {n: repeats.get(n, 1) for n in names}, parallel, bus=bus
    )
    cal = Calibration(
        runs=got.runs,
        attempts=got.attempts,
        findings=list(got.findings),
        objectives=got.objectives,
        slipped=got.slipped,
    )
    if not got.broken and all(cal.runs.get(a) for a in AGENTS):
        cal.findings += assess({a: r for a, r in cal.runs.items() if a in AGENTS}, ch.manifest.weight_class)
        cal.findings += assess_baselines(cal.runs, bands(ch.manifest.weight_class), cal.objectives)
        cal.classification = classification(cal.scores, ch.manifest.weight_class)
        cal.findings += classification_findings(cal.classification)
        cal.seed_003 = seed_003_report(cal.scores)
        cal.findings += seed_003_findings(cal.seed_003)
    return cal


async def calibrate(
    ch: Challenge,
    *,
    backend: Backend,
    time_scale: float | None = None,
    store: Path | None = None,
    flakiness: bool = True,
    parallel: int = 2,
    bus: EventBus | None = None,
) -> Calibration:
    """Gate 3. ``bus``: the benchmark attempts' events are published there as they run
    (each attempt also goes to the calibration's own store)."""
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
    try:  # the null agent and the three attacks join the author's agents (pipeline/baselines.py)
        from arena.pipeline.attack_regex import build_overlay  # noqa: PLC0415

        await build_overlay(ch, tmp / "regex", getattr(backend, "name", None))
        ch = load_challenge(with_baselines(Path(ch.root), tmp, tmp / "regex"))
        return await _run(
            ch, store if store is not None else tmp / "calibration.db", backend, scale, repeats, parallel, bus
        )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


async def run_attacks(
    ch: Challenge, *, backend: Backend, time_scale: float | None = None, store: Path | None = None
) -> tuple[list[Finding], dict[str, list[float]], dict[str, list[str]]]:
    """Gate 4's three attacks alone (``challenge audit``): findings, objectives, attempt ids."""
    from arena.pipeline.agent_runs import run_agents  # noqa: PLC0415
    from arena.pipeline.attack_regex import build_overlay  # noqa: PLC0415
    from arena.pipeline.baselines import ATTACKS, gate_4  # noqa: PLC0415

    scale = time_scale or default_time_scale(ch)
    tmp = Path(tempfile.mkdtemp(prefix="gauntlet-audit-"))
    try:
        await build_overlay(ch, tmp / "regex", getattr(backend, "name", None))
        pkg = load_challenge(with_baselines(Path(ch.root), tmp, tmp / "regex"))
        got = await run_agents(
            pkg, store if store is not None else tmp / "audit.db", backend, scale, dict.fromkeys(ATTACKS, 1)
        )
        return got.findings + gate_4(got.objectives), got.objectives, got.attempts
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
