"""Issue 38, item 2: a Marathon is scored over every phase the clock would have revealed
(arena/scoring/phases.py). Quitting does not remove a phase from Objective (an abandoned
phase scores 0), Strategy's degradation and pivot rules count it as quality 0, so working
phases 2-3 badly never scores below quitting; seed 000's "stuck below 60 %: scored only on
Phase 1" applies to an agent that kept working and never passed the gate.

The low-effort agent is ``tests/agents/quit-after-phase1.yaml`` (task-store): the reference's
phase-1 solution, then it stops. Before issue 38 it totalled 58.4 on task-store, the standard
agent 35.1."""

from __future__ import annotations

import pytest
from agentfile_kit import attempt_for, expected_tests, judged, package_with_agents, replay
from eventkit import Attempt, make_result, passing
from scenarios import iteration

from arena.scoring import judge_attempt

LIMIT = 5400.0  # task-store's 90 minutes
PHASES = [
    {"id": "concurrent-edits", "reveal_at": 0.35, "advance_threshold": 0.6, "pivot": "none"},
    {"id": "multi-tenant", "reveal_at": 0.65, "advance_threshold": 0.6, "pivot": "moderate"},
]
MARK2, MARK3 = 0.35 * LIMIT, 0.65 * LIMIT


def _attempt() -> Attempt:
    a = Attempt("marathon", time_limit_s=LIMIT, budget=6, phases=PHASES, weight_class="heavyweight")
    starter = make_result(0, static=passing(100, 20), phase_tests={2: passing(100, 0), 3: passing(100, 0)})
    a.emit("starter.judged", result=starter, cached=False, key="k")
    return a


def quitter(p1: int):
    a = _attempt()
    iteration(a, p1, dur=1700)
    return judge_attempt(a.finish())  # ends at ~1700 s: before phase 2's mark


def worker(p1: int, p2: int, p3: int, *, keep: int | None = None, stay: bool = True):
    """Phase 1 as the quitter, then phases 2 and 3 worked at ``p2`` / ``p3`` of 100 tests."""
    a = _attempt()
    iteration(a, p1, dur=1700)
    a.reveal(2, "concurrent-edits", at=MARK2)
    keep = p1 if keep is None else keep
    iteration(a, keep, dur=900, phase=2, phase_tests={2: passing(100, p2)})
    a.reveal(3, "multi-tenant", at=MARK3)
    iteration(a, keep, dur=900, phase=3, phase_tests={2: passing(100, p2), 3: passing(100, p3)})
    if stay:
        a.wait(LIMIT - a.t - 1)
    return judge_attempt(a.finish())


@pytest.mark.parametrize("p1", [70, 100])
def test_working_phases_2_and_3_badly_never_scores_below_quitting(p1):
    quit_card = quitter(p1)
    for p2 in (0, 10, 30, 60):
        for p3 in (0, 10, 30):
            card = worker(p1, p2, p3)
            seen = (p2, p3, card.total, card.components, quit_card.total, quit_card.components)
            assert card.total >= quit_card.total, seen
            assert card.components["objective"] >= quit_card.components["objective"], seen
            assert card.components["strategy"] >= quit_card.components["strategy"], seen


def test_an_abandoned_phase_scores_zero_in_objective_and_strategy():
    card = quitter(100)
    assert [(p.objective, p.reached, p.abandoned) for p in card.phases] == [
        (100.0, True, False),
        (0.0, True, True),
        (0.0, True, True),
    ]
    assert card.components["objective"] == pytest.approx(100 / 3, abs=0.05)
    got = {a.rule: a.points for a in card.strategy_adjustments}
    assert got["degradation"] == -20 and got["pivot_adaptation"] == -20, got
    # the work credit is measured on the same phases: phase 1 alone closed a third of the gap
    assert card.work["share"] == pytest.approx((100 / 3 - 20 / 3) / (100 - 20 / 3), abs=0.01)


def test_stuck_below_the_gate_while_working_is_scored_on_phase_1_only():
    """Seed 000: phase 1 never reached 60 % of its static tests, the agent kept working to the
    end (phases 2 and 3 opened by time): scored only on phase 1. The same agent quitting
    before phase 2's mark is scored on all three, two of them 0."""
    stuck = worker(50, 40, 30)
    assert [p.reached for p in stuck.phases] == [True, False, False]
    assert stuck.components["objective"] == 50.0
    gone = quitter(50)
    assert [p.reached for p in gone.phases] == [True, True, True]
    assert gone.components["objective"] == pytest.approx(50 / 3, abs=0.05)
    assert gone.total < stuck.total
    # passing the gate later (phase 1 at 60 % in phase 2) is passing it: every phase counts
    passed = worker(50, 40, 30, keep=60)
    assert [p.reached for p in passed.phases] == [True, True, True]


def test_quit_after_phase1_agent_file_on_task_store(tmp_path):
    """The agent file's one submission (the reference's phase-1 code), judged as the judge
    judges it then (phase 1's tests, all passing); against it, an agent that submits the same
    code after each reveal and passes none of phases 2-3's tests (the worst 'working badly')."""
    pkg = package_with_agents(tmp_path, "task-store")
    (sub,) = replay(pkg, "quit-after-phase1", tmp_path)
    assert sub.t < MARK2  # it stops before the clock reveals phase 2
    phase1 = {e.func: True for e in expected_tests(pkg, (1,))}
    starter = judged(pkg, pkg / "starter", tmp_path / "st", {}, n=0, phases=(1, 2, 3))
    first = judged(pkg, sub.workspace, tmp_path / "s1", phase1)

    def run(keep_working: bool):
        a = attempt_for(pkg, starter, agent="scripted:quit-after-phase1")
        a.submit(result=first, at=sub.t, files=["taskstore.py", "DESIGN.md"])
        if keep_working:
            for n, (phase, pid, mark) in enumerate([(2, "concurrent-edits", MARK2), (3, "multi-tenant", MARK3)], 2):
                a.reveal(phase, pid, at=mark)
                res = judged(pkg, sub.workspace, tmp_path / f"s{n}", phase1, n=n, phases=tuple(range(1, phase + 1)))
                a.submit(result=res, at=mark + 600, phase=phase, files=["taskstore.py"], content=f"v{n}")
            a.wait(LIMIT - a.t - 1)
        return judge_attempt(a.finish())

    quit_card, work_card = run(False), run(True)
    assert [p.abandoned for p in quit_card.phases] == [False, True, True]
    p1 = quit_card.phases[0].objective
    assert quit_card.components["objective"] == pytest.approx(p1 / 3, abs=0.05)
    assert work_card.total >= quit_card.total, (work_card.components, quit_card.components)
    assert quit_card.total < 35.1  # the standard agent's total when the issue was filed
