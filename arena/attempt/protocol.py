"""The agent protocol's verbs for one attempt (CONTRACT §3).

Every request leaves a ``protocol.call`` event. Replies are objects with ``ok``;
refusals carry ``code`` and ``reason``. Ops: ``status``, ``briefing``, ``submit``,
``feedback`` (``n`` optional: the latest by default), ``message`` (``text``; the only
verb that changes anything during grace). ``submit`` may say how it was made: ``via``
(``"mcp"``, from the Gauntlet MCP server, ``gauntlet-agent mcp``) is recorded on its
``submission.received``; the CLI sends none and nothing is recorded.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from arena.agents.server import error
from arena import events as ev
from arena.attempt.host import AttemptHost

if TYPE_CHECKING:
    from arena.attempt.phases import PhaseState
    from arena.attempt.submit import SubmissionDesk


class _Host(AttemptHost, Protocol):
    desk: SubmissionDesk
    phases: PhaseState


OPS = ("status", "briefing", "submit", "feedback", "message")
VIAS = ("mcp",)  # how a submission may say it was made (none: the CLI)
MESSAGE_CAP = 8192


class ProtocolHandler:
    def __init__(self, attempt: _Host) -> None:
        self.a = attempt

    async def handle(self, req: dict[str, Any]) -> dict[str, Any]:
        op = req.get("op")
        if op not in OPS:
            return error("bad_request", f"unknown op {op!r}: expected one of {', '.join(OPS)}")
        if self.a.over:
            return error("time_up", "the attempt is over")
        self.a.publish(ev.PROTOCOL_CALL, {"op": op})
        return await getattr(self, f"_{op}")(req)

    async def _status(self, req: dict[str, Any]) -> dict[str, Any]:
        a, c = self.a, self.a.clock
        desk = a.desk
        return {
            "ok": True,
            "attempt": a.id,
            "challenge": a.manifest.id,
            "title": a.manifest.title,
            "format": a.manifest.format,
            "stage": c.stage(),
            "elapsed_s": round(c.elapsed(), 3),
            "remaining_s": round(c.remaining(), 3),
            "time_limit_s": a.manifest.time_limit_s,
            "grace_s": a.rules.grace_s,
            "budget": a.manifest.iterations,
            "submissions_used": desk.used(),
            "submissions_left": max(0, a.manifest.iterations - desk.budget_used()),
            "budget_scope": "per_phase" if desk.per_phase else "global",
            "judging": desk.busy,
            "phase": a.phases.current,
            "last_submission": desk.last_number(),
        }

    async def _briefing(self, req: dict[str, Any]) -> dict[str, Any]:
        return {"ok": True, "phase": self.a.phases.current, "briefing": self.a.phases.briefing_text()}

    async def _submit(self, req: dict[str, Any]) -> dict[str, Any]:
        via = req.get("via")
        if via is not None and via not in VIAS:
            return error("bad_request", f"submit via: expected one of {', '.join(VIAS)}, got {via!r}")
        return await self.a.desk.submit(via=via)

    async def _feedback(self, req: dict[str, Any]) -> dict[str, Any]:
        n = req.get("n")
        if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 1):
            return error("bad_request", f"feedback n: expected a submission number >= 1, got {n!r}")
        doc = self.a.desk.feedback(n)
        if doc is None:
            which = f"submission {n}" if n else "any submission"
            return error("no_feedback", f"no feedback for {which} yet")
        self.a.publish(ev.FEEDBACK_READ, {"submission": doc.get("submission")})
        return {"ok": True, "feedback": doc}

    async def _message(self, req: dict[str, Any]) -> dict[str, Any]:
        from arena import rules

        decision = rules.decide_message(self.a.rules, stage=self.a.clock.stage())
        if not decision.ok:
            return error(decision.code, decision.reason)
        text = req.get("text")
        if not isinstance(text, str) or not text.strip():
            return error("bad_request", 'message: expected "text", a non-empty string')
        kept = self.a.bounds.message(text[:MESSAGE_CAP])
        if kept is None:
            return error("rate_limited", "this attempt has sent as many messages as it may")
        self.a.publish(ev.AGENT_MESSAGE, {"text": kept})
        return {"ok": True}
