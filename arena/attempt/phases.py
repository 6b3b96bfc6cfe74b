"""Marathon phases of one attempt: which is open, opening the next by threshold
(after a judged submission) or by time (the clock's reveal mark), and the briefing
the agent sees (the top-level briefing plus each revealed phase's briefing)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from arena import events as ev

if TYPE_CHECKING:
    from arena.attempt.host import AttemptHost
    from arena.attempt.records import ResumeState
    from arena.challenge.models import Phase
    from arena.results import JudgeResult


class PhaseState:
    def __init__(self, attempt: AttemptHost) -> None:
        self.a = attempt
        self.current = 1
        self.completed: list[int] = []

    @property
    def entries(self) -> list[Phase]:
        return list(self.a.manifest.phases or [])

    @property
    def last(self) -> int:
        return 1 + len(self.entries)

    def entry(self, n: int) -> Phase | None:
        return self.entries[n - 2] if 2 <= n <= self.last else None

    def reveal_fractions(self) -> list[float]:
        marks = self.a.rules.reveal_marks
        out = []
        for i, p in enumerate(self.entries):
            frac = p.reveal_at if p.reveal_at is not None else (marks[i] if i < len(marks) else None)
            if frac is not None:
                out.append(frac)
        return out

    def threshold(self, n: int) -> float:
        """Share of phase ``n``'s static tests that opens phase ``n + 1``: the next
        phase's ``advance_threshold`` if set, else the format's."""
        nxt = self.entry(n + 1)
        if nxt is not None and nxt.advance_threshold is not None:
            return float(nxt.advance_threshold)
        return float(self.a.rules.advance_threshold)

    def describe(self) -> list[dict[str, Any]]:
        fr = self.reveal_fractions()
        return [
            {
                "id": p.id,
                "reveal_at": fr[i] if i < len(fr) else None,
                "advance_threshold": p.advance_threshold,
                "pivot": p.pivot,
            }
            for i, p in enumerate(self.entries)
        ]

    def briefing_text(self) -> str:
        parts = [self.a.challenge.briefing.rstrip("\n")]
        for n in range(2, self.current + 1):
            text = self.a.challenge.phase_briefing(n)
            if text:
                parts.append(f"\n\n---\n\n# Phase {n}\n\n{text.rstrip()}")
        return "".join(parts) + "\n"

    def feedback_field(self) -> dict[str, Any]:
        e = self.entry(self.current)
        out: dict[str, Any] = {"current": self.current, "completed": list(self.completed)}
        if e is not None and e.hint:
            out["hint"] = e.hint
        return out

    def pass_rate(self, result: JudgeResult | None) -> float | None:
        static = result.suite("static", self.current) if result is not None else []
        if not static:
            return None
        return sum(1 for t in static if t.outcome == "passed") / len(static)

    def check(self, result: JudgeResult | None = None, *, t: float | None = None) -> None:
        """Open whatever ``rules.open_phase`` says opens now (threshold after a judged
        submission, or the time mark)."""
        from arena import rules

        if self.current >= self.last or self.a.over:
            return
        at = self.a.clock.elapsed() if t is None else t
        openings = rules.open_phase(
            self.a.rules,
            current=self.current,
            phase_count=self.last,
            fraction=at / self.a.manifest.time_limit_s,
            pass_rate=self.pass_rate(result),
            reveal_at=self.reveal_fractions(),
            thresholds=[self.threshold(n) for n in range(1, self.last)],
        )
        for o in openings:
            self.open(o.phase, by=o.by, t=t)

    def after_judged(self, result: JudgeResult | None) -> None:
        self.check(result)

    def open(self, n: int | None, *, by: str, t: float | None = None) -> None:
        """Open phases up to ``n`` (in order), each with ``phase.revealed``."""
        if n is None or self.a.over:
            return
        opened = False
        while self.current < min(n, self.last):
            opened = True
            self.completed.append(self.current)
            self.current += 1
            e = self.entry(self.current)
            briefing = self.a.challenge.phase_briefing(self.current) or ""
            self.a.publish(
                ev.PHASE_REVEALED,
                {
                    "phase": self.current,
                    "id": e.id if e else None,
                    "by": by,
                    "briefing": briefing,
                    "hint": getattr(e, "hint", "") or None,
                },
                t=t,
            )
        (self.a.agent_dir / "briefing.md").write_text(self.briefing_text())
        if opened:  # the next submission is judged against the new phases too
            self.a.shared.warm_judge(self.a.challenge, list(range(1, self.current + 1)))

    def restore(self, resume: ResumeState) -> None:
        self.current = resume.phase
        self.completed = list(range(1, resume.phase))
