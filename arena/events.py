"""Typed attempt events: the source of truth for live screens, the store, replay and judging.

Every event carries the attempt id, its attempt-clock time ``t`` (seconds since the
attempt started, on the attempt clock, so scaled runs store unscaled seconds), a
``kind`` from ``KINDS`` and a JSON-able ``data`` mapping whose keys are documented
per kind in ``docs/INTERFACES.md``. ``seq`` is assigned by the bus, in order, per attempt.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

ATTEMPT_STARTED = "attempt.started"
ATTEMPT_FINISHED = "attempt.finished"
ATTEMPT_RESUMED = "attempt.resumed"
CLOCK_SOFT = "clock.soft_warning"
CLOCK_HARD = "clock.hard_warning"
CLOCK_CUTOFF = "clock.cutoff"
CLOCK_GRACE_END = "clock.grace_end"
PHASE_REVEALED = "phase.revealed"
SUBMISSION_RECEIVED = "submission.received"
SUBMISSION_REFUSED = "submission.refused"
SUBMISSION_REPLACED = "submission.replaced"
SUBMISSION_JUDGED = "submission.judged"
FEEDBACK_DELIVERED = "feedback.delivered"
FEEDBACK_READ = "feedback.read"
FILE_CHANGED = "file.changed"
FILE_READ = "file.read"
COMMAND_RUN = "command.run"
AGENT_OUTPUT = "agent.output"
AGENT_STARTED = "agent.started"
AGENT_EXITED = "agent.exited"
AGENT_HUNG = "agent.hung"
AGENT_MESSAGE = "agent.message"
AGENT_STEP = "agent.step"  # one step parsed from the agent's own output (arena/steps, CONTRACT §11)
PROTOCOL_CALL = "protocol.call"
INTEGRITY_FINDING = "integrity.finding"
INFRA_ERROR = "infra.error"
MODEL_CALL = "model.call"
MODEL_TOOL_CALL = "model.tool_call"
LIMIT_REACHED = "limit.reached"
STARTER_JUDGED = "starter.judged"  # the untouched starter judged before the clock (attempt/starter.py)
BOUND_REACHED = "bound.reached"  # an arena bound of one attempt (arena/agents/bounds.py)

KINDS: frozenset[str] = frozenset(
    v for k, v in dict(globals()).items() if k.isupper() and isinstance(v, str) and "." in v
)


class Event(BaseModel):
    model_config = ConfigDict(frozen=True)

    attempt: str
    t: float
    kind: str
    data: dict[str, Any] = Field(default_factory=dict)
    seq: int = 0

    def flat(self) -> dict[str, Any]:
        """The CONTRACT §5 ``show --json`` shape: ``{"t", "kind", ...data}``."""
        return {"t": round(self.t, 3), "kind": self.kind, **self.data}
