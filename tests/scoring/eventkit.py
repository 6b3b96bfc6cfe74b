"""Builds realistic attempt event logs for judging tests: the same event kinds and data
keys the attempt runner stores (docs/INTERFACES.md), on an explicit attempt clock."""

from __future__ import annotations

import hashlib
from typing import Iterable

from arena.results import JudgeResult
from arena.events import Event


def make_result(
    n: int,
    *,
    static: Iterable[bool] = (),
    hidden: Iterable[bool] = (),
    adversarial: Iterable[bool] = (),
    module: str = "app",
    build_ok: bool = True,
    phase_tests: dict[int, list[bool]] | None = None,
    integrity=(),
    infra: str | None = None,
    deliverables: dict | None = None,
) -> dict:
    tests = []
    for suite, outcomes in (("static", static), ("hidden", hidden), ("adversarial", adversarial)):
        for i, ok in enumerate(outcomes):
            tests.append(
                {
                    "id": f"{suite}/test_{module}.py::test_{i:02d}",
                    "name": f"test_{i:02d}",
                    "suite": suite,
                    "phase": 1,
                    "outcome": "passed" if ok else "failed",
                    "message": "" if ok else "AssertionError",
                }
            )
    for ph, outcomes in (phase_tests or {}).items():
        for i, ok in enumerate(outcomes):
            tests.append(
                {
                    "id": f"phase{ph}/static/test_{module}{ph}.py::test_{i:02d}",
                    "name": f"test_{i:02d}",
                    "suite": "static",
                    "phase": ph,
                    "outcome": "passed" if ok else "failed",
                }
            )
    res = JudgeResult(
        submission=n,
        snapshot_hash=f"h{n}",
        tests=tests,
        build={"status": "success" if build_ok else "failure"},
        integrity=list(integrity),
        infra_error=infra,
        deliverables=deliverables or {},
    )
    return res.model_dump()


def passing(total: int, passed: Iterable[int] | int) -> list[bool]:
    """``total`` outcomes; ``passed`` is a count (the first n pass) or a set of indexes."""
    if isinstance(passed, int):
        return [i < passed for i in range(total)]
    s = set(passed)
    return [i in s for i in range(total)]


class Attempt:
    def __init__(
        self,
        fmt: str = "standard",
        *,
        time_limit_s: float = 1800.0,
        budget: int = 4,
        deliverables: list | None = None,
        phases: list | None = None,
        attempt: str = "a-0000test",
        challenge: str = "registration",
        agent: str = "scripted:test",
        weight_class: str = "middleweight",
        judge_s: float = 5.0,
    ):
        self.attempt, self.t, self.events, self.seq = attempt, 0.0, [], 0
        self.n, self.judge_s, self.hashes = 0, judge_s, {}
        self.emit(
            "attempt.started",
            challenge=challenge,
            title=challenge.title(),
            agent=agent,
            format=fmt,
            weight_class=weight_class,
            time_limit_s=time_limit_s,
            budget=budget,
            grace_s=30,
            time_scale=1.0,
            sandbox="local",
            phases=phases or [],
            deliverables=deliverables
            if deliverables is not None
            else [{"name": "fix", "kind": "tests", "weight": 1.0}],
            category="debug-gauntlet",
        )

    def emit(self, kind: str, **data) -> "Attempt":
        self.seq += 1
        self.events.append(Event(attempt=self.attempt, t=round(self.t, 3), kind=kind, data=data, seq=self.seq))
        return self

    def wait(self, seconds: float) -> "Attempt":
        self.t += seconds
        return self

    def read(self, path: str, after: float = 1.0) -> "Attempt":
        return self.wait(after).emit("file.read", path=path)

    def edit(self, path: str, added: int = 3, removed: int = 1, change: str = "modified", after: float = 1.0):
        return self.wait(after).emit("file.changed", path=path, change=change, lines_added=added, lines_removed=removed)

    def run_tests(self, passed: int, failed: int, after: float = 1.0) -> "Attempt":
        return self.wait(after).emit(
            "command.run",
            command="python -m pytest -q",
            exit_code=int(failed > 0),
            ran_tests=True,
            passed=passed,
            failed=failed,
            duration_s=1.0,
        )

    def cmd(self, command: str, after: float = 1.0) -> "Attempt":
        return self.wait(after).emit(
            "command.run", command=command, exit_code=0, ran_tests=False, passed=0, failed=0, duration_s=0.1
        )

    def read_feedback(self, after: float = 1.0) -> "Attempt":
        return self.wait(after).emit("feedback.read", submission=self.n)

    def submit(
        self,
        result: dict | None = None,
        *,
        files: list[str] = ("src/app.py",),
        added: int = 5,
        removed: int = 2,
        similarity: float = 0.6,
        identical: bool = False,
        replaces: int | None = None,
        phase: int = 1,
        at: float | None = None,
        content: str | None = None,
        **result_kw,
    ) -> "Attempt":
        if at is not None:
            assert at >= self.t, f"submit at {at} is before the clock ({self.t})"
            self.t = at
        self.n += 1
        n = self.n
        h = hashlib.sha256((content or f"content-{n}").encode()).hexdigest()[:16]
        identical_to = None
        if identical and n > 1:
            identical_to, h = n - 1, self.hashes[n - 1]
        self.hashes[n] = h
        diff = {
            "files_changed": 0 if identical else len(files),
            "lines_added": 0 if identical else added,
            "lines_removed": 0 if identical else removed,
            "similarity": 1.0 if identical else similarity,
            "changed_files": [] if identical else list(files),
        }
        self.emit(
            "submission.received",
            submission=n,
            iteration=n - 1,
            hash=h,
            files=12,
            bytes=4096,
            identical_to=identical_to,
            replaces=replaces,
            diff=diff,
        )
        if replaces:
            self.emit("submission.replaced", submission=replaces, by=n)
        res = result if result is not None else make_result(n, **result_kw)
        res = {**res, "submission": n}
        from arena.scoring import submission_score  # noqa: PLC0415

        self.wait(self.judge_s)
        score = submission_score(res, self.events[0].data["deliverables"], None)
        self.emit("submission.judged", submission=n, result=res, score=score, phase=phase)
        self.emit("feedback.delivered", submission=n, feedback={"submission": n, "iteration": n - 1})
        return self

    def finding(self, check: str, detail: str, severity: str = "error") -> "Attempt":
        return self.emit("integrity.finding", severity=severity, check=check, detail=detail)

    def reveal(self, phase: int, pid: str, at: float | None = None) -> "Attempt":
        if at is not None:
            self.t = at
        return self.emit("phase.revealed", phase=phase, id=pid, by="time", briefing="", hint="")

    def finish(
        self, scored: int | None = None, status: str = "finished", closed_after: float | None = None
    ) -> list[Event]:
        """End the attempt 1 s on. ``closed_after``: the record closes that much later (a
        slow teardown), with ``ended_s`` naming the end, as the engine writes it."""
        self.wait(1.0)
        extra = {}
        if closed_after is not None:
            extra["ended_s"] = self.t
            self.wait(closed_after)
        self.emit(
            "attempt.finished",
            status=status,
            reason="done",
            scored_submission=scored if scored is not None else (self.n or None),
            **extra,
        )
        return self.events
