"""Event scripts for the screen tests: what the engine publishes, on a bus, at given
attempt times. Feedback documents follow CONTRACT §4 per format (Sprint: names and
categories, no messages; Standard: messages, adversarial from the 3rd submission)."""

from __future__ import annotations

from arena.bus import EventBus
from arena.clock import AttemptClock, ManualTime
from arena.formats import rules_for
from arena.results import Coverage, JudgeResult, Lint, TestResult
from arena.rules import disclose

LIMITS = {"sprint": 900.0, "standard": 1800.0, "marathon": 3600.0}
BUDGETS = {"sprint": 2, "standard": 4, "marathon": 6}
MARATHON_PHASES = [
    {"id": "extension", "reveal_at": 0.35, "advance_threshold": 0.6, "pivot": None},
    {"id": "adaptation", "reveal_at": 0.65, "advance_threshold": 0.6, "pivot": "moderate"},
    {"id": "integration", "reveal_at": 0.80, "advance_threshold": 0.6, "pivot": None},
]


def start(
    bus: EventBus,
    attempt: str,
    fmt: str,
    *,
    agent: str = "scripted:elite",
    challenge: str | None = None,
    title: str | None = None,
    extra: dict | None = None,
) -> None:
    rules = rules_for(fmt)
    bus.publish(
        attempt,
        0.0,
        "attempt.started",
        {
            "challenge": challenge or f"{fmt}-challenge",
            "title": title or f"The {fmt.title()} Challenge",
            "agent": agent,
            "format": fmt,
            "weight_class": "middleweight",
            "time_limit_s": LIMITS[fmt],
            "budget": BUDGETS[fmt],
            "grace_s": rules.grace_s,
            "time_scale": 1.0,
            "sandbox": "local",
            "phases": MARATHON_PHASES if fmt == "marathon" else [],
            "deliverables": [{"name": "fix", "kind": "tests", "weight": 1.0}],
            "category": "debug-gauntlet",
            **(extra or {}),
        },
    )


def _result(n: int, *, fails: int, adversarial: bool = True) -> JudgeResult:
    static = [
        ("test_basic_sort", None),
        ("test_edge_empty_input", "AssertionError: expected [] got None"),
        ("test_regression_order", "assert [2, 1] == [1, 2]"),
        ("test_edge_single", None),
    ]
    tests = []
    for i, (name, msg) in enumerate(static):
        failed = msg is not None and i <= fails
        tests.append(
            TestResult(
                id=f"static/test_x.py::{name}",
                name=name,
                suite="static",
                outcome="failed" if failed else "passed",
                message=msg if failed else "",
            )
        )
    tests += [
        TestResult(
            id=f"hidden/h.py::test_h{i}",
            name=f"test_h{i}",
            suite="hidden",
            outcome="passed" if i < 2 else "failed",
            message="hidden detail",
        )
        for i in range(3)
    ]
    if adversarial:
        tests += [
            TestResult(
                id="adversarial/a.py::test_adv_huge_input",
                name="test_adv_huge_input",
                suite="adversarial",
                outcome="failed",
                message="Timeout after 2s",
            ),
            TestResult(
                id="adversarial/a.py::test_adv_unicode", name="test_adv_unicode", suite="adversarial", outcome="passed"
            ),
        ]
    return JudgeResult(
        submission=n,
        snapshot_hash=f"h{n}",
        tests=tests,
        lint=Lint(warnings=1, issues=["src/sort.py:3: unused import os"]),
        coverage=Coverage(line_percent=78.4, branch_percent=62.1),
    )


def doc(fmt: str, n: int, t: float, *, fails: int = 2) -> dict:
    """The feedback document ``arena.rules.disclose`` makes for submission ``n``."""
    return disclose(
        rules_for(fmt),
        n,
        _result(n, fails=fails),
        at="2026-03-27T14:32:00Z",
        elapsed_s=t,
        diff={"files_changed": 2, "lines_added": 14, "lines_removed": 6},
        regressions=["test_basic_sort"] if n == 2 else [],
        phase={"current": 1, "completed": []},
        trajectory=[40.0 + 10 * i for i in range(n)],
    )


def submit(bus: EventBus, attempt: str, n: int, t: float, doc: dict, score: float) -> None:
    bus.publish(
        attempt,
        t,
        "submission.received",
        {
            "submission": n,
            "iteration": n - 1,
            "hash": f"h{n}",
            "files": 3,
            "bytes": 900,
            "identical_to": None,
            "replaces": None,
            "diff": {
                "files_changed": 1,
                "lines_added": 5,
                "lines_removed": 2,
                "similarity": 0.9,
                "changed_files": ["src/sort.py"],
            },
        },
    )
    bus.publish(attempt, t + 1, "submission.judged", {"submission": n, "result": {}, "score": score, "phase": 1})
    bus.publish(attempt, t + 1, "feedback.delivered", {"submission": n, "feedback": doc})


def activity(bus: EventBus, attempt: str, t: float) -> None:
    bus.publish(
        attempt, t, "file.changed", {"path": "src/sort.py", "change": "modified", "lines_added": 3, "lines_removed": 1}
    )
    bus.publish(
        attempt,
        t + 1,
        "command.run",
        {
            "command": "python -m pytest -q",
            "exit_code": 1,
            "ran_tests": True,
            "passed": 3,
            "failed": 1,
            "duration_s": 0.8,
        },
    )
    bus.publish(attempt, t + 2, "agent.output", {"stream": "stdout", "text": "fixing the boundary"})


def clock_mark(bus: EventBus, attempt: str, fmt: str, kind: str) -> None:
    rules, limit = rules_for(fmt), LIMITS[fmt]
    at = {
        "clock.soft_warning": rules.soft_warning,
        "clock.hard_warning": rules.hard_warning,
        "clock.cutoff": rules.cutoff,
    }.get(kind)
    t = limit * at if at is not None else limit * rules.cutoff + rules.grace_s
    bus.publish(attempt, t, kind, {"remaining_s": max(0.0, limit - t)})


def reveal(bus: EventBus, attempt: str, phase: int, t: float) -> None:
    pid = MARATHON_PHASES[phase - 2]["id"]
    bus.publish(
        attempt,
        t,
        "phase.revealed",
        {
            "phase": phase,
            "id": pid,
            "by": "threshold",
            "briefing": f"Phase {phase}: extend the store with {pid} support.",
            "hint": "start from the API",
        },
    )


def finish(bus: EventBus, attempt: str, t: float, scored: int | None = 1) -> None:
    bus.publish(
        attempt, t, "attempt.finished", {"status": "finished", "reason": "budget spent", "scored_submission": scored}
    )


async def stored_attempts(db) -> list[str]:
    """A real store holding a finished Standard attempt (3 submissions) and a finished
    Marathon attempt with a phase reveal; returns their ids."""
    from store import Store

    store = await Store.open(db)
    bus = EventBus()
    bus.subscribe(store.append)
    start(bus, "a-0000000a", "standard", agent="scripted:elite", challenge="rate-limiter", title="Rate Limiter")
    activity(bus, "a-0000000a", 30)
    for n in (1, 2, 3):
        submit(bus, "a-0000000a", n, 300.0 * n, doc("standard", n, 300.0 * n, fails=3 - n), 40.0 + 20 * n)
    clock_mark(bus, "a-0000000a", "standard", "clock.soft_warning")
    clock_mark(bus, "a-0000000a", "standard", "clock.hard_warning")
    finish(bus, "a-0000000a", 1700.0, scored=3)
    start(bus, "a-0000000b", "marathon", agent="scripted:naive", challenge="kv-store", title="KV Store")
    reveal(bus, "a-0000000b", 2, 1300.0)
    finish(bus, "a-0000000b", 2000.0, scored=None)
    await store.flush()
    await store.close()
    return ["a-0000000a", "a-0000000b"]


class Rig:
    """An adapter with attempts started on a bus, each with an AttemptClock on one ManualTime."""

    def __init__(self) -> None:
        from gauntlet_tui.engine import EngineAdapter

        self.time = ManualTime()
        self.adapter = EngineAdapter()
        self.bus = self.adapter.bus
        self.clocks: dict[str, AttemptClock] = {}

    def start(self, attempt: str, fmt: str, *, head_start: float = 0.0, **kw) -> AttemptClock:
        """``head_start``: attempt seconds already gone when the manual time reads 0."""
        start(self.bus, attempt, fmt, **kw)
        clock = AttemptClock(self.time, rules_for(fmt), LIMITS[fmt], elapsed_at_start=head_start)
        self.clocks[attempt] = clock
        self.adapter.attach_clock(attempt, clock.elapsed)
        return clock

    def app(self, **kw):
        from gauntlet_tui.app import GauntletApp

        kw.setdefault("live_refresh", False)
        kw.setdefault("toasts", False)  # snapshots and row tests see no pop-ups
        kw.setdefault("board", False)  # the table, whatever the theme
        return GauntletApp(self.adapter, **kw)


class RecordingHandle:
    """Observes what a screen asks of a live attempt (the real one is gauntlet_tui.live.LiveHandle)."""

    def __init__(self, rig: Rig, attempt: str) -> None:
        self.rig, self.attempt, self.stopped = rig, attempt, 0

    async def stop(self) -> None:
        self.stopped += 1
        finish(self.rig.bus, self.attempt, self.rig.time.now())
