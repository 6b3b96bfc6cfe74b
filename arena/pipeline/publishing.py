"""Seed 003 stage 5 (gate 5): publish a package that passed gates 1-4 into the challenge
store — metadata, lifecycle, sealed (AES-256-GCM) sensitive assets, lineage, monitors.

Gates 1-2 (``validate`` and its sandbox runs) and 4 (``audit``) are run here as
preconditions; gate 3 (calibration) is read from a ``gauntlet challenge calibrate --json``
report or run (quick unless asked). A failed precondition is an error finding and nothing
is written."""

from __future__ import annotations

import json
import math
import secrets
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from arena.pipeline.baselines import ATTACKS, assess_baselines
from arena.pipeline.calibration import AGENTS, FLAKY_AGENTS, FLAKY_RUNS, Calibration, assess, bands
from arena.challenge.errors import error, info
from arena.challenge.loader import Challenge
from arena.pipeline.publish_records import (
    canonical,
    classify,
    confidence,
    hash_entries,
    lifecycle,
    lineage,
    metadata,
    monitors,
    package_files,
    read_entries,
    sha256,
)
from arena.pipeline.published import write_entry
from arena.pipeline.sealing import key_id
from arena.results import Finding

REPORT_EXPECTED = "expected the JSON report of `gauntlet challenge calibrate DIR --json`"


class PublishError(ValueError):
    """Bad input to publish (an unreadable calibration report, an unusable key): exit 2."""


@dataclass
class CalibrationReport:
    source: str  # the file it came from, or "calibrate run"
    challenge: str
    runs: dict[str, list[float]]
    findings: list[Finding]
    package_hash: str | None
    doc: dict[str, Any]
    objectives: dict[str, list[float]] = field(default_factory=dict)  # agent -> Objective per run (gate 4)


@dataclass
class Publication:
    challenge: str
    findings: list[Finding] = field(default_factory=list)
    entry: Path | None = None
    version: int | None = None
    calibration_verified: bool | None = None  # None: not published

    @property
    def unreadable(self) -> bool:
        return any(f.check == "unreadable" for f in self.findings)

    @property
    def exit_code(self) -> int:
        """0 published, 1 not published (the error findings say why), 2 unreadable package."""
        return 2 if self.unreadable else 0 if self.entry is not None else 1


# ---- the calibration report (gate 3) --------------------------------------------------------


def _score(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and 0 <= v <= 100


def parse_calibration(doc: object, source: str) -> CalibrationReport:
    """The fields publish needs from a calibrate report; ``PublishError`` naming the key otherwise."""
    if not isinstance(doc, dict):
        raise PublishError(f"{source}: not a JSON object: {REPORT_EXPECTED}")
    cid = doc.get("challenge")
    if not isinstance(cid, str) or not cid:
        raise PublishError(f"{source}: key 'challenge': missing or not a string: {REPORT_EXPECTED}")
    runs = doc.get("runs")
    if runs is None and isinstance(doc.get("scores"), dict):
        runs = {a: [s] for a, s in doc["scores"].items()}
    if not isinstance(runs, dict):
        raise PublishError(f"{source}: key 'runs': missing or not a mapping: expected agent -> list of scores 0-100")
    clean: dict[str, list[float]] = {}
    for agent, totals in runs.items():
        if not isinstance(totals, list) or not all(_score(t) for t in totals):
            raise PublishError(f"{source}: key 'runs.{agent}': expected a list of scores 0-100")
        clean[str(agent)] = [float(t) for t in totals]
    findings: list[Finding] = []
    for i, f in enumerate(doc.get("findings") or []):
        try:
            findings.append(Finding.model_validate(f))
        except ValueError:
            raise PublishError(f"{source}: key 'findings[{i}]': expected {{severity, check, detail}}") from None
    ph = doc.get("package_hash")
    if ph is not None and not isinstance(ph, str):
        raise PublishError(f"{source}: key 'package_hash': expected a string like sha256:...")
    objectives: dict[str, list[float]] = {}
    raw_obj = doc.get("objectives") or {}
    if not isinstance(raw_obj, dict):
        raise PublishError(f"{source}: key 'objectives': expected agent -> list of objectives 0-100")
    for agent, vals in raw_obj.items():
        if not isinstance(vals, list) or not all(_score(v) for v in vals):
            raise PublishError(f"{source}: key 'objectives.{agent}': expected a list of objectives 0-100")
        objectives[str(agent)] = [float(v) for v in vals]
    return CalibrationReport(source, cid, clean, findings, ph, doc, objectives)


def read_calibration(path: str | Path) -> CalibrationReport:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise PublishError(f"{p}: no such file: {REPORT_EXPECTED}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise PublishError(f"{p}: unreadable ({exc.__class__.__name__}): {REPORT_EXPECTED}") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise PublishError(f"{p}: not JSON (line {exc.lineno}: {exc.msg}): {REPORT_EXPECTED}") from None
    return parse_calibration(doc, str(p))


def report_of(ch: Challenge, cal: Calibration, package_hash: str) -> dict[str, Any]:
    """The calibrate --json document (what ``challenge calibrate`` prints), with the hash of
    the package it calibrated."""
    return {
        "challenge": ch.id,
        "findings": [f.model_dump() for f in cal.findings],
        "ok": not any(f.severity == "error" for f in cal.findings),
        "scores": cal.scores,
        "runs": cal.runs,
        "spread": cal.spread,
        "package_hash": package_hash,
        "classification": cal.classification,
        "objectives": cal.objectives,
        "excluded": {a: [r["attempt"] for r in rows] for a, rows in cal.slipped.items()},
    }


def calibration_findings(
    ch: Challenge, rep: CalibrationReport, package_hash: str, *, verify: bool = True
) -> list[Finding]:
    """Gate 3 judged again from the report's scores (a report edited to say ``ok`` with
    scores out of band still fails), plus the report's own errors (attempts that broke).
    ``verify``: a report read from a file must name its stored attempts, which are
    re-judged (pipeline/reproduce.py); a report that cannot be reproduced is an error."""
    if rep.challenge != ch.id:
        return [
            error("calibration_report", f"{rep.source}: a calibration of {rep.challenge!r}: expected one of {ch.id!r}")
        ]
    out: list[Finding] = []
    if rep.package_hash is None and not verify and rep.source != "calibrate run":
        out.append(
            error(
                "calibration_report",
                f"{rep.source}: carries no package_hash: --unverified-calibration publishes a report only "
                f"for the package it names (key 'package_hash', as `gauntlet challenge calibrate --json` prints it)",
            )
        )
    elif rep.package_hash is None:
        out.append(
            info(
                "calibration_report",
                f"{rep.source}: carries no package_hash: cannot tell it was made on the package as it is now",
            )
        )
    elif rep.package_hash != package_hash:
        out.append(
            error(
                "calibration_report",
                f"{rep.source}: calibrated package {rep.package_hash}: expected this package as it is now ({package_hash}); calibrate it again",
            )
        )
    missing = [a for a in AGENTS if not rep.runs.get(a)]
    for a in missing:
        out.append(
            error(
                "calibration", f"{rep.source}: no score for the {a} agent: expected runs of all four benchmark agents"
            )
        )
    out += excluded_findings(rep)
    seen = {f.detail for f in out}
    for f in rep.findings:
        if f.severity == "error" and f.detail not in seen:
            seen.add(f.detail)
            out.append(f)
    if not missing:
        out += [f for f in assess(rep.runs, ch.manifest.weight_class) if f.detail not in seen]
        # gate 4 judged again from the report's objectives (re-judging checks they reproduce)
        absent = [a for a in ATTACKS if rep.runs.get(a) and not rep.objectives.get(a)]
        for a in absent:
            out.append(
                error(
                    "calibration_report",
                    f"{rep.source}: key 'objectives.{a}': missing: gate 4 judges the attacks' objectives "
                    f"(as `gauntlet challenge calibrate --json` prints them)",
                )
            )
        baseline = assess_baselines(rep.runs, bands(ch.manifest.weight_class), rep.objectives)
        out += [f for f in baseline if f.detail not in seen]
    if verify and rep.source != "calibrate run":
        from arena.pipeline.reproduce import reproduce  # noqa: PLC0415

        out += reproduce(rep, ch.id, Path(ch.root))
    elif rep.source != "calibrate run":
        out.append(
            info(
                "calibration_report",
                f"{rep.source}: not re-judged (--unverified-calibration): published with calibration_verified false",
            )
        )
    return out


def excluded_findings(rep: CalibrationReport) -> list[Finding]:
    """Runs a calibration excluded (their schedule slipped on every try: pipeline/schedule.py)
    are never published as verified: a report that names one among its scored attempts, or
    whose ``excluded`` key is not agent -> attempt ids, is an error."""
    raw = rep.doc.get("excluded") or {}
    if not isinstance(raw, dict) or not all(isinstance(v, list) for v in raw.values()):
        return [error("calibration_report", f"{rep.source}: key 'excluded': expected agent -> list of attempt ids")]
    excluded = {str(a): set(map(str, ids)) for a, ids in raw.items()}
    slipped = rep.doc.get("slipped")  # calibrate --json's rows ({attempt, total, reasons}) name them too
    for agent, rows in slipped.items() if isinstance(slipped, dict) else []:
        for r in rows if isinstance(rows, list) else []:
            if isinstance(r, dict) and r.get("attempt"):
                excluded.setdefault(str(agent), set()).add(str(r["attempt"]))
    att = rep.doc.get("attempts")
    scored: dict[str, Any] = att if isinstance(att, dict) else {}
    out = []
    for agent, ids in excluded.items():
        named = ids & set(map(str, scored.get(agent) or []))
        for aid in sorted(named):
            out.append(
                error(
                    "calibration_report",
                    f"{rep.source}: agent {agent}: attempt {aid} was excluded (its schedule slipped on every "
                    f"try): expected only the runs calibration scored; an excluded run is never published as verified",
                )
            )
    return out


def run_calibration(
    ch: Challenge, package_hash: str, sandbox: str | None, *, flakiness: bool, time_scale: float | None
) -> tuple[CalibrationReport | None, list[Finding]]:
    import asyncio  # noqa: PLC0415

    from arena.pipeline.calibration import calibrate  # noqa: PLC0415
    from arena.sandbox import SandboxError, get_backend  # noqa: PLC0415

    try:
        backend = get_backend(sandbox)
    except SandboxError as exc:
        return None, [error("sandbox", f"the sandbox is unavailable for calibration: {exc}")]
    cal = asyncio.run(calibrate(ch, backend=backend, time_scale=time_scale, flakiness=flakiness))
    return parse_calibration(report_of(ch, cal, package_hash), "calibrate run"), []


# ---- gates 1, 2 and 4 ---------------------------------------------------------------------


def _blocking(findings: list[Finding]) -> bool:
    return any(f.severity == "error" for f in findings)


def integrity(ch: Challenge, starter_run: list[Finding]) -> tuple[dict[str, Any], list[Finding]]:
    """Gate 4: the static audit and the trivial shortcut found by judging the starter."""
    from arena.pipeline.integrity import static_audit, verdict  # noqa: PLC0415

    findings = static_audit(ch) + [f for f in starter_run if f.check == "trivial_shortcut"]
    v = verdict(findings)
    flags = [f.detail for f in findings if f.severity == "warning"]
    return {"verdict": v, "flags": flags}, findings


# ---- stage 5 ------------------------------------------------------------------------------


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


def publish(
    ref: str | Path,
    *,
    store: Path,
    key: bytes | Callable[[], bytes],
    calibration: CalibrationReport | None = None,
    sandbox: str | None = None,
    flakiness: bool = False,
    time_scale: float | None = None,
    verify_calibration: bool = True,
    pipeline: dict[str, Any] | None = None,
    now: Callable[[], datetime] = utc_now,
    timer: Callable[[], float] = time.perf_counter,
) -> Publication:
    """Gates 1-4 as preconditions, then the store entry. Never raises for package faults;
    ``key`` may be a function (called once the package has loaded, before anything runs),
    whose ``SealError`` propagates (bad input: exit 2). ``pipeline``: what a generate job
    knows that publish cannot (``stage_timings`` of its architect, builder, calibrator and
    auditor, ``retry_count``, ``spec_hash`` of its spec.yaml), put into lineage.json."""
    from arena.pipeline.package import examine  # noqa: PLC0415
    from arena.pipeline.package_runs import run_checks  # noqa: PLC0415

    t0 = timer()
    ch, findings = examine(ref)
    pub = Publication(ch.id if ch is not None else str(ref), list(findings))
    if ch is None or pub.unreadable or _blocking(findings):
        pub.findings.append(info("publish", f"{ref}: not published: gates 1-2 (validate) have errors"))
        return pub
    if callable(key):
        key = key()
    entries = read_entries(ch.root, package_files(ch.root))
    phash = hash_entries(entries)
    runs, _starter = run_checks(ch, sandbox, solution=True)
    pub.findings += runs
    t1 = timer()
    if _blocking([f for f in runs if f.check != "trivial_shortcut"]):
        pub.findings.append(
            info("publish", f"{ch.id}: not published: gate 2 (starter and solution judged in a sandbox) has errors")
        )
        return pub
    integ, audit_findings = integrity(ch, runs)
    pub.findings += [f for f in audit_findings if f.check != "trivial_shortcut"]
    t2 = timer()
    if integ["verdict"] == "reject":
        pub.findings.append(info("publish", f"{ch.id}: not published: gate 4 (audit) verdict reject"))
        return pub
    t_cal: float | None = None
    cal_findings: list[Finding] = []
    if calibration is None:
        calibration, cal_findings = run_calibration(ch, phash, sandbox, flakiness=flakiness, time_scale=time_scale)
        t_cal = round(timer() - t2, 3)
    if calibration is not None:
        cal_findings += calibration_findings(ch, calibration, phash, verify=verify_calibration)
    pub.findings += cal_findings
    t3 = timer()
    if calibration is None or _blocking(cal_findings):
        pub.findings.append(info("publish", f"{ch.id}: not published: gate 3 (calibration) has errors"))
        return pub
    now_read = read_entries(ch.root, package_files(ch.root))
    if hash_entries(now_read) != phash:
        pub.findings.append(
            error(
                "package_changed",
                f"{ch.root}: files changed while publishing: expected the package left alone; publish again",
            )
        )
        return pub

    plain, sealed = classify(sorted(entries))
    moment = now()
    run_id = "p-" + secrets.token_hex(4)
    scores = {a: calibration.runs[a][0] for a in AGENTS}
    cal_summary = {
        "scores": scores,
        "spread": round(scores["elite"] - scores["naive"], 2),  # seed 002's spread
        "confidence": confidence(calibration.runs, FLAKY_AGENTS, FLAKY_RUNS),
    }
    life = lifecycle(moment)
    cal_hash = sha256(canonical(calibration.doc))
    timings = {
        "architect": None,
        "builder": None,
        "validator": round(t1 - t0, 3),
        "auditor": round(t2 - t1, 3),
        "calibrator": t_cal,
        "publisher": None,
    }

    verified = calibration.source == "calibrate run" or verify_calibration

    def records(version: int) -> dict[str, Any]:
        meta = metadata(
            ch,
            version=version,
            now=moment,
            run_id=run_id,
            calibration=cal_summary,
            integrity=integ,
            package=phash,
            key=key_id(key),
            sealed=sealed,
        )
        meta["calibration_verified"] = verified  # issue 20: an unverified publication says so
        timings["publisher"] = round(timer() - t3, 3)
        lin = lineage(
            meta,
            spec=sha256(bytes(entries["challenge.yaml"])),
            package=phash,
            calibration=cal_hash,
            timings=dict(timings),
            calibration_source=calibration.source,
            previous_version=version - 1 if version > 1 else None,
        )
        lin["calibration_verified"] = verified
        if pipeline:  # a generate job's own stages (seed 003 step 5.4)
            ran = {k: v for k, v in (pipeline.get("stage_timings") or {}).items() if v is not None}
            lin["stage_timings"] = {**lin["stage_timings"], **ran}
            lin["retry_count"] = int(pipeline.get("retry_count", 0))
            lin["spec_hash"] = str(pipeline.get("spec_hash") or lin["spec_hash"])
        if isinstance(ch.manifest.extensions.get("x-builder"), dict):  # the model builder's attempt and transcript
            lin["builder"] = ch.manifest.extensions["x-builder"]
        return {
            "metadata": meta,
            "lifecycle": life,
            "lineage": lin,
            "monitors": monitors(meta, life),
            "calibration": calibration.doc,
        }

    entry, version = write_entry(
        store, ch.id, entries, plain=plain, sealed=sealed, key=key, package_hash=phash, records=records, stage=run_id
    )
    pub.entry, pub.version, pub.calibration_verified = entry, version, verified
    if integ["flags"]:
        pub.findings.append(
            info("publish", f"{ch.id}: published with integrity flags (audit verdict {integ['verdict']})")
        )
    if not verified:
        pub.findings.append(
            info(
                "publish",
                f"{ch.id}: published UNVERIFIED: its calibration was not re-judged "
                f"(calibration_verified false in metadata.json and lineage.json)",
            )
        )
    pub.findings.append(info("publish", f"{ch.id}: published version {version} at {entry}"))
    return pub


__all__ = [
    "CalibrationReport",
    "Publication",
    "PublishError",
    "calibration_findings",
    "excluded_findings",
    "parse_calibration",
    "publish",
    "read_calibration",
    "report_of",
]
