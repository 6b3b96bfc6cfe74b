"""``gauntlet challenge generate``: seed 003 stages 1-5 as one job. Each attempt runs the
Architect (gate 1), the offline Builder (gate 2), then calibrate (gate 3), audit (gate 4)
and, asked, publish (gate 5). A failure routes back to stage 1 or 2 as seed 003's
``retry_stage`` says; after 3 attempts the job ends "escalated to human review". The
diagnostic report (``report.json``) is always written."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from arena.pipeline.generate.architect import architect, dump
from arena.pipeline.generate.builder import build
from arena.pipeline.generate.package_gate import gate_2
from arena.pipeline.generate.spec_gate import (
    AUDIT_WINDOW_DAYS,
    NOVEL_WINDOW_DAYS,
    audit_repetition,
    gate_1,
    recent_fingerprints,
)
from arena.pipeline.generate.stages import HARD_TIMEOUT_S, TIMEOUTS_S, StageRecord, StageTimeout, run_stage
from arena.pipeline.generate.templates import library
from arena.results import Finding

if TYPE_CHECKING:
    from arena.bus import EventBus
    from arena.challenge.loader import Challenge
    from arena.pipeline.calibration import Calibration

MAX_ATTEMPTS = 3
UNTIL = ("spec", "package", "calibrate", "audit", "publish")
ESCALATED = "escalated to human review"

# The job's progress, for a live view (the TUI's generate screen): ``on_event(kind, data)``
# is called on the job's thread with plain data. Kinds: "stage.started" and
# "stage.finished" ({"attempt", "seed", **StageRecord.doc()}: findings once finished),
# "attempt.finished" ({"attempt", "seed", "result", "retry_stage"}), "job.finished"
# ({"outcome", "report"}). Calibration's benchmark attempts go to ``bus`` (attempt events).
OnEvent = Callable[[str, dict[str, Any]], None]


@dataclass
class Request:
    category: str
    weight_class: int
    seed: int
    out: Path
    fmt: str | None = None
    discriminators: list[str] = field(default_factory=list)
    until: str = "audit"
    sandbox: str | None = None
    time_scale: float | None = None
    quick: bool = False
    store: Path | None = None
    run_starter: bool = True
    builder: str | None = None  # a model builder agent (model_builder.py); None: offline


def _blocking(findings: list[Finding]) -> bool:
    return any(f.severity == "error" for f in findings)


def calibration_retry_stage(scores: dict[str, float], stdev: float | None) -> int:
    """Seed 003 step 3.2: unsolvable -> 2, poor discrimination -> 1, score range -> 2."""
    if scores.get("reference", 0.0) <= 85:
        return 2
    if stdev is not None and stdev <= 15:
        return 1
    return 2


def integrity_retry_stage(findings: list[Finding]) -> int:
    """determine_retry_stage: a shallow or repeated challenge is the spec's (1); leaks and
    exploits are the package's (2)."""
    checks = {f.check for f in findings if f.severity in ("error", "warning")}
    return 1 if checks & {"trivial_shortcut", "repetition"} else 2


class Job:
    def __init__(self, req: Request, *, now: Callable[[], datetime] | None = None,
                 timer: Callable[[], float] = time.monotonic, timeouts: dict[str, float] | None = None,
                 on_event: OnEvent | None = None, bus: "EventBus | None" = None) -> None:  # fmt: skip
        self.req, self.timer = req, timer
        self.on_event, self.bus = on_event, bus
        self._told: set[int] = set()  # id() of the stage records whose "stage.finished" was sent
        self.now = now or (lambda: datetime.now(timezone.utc))
        self.timeouts = {**TIMEOUTS_S, **(timeouts or {})}
        self.attempts: list[dict[str, Any]] = []
        self.outcome = "running"
        self.t0 = timer()

    # -- stages ---------------------------------------------------------------------
    # Any: the (record, value) of whatever stage function ``fn`` is (a spec, a package, a calibration)
    def _stage(self, stages: list[StageRecord], name: str, inputs: dict[str, Any], fn: Callable[[], Any]) -> Any:
        left = HARD_TIMEOUT_S - (self.timer() - self.t0)
        rec = StageRecord(name, inputs, min(self.timeouts[name], max(0.0, left)))
        self._finished_stage()  # the one before it has its findings now
        stages.append(rec)
        self._emit("stage.started", {**self._where(), **rec.doc()})
        return rec, run_stage(rec, fn, self.timer)

    def attempt(self, n: int, seed: int, start: int, spec: dict[str, Any] | None) -> tuple[str, int, dict | None]:
        """One attempt from stage ``start``; returns (result, retry_stage, spec)."""
        req = self.req
        stages: list[StageRecord] = []
        doc: dict[str, Any] = {"attempt": n, "seed": seed, "from_stage": start, "stages": stages}
        self.attempts.append(doc)
        templates = library()
        if start == 1 or spec is None:
            recent = recent_fingerprints(req.store, self.now())
            avoid = [fp for fp, _, _ in recent_fingerprints(req.store, self.now(), NOVEL_WINDOW_DAYS)]
            rec, spec = self._stage(stages, "architect", {"category": req.category, "weight_class": req.weight_class,
                                    "format": req.fmt, "seed": seed, "discriminators": req.discriminators,
                                    "recent_fingerprints": len(recent), "recent_fingerprints_60d": len(avoid)},
                                    lambda: architect(templates, category=req.category, weight_class=req.weight_class,
                                                      seed=seed, fmt=req.fmt, discriminators=req.discriminators,
                                                      model_builder=bool(req.builder), avoid=avoid))  # fmt: skip
            (req.out / "spec.yaml").write_text(dump(spec), encoding="utf-8")
            rec.findings = gate_1(spec, recent)
            rec.outputs = {"spec": str(req.out / "spec.yaml"), "fingerprint": spec["challenge_spec"]["anti_repetition_fingerprint"],
                           "template_id": spec["challenge_spec"]["template_id"]}  # fmt: skip
            if _blocking(rec.findings):
                rec.status = "rejected"
                return "gate 1 rejected the spec", 1, None
        if req.until == "spec":
            return "done", 0, spec
        template = next(t for t in templates if t.id == spec["challenge_spec"]["template_id"])
        pkg = req.out / "package"
        if req.builder:  # the model builder: an agent's attempt writes the package
            from arena.pipeline.generate import model_builder as mb  # noqa: PLC0415

            rec, run = self._stage(stages, "builder", {"spec": str(req.out / "spec.yaml"), "builder": req.builder},
                                   lambda: mb.build_with_agent(spec, pkg, agent=str(req.builder), store=req.store or
                                                               req.out / "builder.db", sandbox=req.sandbox, bus=self.bus))  # fmt: skip
            rec.outputs["builder"] = run.doc()
        else:
            rec, _ = self._stage(stages, "builder", {"spec": str(req.out / "spec.yaml"), "builder": "offline"},
                                 lambda: build(template, spec, pkg))  # fmt: skip
        rec.findings = (run.findings() if req.builder else []) + gate_2(pkg)
        rec.findings += mb.spec_match(pkg, spec["challenge_spec"]) if req.builder else []
        if req.run_starter:
            from arena.challenge import load_challenge  # noqa: PLC0415
            from arena.pipeline.package_runs import run_checks  # noqa: PLC0415

            if not _blocking(rec.findings):
                rec.findings += run_checks(load_challenge(pkg), req.sandbox)[0]
        rec.outputs["package"] = str(pkg)
        if _blocking(rec.findings):
            rec.status = "rejected"
            return "gate 2 rejected the package", 2, spec
        if req.until == "package":
            return "done", 0, spec
        return self._gates_3_to_5(stages, pkg, spec)

    def _gates_3_to_5(self, stages: list[StageRecord], pkg: Path, spec: dict) -> tuple[str, int, dict | None]:
        import asyncio  # noqa: PLC0415

        from arena.challenge import load_challenge  # noqa: PLC0415
        from arena.pipeline.calibration import calibrate  # noqa: PLC0415
        from arena.pipeline.integrity import static_audit, verdict  # noqa: PLC0415
        from arena.sandbox import get_backend  # noqa: PLC0415

        req = self.req
        ch = load_challenge(pkg)
        backend = get_backend(req.sandbox)
        rec, cal = self._stage(stages, "calibrator", {"package": str(pkg), "sandbox": req.sandbox, "quick": req.quick},
                               lambda: asyncio.run(calibrate(ch, backend=backend, time_scale=req.time_scale,
                                                             flakiness=not req.quick, bus=self.bus)))  # fmt: skip
        rec.findings = [f for f in cal.findings if f.check != "trivial_shortcut"]
        rec.outputs = {"scores": cal.scores, "runs": cal.runs, "spread": cal.spread, "seed_003": cal.seed_003}
        if _blocking(rec.findings):
            rec.status = "rejected"
            stdev = (cal.seed_003 or {}).get("stddev")
            return "gate 3 rejected the calibration", calibration_retry_stage(cal.scores, stdev), spec
        if req.until == "calibrate":
            return "done", 0, spec
        recent = recent_fingerprints(req.store, self.now(), AUDIT_WINDOW_DAYS)  # check 4.7's window
        fp = str(spec["challenge_spec"]["anti_repetition_fingerprint"])
        rec, found = self._stage(stages, "auditor", {"package": str(pkg), "recent_fingerprints_90d": len(recent)},
                                 lambda: static_audit(ch) + audit_repetition(fp, recent)
                                 + [f for f in cal.findings if f.check == "trivial_shortcut"])  # fmt: skip
        rec.findings = found
        rec.outputs = {"verdict": verdict(found)}
        if rec.outputs["verdict"] == "reject":
            rec.status = "rejected"
            return "gate 4 verdict reject", integrity_retry_stage(found), spec
        if req.until == "audit":
            return "done", 0, spec
        return self._publish(stages, pkg, ch, cal, spec)

    def _publish(
        self, stages: list[StageRecord], pkg: Path, ch: "Challenge", cal: "Calibration", spec: dict
    ) -> tuple[str, int, dict | None]:
        from arena.pipeline.publish_records import package_hash  # noqa: PLC0415
        from arena.pipeline.publishing import parse_calibration, publish, report_of  # noqa: PLC0415
        from arena.pipeline.sealing import load_key  # noqa: PLC0415
        from arena.paths import data_dir, store_path  # noqa: PLC0415

        store = self.req.store or store_path(None)
        report = parse_calibration(report_of(ch, cal, package_hash(pkg)), "generate")
        rec, pub = self._stage(stages, "publisher", {"package": str(pkg), "store": str(store)},
                               lambda: publish(pkg, store=store, key=lambda: load_key(data_dir(store))[0],
                                               calibration=report, sandbox=self.req.sandbox,
                                               verify_calibration=False, pipeline=self._lineage()))  # fmt: skip
        rec.findings = pub.findings
        rec.outputs = {"entry": str(pub.entry) if pub.entry else None, "version": pub.version}
        if pub.entry is None:
            rec.status = "rejected"
            return "gate 5 did not publish", 2, spec
        return "done", 0, spec

    def _lineage(self) -> dict[str, Any]:
        """What gate 5's lineage.json takes from the job: this attempt's stage timings (the
        publisher's is publish's own), the retries so far and the spec's hash."""
        from arena.pipeline.publish_records import sha256  # noqa: PLC0415

        return {
            "stage_timings": {k: v for k, v in self.stage_timings().items() if k != "publisher"},
            "retry_count": max(0, len(self.attempts) - 1),
            "spec_hash": sha256((self.req.out / "spec.yaml").read_bytes()),
        }

    # -- progress (on_event) ------------------------------------------------------------
    def _emit(self, kind: str, data: dict[str, Any]) -> None:
        if self.on_event is not None:
            self.on_event(kind, data)

    def _where(self) -> dict[str, Any]:
        return {"attempt": self.attempts[-1]["attempt"], "seed": self.attempts[-1]["seed"]}

    def _finished_stage(self) -> None:
        stages = self.attempts[-1]["stages"] if self.attempts else []
        if stages and id(stages[-1]) not in self._told:
            self._told.add(id(stages[-1]))
            self._emit("stage.finished", {**self._where(), **stages[-1].doc()})

    # -- the job --------------------------------------------------------------------
    def run(self) -> str:
        self.req.out.mkdir(parents=True, exist_ok=True)
        seed, start, spec = self.req.seed, 1, None
        try:
            for n in range(1, MAX_ATTEMPTS + 1):
                result, retry, spec = self.attempt(n, seed, start, spec)
                self.attempts[-1]["result"] = result
                if result != "done" and retry == 2 and not self.req.builder:
                    # The offline Builder is deterministic: stage 2 again would rebuild the
                    # same package byte for byte, so the retry re-draws the spec (stage 1).
                    self.attempts[-1]["retry_stage_asked"] = retry
                    retry = 1
                self._finished_stage()
                self._emit("attempt.finished", {**self._where(), "result": result,
                                                "retry_stage": None if result == "done" else retry})  # fmt: skip
                if result == "done":
                    self.outcome = "passed"
                    break
                self.attempts[-1]["retry_stage"] = retry
                start = retry
                if retry == 1:
                    seed += 1  # a fresh draw: the next combination of the template's variables
            else:
                self.outcome = ESCALATED
        except StageTimeout as exc:
            self.outcome = f"aborted: {exc}"
        finally:
            report = self.write_report()
            self._finished_stage()
            self._emit("job.finished", {"outcome": self.outcome, "report": str(report)})
        return self.outcome

    def stage_timings(self) -> dict[str, float | None]:
        last = {s.name: s.elapsed_s for s in self.attempts[-1]["stages"]} if self.attempts else {}
        return {k: (round(last[k], 3) if k in last else None) for k in TIMEOUTS_S}

    def write_report(self) -> Path:
        doc = {
            "request": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(self.req).items()},
            "outcome": self.outcome,
            "attempts": [{**a, "stages": [s.doc() for s in a["stages"]]} for a in self.attempts],
            "stage_timings": self.stage_timings(),
            "total_s": round(self.timer() - self.t0, 3),
            "retry_count": max(0, len(self.attempts) - 1),
        }
        p = self.req.out / "report.json"
        p.write_text(json.dumps(doc, indent=2, default=str) + "\n", encoding="utf-8")
        return p
