"""Every Strategy and Integrity rule: a scenario that fires it and one that must not."""

from __future__ import annotations

import pytest
from eventkit import Attempt, passing
from scenarios import flags, iteration, process, run, strategy

from arena.scoring import judge_attempt

PHASES = [
    {"id": "extension", "reveal_at": 0.35, "advance_threshold": 0.6},
    {"id": "adaptation", "reveal_at": 0.65, "advance_threshold": 0.6, "pivot": "moderate"},
]


def marathon(
    p1: int,
    p2: int,
    p3: int | None,
    *,
    keep_p1: int = 100,
    reveal3: float = 3900,
    last_at: float | None = None,
    closed_after: float | None = None,
):
    """Three phases of 100 tests; ``pN`` = tests of phase N passing while N is current."""
    a = Attempt("marathon", time_limit_s=6000, budget=8, phases=PHASES)
    iteration(a, p1, dur=1800)
    a.reveal(2, "extension", at=2100)
    iteration(a, keep_p1, dur=1500, phase=2, phase_tests={2: passing(100, p2)})
    if p3 is not None:
        a.reveal(3, "adaptation", at=reveal3)
        iteration(
            a,
            keep_p1,
            dur=max(600, (last_at or 0) - a.t),
            phase=3,
            phase_tests={2: passing(100, p2), 3: passing(100, p3)},
        )
    return judge_attempt(a.finish(closed_after=closed_after))


# --- strategy: the final submission (seed 001: iteration behaviour is Process's alone) ---------
def test_iteration_rules_are_not_strategy_but_process():
    """Issue 20: Strategy scored iteration too (time allocation, stopping, final below best),
    so a right-first-time reference lost to an iterating elite. Now those are Process rules
    (seed 001's time_distribution ±2, stopped_while_failing -5, final_below_best -drop/4)."""
    back = run([50, 60, 70], per={2: dict(dur=900)})
    for rule in ("time_allocation", "front_loading", "stopped_while_failing", "final_below_best"):
        assert rule not in strategy(back) and rule not in strategy(run([90, 60])) and rule not in strategy(run([50]))
    assert process(back)["time_distribution"] == -2
    assert process(run([50, 60], per={0: dict(dur=900)}))["time_distribution"] == 2


def test_one_shot_and_iterating_to_the_same_final_get_the_same_strategy():
    """Strategy reads only the final submission: same final result, same Strategy."""
    once = run([100], hidden=passing(10, 10))
    iterated = run([40, 70, 100], hidden=passing(10, 10))
    assert once.components["strategy"] == iterated.components["strategy"]
    assert once.components["process"] > iterated.components["process"] - 10  # Process tells them apart


def test_root_cause_reads_the_judge_side_suites_of_the_final_submission():
    assert strategy(run([100], hidden=passing(10, 10)))["root_cause"] == 20
    assert strategy(run([100], hidden=passing(10, 7)))["root_cause"] == 8
    assert "root_cause" not in strategy(run([100], hidden=passing(10, 5)))  # 0 points: not listed
    assert strategy(run([60], hidden=passing(10, 0)))["root_cause"] == -20
    assert "root_cause" not in strategy(run([100]))  # no judge-side suite: nothing to read


def test_stopped_while_failing():
    assert process(run([50]))["stopped_while_failing"] == -5
    assert "stopped_while_failing" not in process(run([100]))  # done: stopping is right
    assert "stopped_while_failing" not in process(run([50, 60, 70, 80]))  # budget (4) spent
    # too little time left for a meaningful iteration (submitted at 3300 of 3600 s)
    assert "stopped_while_failing" not in process(run([50], per={0: dict(dur=3300)}))


def test_final_below_best_fires_and_quiet():
    assert process(run([90, 60]))["final_below_best"] == -5
    assert process(run([90, 84]))["final_below_best"] == -1.5
    assert "final_below_best" not in process(run([60, 90]))


def test_no_submission_no_strategy():
    assert strategy(judge_attempt(Attempt("standard").finish())) == {}


def test_marathon_rules_quiet_outside_marathon():
    got = strategy(run([50, 60, 70]))
    for rule in (
        "phase_time_allocation",
        "degradation",
        "sustained_quality",
        "cross_phase_regressions",
        "pivot_pre_quality",
        "pivot_adaptation",
    ):
        assert rule not in got


def test_phase_time_allocation_fires_for_marathon():
    got = strategy(marathon(90, 88, 85))
    assert "phase_time_allocation" in got
    # phases 1-2 eating 95% of the time scores worse than a balanced split
    late = strategy(marathon(90, 88, 85, reveal3=5700, last_at=5900))
    assert late["phase_time_allocation"] < got["phase_time_allocation"]


def test_degradation_fires_and_sustained_quality():
    assert strategy(marathon(90, 60, 30))["degradation"] == -20  # fell 60 points: capped
    assert strategy(marathon(90, 75, 75))["degradation"] == -7.5
    # issue 38: a phase abandoned (ended before its time mark) is quality 0, not left out
    assert strategy(marathon(90, 75, None))["degradation"] == -20
    got = strategy(marathon(90, 85, 88))
    assert got["sustained_quality"] == 10 and "degradation" not in got


def test_degradation_quiet_when_improving():
    got = strategy(marathon(60, 75, 95))
    assert "degradation" not in got and "sustained_quality" not in got


def test_cross_phase_regressions():
    got = strategy(marathon(90, 85, 88, keep_p1=80))
    assert got["cross_phase_regressions"] == -10  # 10 phase-1 tests broken later, capped
    assert "cross_phase_regressions" not in strategy(marathon(90, 85, 88, keep_p1=90))


def test_pivot_pre_quality_and_adaptation():
    smooth = strategy(marathon(80, 80, 75))
    crumble = strategy(marathon(95, 95, 30))
    assert smooth["pivot_pre_quality"] == 6 and smooth["pivot_adaptation"] == 10
    assert crumble["pivot_pre_quality"] == 9 and crumble["pivot_adaptation"] == -20
    # seed 000: excellent-then-crumbling scores lower than good-and-adapting
    assert marathon(95, 95, 30).components["strategy"] < marathon(80, 80, 75).components["strategy"]


def test_pivot_rules_quiet_without_pivot_phase():
    got = strategy(marathon(80, 80, None))
    assert "pivot_pre_quality" in got  # pre quality is known; phase 3 (pivot) not revealed
    # issue 38: the attempt ended before the pivot's time mark: nothing was adapted
    assert got["pivot_adaptation"] == -20
    a = Attempt(
        "marathon", time_limit_s=6000, budget=8, phases=[{"id": "extension", "reveal_at": 0.35, "pivot": "none"}]
    )  # the runner writes "none"
    iteration(a, 80, dur=1800)
    got = strategy(judge_attempt(a.finish()))
    assert "pivot_pre_quality" not in got and "pivot_adaptation" not in got


# --- integrity -----------------------------------------------------------------------------------
def test_suspicious_jump_after_plateau():
    card = run([20, 20, 85, 85])
    assert flags(card)["suspicious_jump"] == -10
    assert card.components["integrity"] == 90.0
    assert "20 → 85" in card.flags[0].detail


def test_suspicious_jump_by_rewrite():
    card = run([20, 70], per={1: dict(similarity=0.1, files=["src/app.py", "src/b.py", "src/c.py"])})
    assert "suspicious_jump" in flags(card)


def test_suspicious_jump_quiet_for_steady_climb():
    assert "suspicious_jump" not in flags(run([20, 45, 85, 90]))
    assert "suspicious_jump" not in flags(run([45, 72, 88, 91]))


def test_judge_tampering_from_events_and_results():
    a = Attempt("standard")
    iteration(a, 50)
    a.finding("tests_modified", "tests/test_app.py changed in the workspace", severity="error")
    a.finding("tests_modified", "tests/test_app.py changed in the workspace", severity="error")  # dup
    a.finding("conftest_present", "conftest.py in the submission", severity="warning")
    card = judge_attempt(a.finish())
    assert flags(card)["judge_tampering"] == -55
    assert card.components["integrity"] == 45.0


def test_judge_tampering_from_result_integrity():
    from eventkit import make_result

    a = Attempt("standard")
    res = make_result(
        1,
        static=passing(10, 10),
        integrity=[{"severity": "error", "check": "junit_forged", "detail": "report written by the submission"}],
    )
    a.wait(300).submit(res)
    card = judge_attempt(a.finish())
    assert flags(card)["judge_tampering"] == -40
    assert "junit_forged" in card.flags[0].detail


def test_judge_tampering_quiet_when_clean():
    assert "judge_tampering" not in flags(run([50, 60]))


def test_identical_submission_scored_once_in_process():
    card = run([50, 50], per={1: dict(identical=True)})
    assert "identical_submission" not in flags(card)  # Process's -5, not also Integrity's
    assert card.components["integrity"] == 100.0
    assert {a.rule: a.points for a in card.process_adjustments}["identical_submission"] == -5


def test_hard_coded_test_chasing_flag():
    card = run([100], adversarial=[True] + [False] * 9)
    assert flags(card)["hard_coded_test_chasing"] == -20
    assert "hard_coded_test_chasing" not in flags(run([100], adversarial=[True] * 9 + [False]))


def test_hard_coded_from_judge_finding():
    a = Attempt("standard")
    iteration(a, 50)
    a.finding("hardcoded_outputs", "returns literal expected values", severity="info")
    assert flags(judge_attempt(a.finish()))["hard_coded_test_chasing"] == -20


@pytest.mark.parametrize("scores", [[50], [50, 60, 70], [20, 20, 85]])
def test_components_in_range(scores):
    card = run(scores)
    assert all(0 <= v <= 100 for v in card.components.values())


def test_ending_before_a_phase_opens_is_not_a_way_to_dodge_it():
    """Unrevealed phases are not averaged into Objective (issue 20), so a Marathon agent that
    ends before a phase's time mark is charged by Strategy's abandoned_phases instead."""
    quit_early = marathon(90, 80, None)  # ends at ~3300 s: phase 3 opens at 3900 s
    assert strategy(quit_early)["abandoned_phases"] == -30
    stayed = marathon(90, 80, 70)
    assert "abandoned_phases" not in strategy(stayed)
    assert stayed.components["strategy"] > quit_early.components["strategy"]
    # the end is when the attempt ended, not when its record closed after a slow teardown
    slow_close = marathon(90, 80, None, closed_after=1200)  # closes past phase 3's mark
    assert strategy(slow_close)["abandoned_phases"] == -30
