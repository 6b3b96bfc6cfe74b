"""The thin adapter between a generation job (arena/pipeline/generate/job.py) and the
generate screen.

The job runs on a thread of its own; its ``on_event`` callback only appends the plain
event to a buffer under a lock. Calibration's benchmark attempts publish on a bus of
this generation's own (never the app's: its live store writer would refuse attempts it
did not start), which an ``EngineAdapter`` folds into ``AttemptView`` rows like any live
attempt. The screen's refresh calls ``flush()``: the buffered events become ``StageRow``s
(one per stage of each job attempt, in order), the job attempts' results and the
outcome. No rule lives here: what a stage found and where a retry goes is the job's.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from arena.bus import EventBus
from gauntlet_tui.engine import EngineAdapter

if TYPE_CHECKING:
    from arena.pipeline.generate.job import Job, OnEvent, Request

# the stages a job runs until each ``until`` (the timeline's pending rows)
STAGES = ("architect", "builder", "calibrator", "auditor", "publisher")
LAST_STAGE = {"spec": 1, "package": 2, "calibrate": 3, "audit": 4, "publish": 5}


@dataclass
class StageRow:
    attempt: int
    seed: int
    stage: str
    status: str = "running"  # running | ok | rejected | timeout | error
    elapsed_s: float = 0.0
    timeout_s: float = 0.0
    findings: list[dict[str, Any]] = field(default_factory=list)
    outputs: dict[str, Any] = field(default_factory=dict)


@dataclass
class JobAttempt:
    attempt: int
    seed: int
    result: str | None = None  # None while it runs
    retry_stage: int | None = None


# (request, on_event=, bus=) -> the job; tests hand a Job subclass in (app.generation_factory)
JobFactory = Callable[..., "Job"]


def default_job(req: Request, *, on_event: OnEvent, bus: EventBus) -> Job:
    from arena.pipeline.generate.job import Job  # noqa: PLC0415 — the pipeline only when generating

    return Job(req, on_event=on_event, bus=bus)


class Generation:
    """One generation job, run on a thread, and what a view shows of it."""

    def __init__(self, req: Request, *, job_factory: JobFactory = default_job) -> None:
        self.req = req
        self.bus = EventBus()
        self.adapter = EngineAdapter(self.bus)  # calibration's benchmark attempts
        self.job = job_factory(req, on_event=self._on_event, bus=self.bus)
        self.rows: list[StageRow] = []
        self.attempts: list[JobAttempt] = []
        self.findings: list[tuple[StageRow, dict[str, Any]]] = []  # every finding, as it came
        self.try_of: dict[str, int] = {}  # benchmark attempt id -> the job attempt it ran in
        self.outcome: str | None = None  # set once the job has ended
        self.error: str | None = None  # an exception that stopped the job
        self.report: Path | None = None
        self._pending: list[tuple[str, dict[str, Any]]] = []
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    @property
    def package(self) -> Path:
        return Path(self.req.out) / "package"

    @property
    def has_package(self) -> bool:
        from arena.challenge.loader import MANIFEST  # noqa: PLC0415

        return (self.package / MANIFEST).is_file()

    @property
    def spec(self) -> Path:
        return Path(self.req.out) / "spec.yaml"

    @property
    def running(self) -> bool:
        return self._thread is not None and self.outcome is None

    @property
    def passed(self) -> bool:
        return self.outcome == "passed"

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="gauntlet-generate", daemon=True)
        self._thread.start()

    def wait(self, timeout: float | None = None) -> None:
        if self._thread is not None:
            self._thread.join(timeout)

    def _run(self) -> None:
        try:
            self.job.run()
        except Exception as exc:  # noqa: BLE001 — shown on the screen; report.json is written
            with self._lock:
                self._pending.append(("job.error", {"error": f"{type(exc).__name__}: {exc}"}))

    def _on_event(self, kind: str, data: dict[str, Any]) -> None:  # the job's thread
        with self._lock:
            self._pending.append((kind, data))

    # -- UI side ---------------------------------------------------------------------
    def flush(self) -> bool:
        """Fold what arrived into rows; True when anything changed (attempt rows too)."""
        with self._lock:
            pending, self._pending = self._pending, []
        arrived = self.adapter.flush()
        for kind, data in pending:
            self._apply(kind, data)
        for a in arrived:  # a benchmark attempt belongs to the job attempt running when it came
            if a not in self.try_of and self.attempts:
                self.try_of[a] = self.attempts[-1].attempt
        changed = bool(arrived)
        return changed or bool(pending)

    def _apply(self, kind: str, data: dict[str, Any]) -> None:
        if kind == "stage.started":
            if not self.attempts or self.attempts[-1].attempt != data["attempt"]:
                self.attempts.append(JobAttempt(data["attempt"], data["seed"]))
            self.rows.append(StageRow(data["attempt"], data["seed"], data["stage"], timeout_s=data["timeout_s"]))
        elif kind == "stage.finished":
            row = next(
                (r for r in reversed(self.rows) if r.attempt == data["attempt"] and r.stage == data["stage"]), None
            )
            if row is None:
                return
            row.status, row.elapsed_s = data["status"], data["elapsed_s"]
            row.findings, row.outputs = list(data["findings"]), dict(data["outputs"])
            self.findings += [(row, f) for f in row.findings]
        elif kind == "attempt.finished":
            for a in self.attempts:
                if a.attempt == data["attempt"]:
                    a.result, a.retry_stage = data["result"], data["retry_stage"]
        elif kind == "job.finished":
            self.outcome, self.report = data["outcome"], Path(data["report"])
        elif kind == "job.error":
            self.error = data["error"]
            self.outcome = self.outcome if self.outcome not in (None, "running") else f"stopped: {self.error}"

    def pending_stages(self) -> list[str]:
        """The stages the current job attempt has still to run (the timeline's grey rows)."""
        if self.outcome is not None or not self.rows:
            return [] if self.outcome is not None else list(STAGES[: LAST_STAGE[self.req.until]])
        last = self.rows[-1]
        upto = STAGES[: LAST_STAGE[self.req.until]]
        return list(upto[upto.index(last.stage) + 1 :]) if last.stage in upto else []
