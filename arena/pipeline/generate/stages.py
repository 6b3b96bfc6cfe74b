"""Running one pipeline stage under its timeout (seed 003: 5/30/45/10 minutes, 90 hard),
recording inputs, outputs, findings and elapsed time for the diagnostic report."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from arena.results import Finding

TIMEOUTS_S = {"architect": 300.0, "builder": 1800.0, "calibrator": 2700.0, "auditor": 600.0, "publisher": 600.0}
HARD_TIMEOUT_S = 5400.0


@dataclass
class StageRecord:
    name: str
    inputs: dict[str, Any]
    timeout_s: float
    elapsed_s: float = 0.0
    status: str = "ok"  # ok | rejected | timeout | error
    outputs: dict[str, Any] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)

    def doc(self) -> dict[str, Any]:
        return {
            "stage": self.name, "status": self.status, "elapsed_s": round(self.elapsed_s, 3),
            "timeout_s": self.timeout_s, "inputs": self.inputs, "outputs": self.outputs,
            "findings": [f.model_dump() for f in self.findings],
        }  # fmt: skip


class StageTimeout(Exception):
    pass


# Any: what the stage function returns (each stage its own type)
def run_stage(rec: StageRecord, fn: Callable[[], Any], timer: Callable[[], float] = time.monotonic) -> Any:
    """``fn()`` in a daemon thread, waited for at most ``rec.timeout_s``; raises
    StageTimeout (the thread is abandoned, the job aborts) or fn's exception."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 — re-raised in the caller
            box["error"] = exc

    t0 = timer()
    th = threading.Thread(target=target, name=f"gauntlet-stage-{rec.name}", daemon=True)
    th.start()
    th.join(rec.timeout_s)
    rec.elapsed_s = timer() - t0
    if th.is_alive():
        rec.status = "timeout"
        raise StageTimeout(f"stage {rec.name} exceeded its timeout of {rec.timeout_s:g}s")
    if "error" in box:
        rec.status = "error"
        raise box["error"]
    return box.get("value")
