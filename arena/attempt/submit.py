"""Submissions of one attempt, one at a time: decide (rules), snapshot, judge,
score, disclose, commit, reply.

The reply to the agent is sent only after ``store.flush()`` returns, so a
submission and its feedback are durable before the agent hears back. The pipeline
runs in its own task: an agent stopped mid-submit does not abort a judgement.

Sprint double submit (seed 001): a submission that a second one within the window may
still replace is judged, but its feedback is held until the window has passed on the
attempt clock (or the agent is done); once replaced it is never delivered, so the agent
reads exactly one feedback document for the pair.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from arena.agents.server import error
from arena.attempt.host import AttemptHost
from arena.attempt.records import Accepted, ResumeState
from arena import events as ev

if TYPE_CHECKING:
    from types import ModuleType

    from arena.attempt.phases import PhaseState
    from arena.judge.verdict.snapshot import Snapshot
    from arena.results import JudgeResult


class _Host(AttemptHost, Protocol):
    phases: PhaseState


@dataclass
class _Baseline:
    snapshot: Snapshot | None = None
    tried: bool = False


class SubmissionDesk:
    def __init__(self, attempt: _Host) -> None:
        self.a = attempt
        self.accepted: list[Accepted] = []
        self.received = 0  # submission numbers handed out (1-based)
        self.busy = False
        self._lock = asyncio.Lock()
        self._tasks: set[asyncio.Task] = set()
        self._baseline = _Baseline()
        self._closing = asyncio.Event()  # set by idle(): nothing can replace a held submission now
        self.started_wall = dt.datetime.now(dt.timezone.utc)  # for the ISO ``at`` only

    # -- reading ---------------------------------------------------------------------
    def used(self) -> int:
        return sum(1 for s in self.accepted if s.counted and not s.infra)

    @property
    def per_phase(self) -> bool:
        return getattr(self.a.manifest, "budget", "global") == "per_phase"

    def budget_used(self) -> int:
        """Counted submissions charged to the budget in play (the open phase's, when scoped)."""
        return sum(
            1
            for s in self.accepted
            if s.counted and not s.infra and (not self.per_phase or s.phase == self.a.phases.current)
        )

    def last_number(self) -> int | None:
        return self.accepted[-1].number if self.accepted else None

    def valid(self) -> list[Accepted]:
        return [s for s in self.accepted if s.valid]

    def scored_submission(self) -> int | None:
        v = self.valid()
        return v[-1].number if v else None

    def feedback(self, n: int | None) -> dict[str, Any] | None:
        with_fb = [s for s in self.accepted if s.feedback is not None]
        if n is None:
            return with_fb[-1].feedback if with_fb else None
        return next((s.feedback for s in with_fb if s.number == n), None)

    async def idle(self) -> None:
        self._closing.set()  # the agent is done (or the attempt ends): held feedback goes out
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    def cancel(self) -> None:
        for task in list(self._tasks):
            task.cancel()

    def restore(self, resume: ResumeState) -> None:
        self.accepted = list(resume.accepted)
        self.received = resume.received

    # -- submitting ----------------------------------------------------------------------
    async def submit(self, via: str | None = None) -> dict[str, Any]:
        """``via``: how the agent submitted (``"mcp"``), recorded on ``submission.received``."""
        self.a.io_busy += 1  # from the call on, not from when the task first runs

        def done(task: asyncio.Task) -> None:
            self._tasks.discard(task)
            self.a.io_busy -= 1

        task = asyncio.create_task(self._one(via), name=f"{self.a.id}:submit")
        self._tasks.add(task)
        task.add_done_callback(done)
        return await asyncio.shield(task)

    async def _one(self, via: str | None) -> dict[str, Any]:
        async with self._lock, self.a.hold():
            self.busy = True
            try:
                reply = await self._pipeline(via)
            finally:
                self.busy = False
        if isinstance(reply, Accepted):
            return await self._after_window(reply)
        return reply

    async def _after_window(self, acc: Accepted) -> dict[str, Any]:
        """Wait (lock released, not busy) until ``acc``'s double-submit window has passed,
        then deliver its held feedback, or withhold it when a later submission replaced it."""
        a = self.a
        a.io_busy -= 1  # waiting on the attempt clock is not real work in progress
        try:
            # ... but the agent, blocked on its submit, is not hung meanwhile (a hold)
            async with a.hold():
                sleeper = asyncio.ensure_future(a.sleep_until(acc.at + a.rules.double_submit_window_s))
                closing = asyncio.ensure_future(self._closing.wait())
                try:
                    await asyncio.wait({sleeper, closing}, return_when=asyncio.FIRST_COMPLETED)
                finally:
                    sleeper.cancel()
                    closing.cancel()
        finally:
            a.io_busy += 1
        async with self._lock:
            doc, acc.held = acc.held, None
            if not acc.counted:
                by = next((s.number for s in self.accepted if s.number > acc.number), None)
                return error(
                    "replaced",
                    f"submission {acc.number} was replaced by submission {by} within "
                    f"{a.rules.double_submit_window_s:g} s: its feedback is withheld",
                )
            if doc is None:  # _deliver holds the document before it returns the Accepted
                raise RuntimeError(f"submission {acc.number}: no held feedback to deliver")
            return await self._publish_feedback(acc, doc)

    def _iso(self, at: float) -> str:
        t = self.started_wall + dt.timedelta(seconds=at / self.a.clock.scale)
        return t.strftime("%Y-%m-%dT%H:%M:%SZ")

    async def _snapshot(self) -> Snapshot:
        from arena.judge.verdict.snapshot import take_snapshot

        return await asyncio.to_thread(take_snapshot, self.a.workspace, self.a.shared.snapshots)

    async def _baseline_snapshot(self) -> Snapshot | None:
        """The starter, as the 'previous' of the first submission's diff."""
        if not self._baseline.tried:
            self._baseline.tried = True
            from arena.judge.verdict.snapshot import take_snapshot

            try:
                self._baseline.snapshot = await asyncio.to_thread(
                    take_snapshot, self.a.challenge.starter_dir, self.a.shared.snapshots
                )
            except Exception:  # noqa: BLE001 - the diff then counts from nothing
                self._baseline.snapshot = None
        return self._baseline.snapshot

    async def _pipeline(self, via: str | None = None) -> dict[str, Any] | Accepted:
        from arena import rules
        from arena.judge.verdict.snapshot import diff_stats

        a = self.a
        if a.over:
            return error("time_up", "the attempt is over")
        await a.scan()  # the changes that led here are logged before the submission
        at = a.clock.elapsed()
        history = [(s.number, s.at, s.counted, s.phase) for s in self.accepted if not s.infra]
        decision = rules.decide_submission(
            a.rules,
            budget=a.manifest.iterations,
            at=at,
            stage=a.clock.stage(at),
            history=history,
            per_phase=self.per_phase,
            phase=a.phases.current,
        )
        if not decision.ok:
            a.publish(ev.SUBMISSION_REFUSED, {"code": decision.code, "reason": decision.reason})
            return {"ok": False, "code": decision.code, "reason": decision.reason}
        try:
            snap = await self._snapshot()
        except Exception as exc:  # noqa: BLE001 - unreadable workspace: the agent's doing
            detail = f"workspace cannot be snapshotted: {type(exc).__name__}: {exc}"
            a.publish(ev.INTEGRITY_FINDING, {"severity": "error", "check": "workspace_corrupted", "detail": detail})
            a.finish("finished", "workspace corrupted: scored on the last valid snapshot")
            return error("workspace_corrupted", detail)
        self.received += 1
        number = self.received
        prev = self.accepted[-1].snapshot if self.accepted else await self._baseline_snapshot()
        diff = await asyncio.to_thread(diff_stats, prev, snap)  # bounded, and off the loop
        same_as = rules.identical_to(snap.hash, [(s.number, s.hash) for s in self.accepted])
        a.publish(
            ev.SUBMISSION_RECEIVED,
            {
                "submission": number,
                "iteration": number - 1,
                "hash": snap.hash,
                "files": len(snap.files),
                "bytes": getattr(snap, "bytes", 0),
                "identical_to": same_as,
                "replaces": decision.replaces,
                "diff": diff,
                **({"via": via} if via else {}),
            },
            t=at,
        )
        if decision.replaces:
            for s in self.accepted:
                if s.number == decision.replaces:
                    s.counted = False
            a.publish(ev.SUBMISSION_REPLACED, {"submission": decision.replaces, "by": number}, t=at)
        acc = Accepted(number, at, snap.hash, snap, replacement=bool(decision.replaces), phase=a.phases.current)
        self.accepted.append(acc)
        phase = a.phases.current
        # Judging runs at real speed in a sped-up attempt (the clock never pauses, but
        # sandbox latency must not eat scale x its duration of attempt time).
        with a.clock.unscaled():
            result = await a.shared.judge.run(a.challenge, snap, submission=number, phases=list(range(1, phase + 1)))
        if result.infra_error:
            acc.infra, acc.counted = True, False
            a.infra("judge", result.infra_error)
            await a.commit()
            return error("infra_error", f"the judge could not run: {result.infra_error}")
        return await self._deliver(acc, result, phase, diff, same_as, at, rules)

    async def _deliver(
        self,
        acc: Accepted,
        result: JudgeResult,
        phase: int,
        diff: dict[str, Any],
        same_as: int | None,
        at: float,
        rules: ModuleType,
    ) -> dict[str, Any] | Accepted:
        from arena.formats import FIELD_SCORE_PREVIEW
        from arena.scoring import submission_score

        a = self.a
        acc.result = result
        acc.score = round(float(submission_score(result, a.manifest.deliverables, phase)), 3)
        a.publish(
            ev.SUBMISSION_JUDGED,
            {"submission": acc.number, "result": result.model_dump(), "score": acc.score, "phase": phase},
        )
        for f in result.integrity:
            a.publish(
                ev.INTEGRITY_FINDING,
                {"severity": f.severity, "check": f.check, "detail": f.detail, "submission": acc.number},
            )
        earlier = [s for s in self.accepted if s.valid and s.number < acc.number]
        regs = rules.regressions(earlier[-1].result if earlier else None, result)
        a.phases.after_judged(result)
        notices = [rules.IDENTICAL_NOTICE] if same_as else []
        preview = None
        if FIELD_SCORE_PREVIEW in a.rules.disclosed(acc.number):
            from arena.scoring import score_preview

            preview = score_preview(list(a.events))
        trajectory = [s.score for s in self.accepted if s.valid]
        doc = rules.disclose(
            a.rules,
            acc.number,
            result,
            at=self._iso(at),
            elapsed_s=round(at, 3),
            diff=diff,
            regressions=regs,
            phase=a.phases.feedback_field(),
            score_preview=preview,
            trajectory=trajectory,
            notices=notices,
            timeout_s=a.manifest.judge.timeout_s,
        )
        if a.rules.double_submit_window_s > 0 and not acc.replacement and not self._closing.is_set():
            acc.held = doc  # a later submission may still replace this one: hold its feedback
            if not await a.commit():
                return error("infra_error", "the store could not commit this submission")
            return acc
        return await self._publish_feedback(acc, doc)

    async def _publish_feedback(self, acc: Accepted, doc: dict[str, Any]) -> dict[str, Any]:
        a = self.a
        acc.feedback = doc
        a.publish(ev.FEEDBACK_DELIVERED, {"submission": acc.number, "feedback": doc})
        if not await a.commit():  # durable before the agent hears back
            return error("infra_error", "the store could not commit this submission")
        return {"ok": True, "submission": acc.number, "feedback": doc}
