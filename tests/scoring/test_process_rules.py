"""Every Process Judge rule: a scenario that fires it and one that must not."""

from __future__ import annotations

import pytest
from scenarios import process, run

from arena.scoring.process import to_component

ADV_BAD = [True] + [False] * 9
ADV_OK = [True] * 8 + [False] * 2

CASES = {
    # rule: (fires, quiet, expected points when it fires)
    "monotonic_improvement": (dict(scores=[50, 60, 60]), dict(scores=[60, 50]), 4),
    "trajectory_regression": (dict(scores=[60, 50, 40]), dict(scores=[50, 60]), -10),
    "rapid_convergence": (dict(scores=[70, 95]), dict(scores=[70, 85, 92, 95]), 5),
    "wasted_iterations": (dict(scores=[50, 51]), dict(scores=[50, 60]), -3),
    "identical_submission": (dict(scores=[50, 50], per={1: dict(identical=True)}), dict(scores=[50, 55]), -5),
    "persistent_build_failure": (
        dict(scores=[50, 50, 80], per={0: dict(build_ok=False), 1: dict(build_ok=False)}),
        dict(scores=[50, 80], per={0: dict(build_ok=False)}),
        -10,
    ),
    "one_shot": (dict(scores=[90]), dict(scores=[89]), 8),
    "one_shot ": (dict(scores=[90]), dict(scores=[95, 96]), 8),  # two iterations: not a one-shot
    "shotgun_debugging": (
        dict(scores=[50, 51], per={1: dict(files=[f"src/m{i}.py" for i in range(8)])}),
        dict(scores=[50, 53]),
        -4,
    ),
    "scope_creep": (
        dict(scores=[50, 51], per={1: dict(files=["src/app.py", "src/logger.py", "src/metrics.py"])}),
        dict(scores=[50, 51], per={1: dict(files=["src/app.py"])}),
        -2,
    ),
    "regression_blindness": (dict(scores=[50, set(range(2, 60))]), dict(scores=[50, 60]), -6),
    "copy_paste_loop": (
        dict(scores=[50, 50], per={1: dict(similarity=0.95)}),
        dict(scores=[50, 50], per={1: dict(similarity=0.5)}),
        -5,
    ),
    "diagnostic_first": (dict(scores=[50, 70]), dict(scores=[50, 70], reads=()), 3),
    "targeted_fixes": (
        dict(scores=[50, 60]),
        dict(scores=[50, 60], per={1: dict(files=["src/app.py", "src/a.py", "src/b.py", "src/c.py"])}),
        3,
    ),
    "test_driven_iteration": (dict(scores=[50, 70], per={1: dict(test_runs=2)}), dict(scores=[50, 70]), 2),
    # runs before the first edit are not validation of a change
    "test_driven_iteration ": (
        dict(scores=[50, 70], per={1: dict(test_runs=2)}),
        dict(scores=[50, 70], per={1: dict(test_runs=2, files=())}),
        2,
    ),
    "progressive_refinement": (dict(scores=[60, 80, 90]), dict(scores=[60, 70, 90]), 3),
    "no_regressions": (dict(scores=[50, 60, 70]), dict(scores=[60, set(range(1, 60)), 70]), 4),
    "no_local_validation": (dict(scores=[50, 60], test_runs=0), dict(scores=[50, 60]), -4),
    "edits_without_reading": (
        dict(scores=[50, 60], reads=(), read_feedback=False, edit_delay=2),
        dict(scores=[50, 60]),
        -2,
    ),
}


@pytest.mark.parametrize("rule", sorted(CASES))
def test_rule_fires(rule):
    fires, _, points = CASES[rule]
    rule = rule.strip()
    got = process(run(**fires))
    assert rule in got, f"{rule} did not fire: {got}"
    assert got[rule] == points


@pytest.mark.parametrize("rule", sorted(CASES))
def test_rule_quiet(rule):
    _, quiet, _ = CASES[rule]
    rule = rule.strip()
    got = process(run(**quiet))
    assert rule not in got, f"{rule} fired: {got}"


def test_evidence_names_submissions():
    card = run([50, set(range(2, 60))])
    adj = {a.rule: a for a in card.process_adjustments}
    assert "submission 2" in adj["regression_blindness"].evidence
    assert "test_00" in adj["regression_blindness"].evidence


def test_signals_scored_once_in_one_judge():
    """Test chasing is Integrity's (-20), not also Process's; the time shape across iterations
    is Process's time_distribution (seed 001's ±2) alone, not also a Strategy rule."""
    chased = run([100], adversarial=ADV_BAD)
    assert "test_chasing" not in process(chased)
    assert [f.points for f in chased.flags if f.rule == "hard_coded_test_chasing"] == [-20.0]
    assert "root_cause" not in {a.rule for a in chased.strategy_adjustments}  # the same gap: once
    for dur, pts in (({0: dict(dur=900)}, 2.0), ({1: dict(dur=900)}, -2.0)):
        card = run([50, 60], per=dur)
        assert process(card)["time_distribution"] == pts
        rules = [a.rule for a in card.strategy_adjustments]
        assert "time_allocation" not in rules and "front_loading" not in rules


def test_regression_blindness_counts_only_disclosed_tests_and_is_capped():
    from eventkit import Attempt, passing

    from arena.scoring import judge_attempt

    a = Attempt("standard", time_limit_s=3600, budget=4)
    a.submit(static=passing(10, 10), hidden=passing(10, 10), at=300)
    a.submit(static=passing(10, 10), hidden=passing(10, 5), at=600)  # 5 hidden tests broken
    assert "regression_blindness" not in process(judge_attempt(a.finish()))  # never named to the agent
    # ten visible tests broken: -3 each, capped at 3 tests
    card = run([50, set(range(10, 60))])
    assert process(card)["regression_blindness"] == -9
    assert "capped at 3" in next(x.evidence for x in card.process_adjustments if x.rule == "regression_blindness")


def test_shotgun_severity_scales_and_caps():
    many = [f"src/m{i}.py" for i in range(20)]
    assert process(run([50, 51], per={1: dict(files=many)}))["shotgun_debugging"] == -8


def test_identical_is_not_also_a_copy_paste_loop():
    got = process(run([50, 50], per={1: dict(identical=True)}))
    assert "copy_paste_loop" not in got
    # scored once: -5 identical, not also -3 wasted (nor Integrity's -5: see the flags)
    assert got["identical_submission"] == -5 and "wasted_iterations" not in got


# seed 001: -30..+20 is "a 3-10 point swing" of the total: 50 component points × weight
# 0.15-0.2 = 7.5-10 total points (the old (raw + 30) × 2 was 15-20 points and paid 60 for 0;
# a null attempt gets 0 through the work gate, not through this mapping)
@pytest.mark.parametrize("raw,component", [(-30, 50.0), (-45, 50.0), (0, 80.0), (20, 100.0), (35, 100.0), (-5, 75.0)])
def test_process_mapping(raw, component):
    assert to_component(raw) == component


def test_raw_clamped_in_component():
    card = run([50, 40, 30, 20, 10, 0], test_runs=0)
    assert card.process_raw < -30
    assert card.components["process"] == 50.0  # 80 + clamp(raw, -30, 20)


def test_marathon_phase_boundary_drop_is_not_a_regression():
    from eventkit import Attempt, passing
    from scenarios import iteration

    from arena.scoring import judge_attempt

    phases = [{"id": "extension", "reveal_at": 0.35, "advance_threshold": 0.6}]
    a = Attempt("marathon", time_limit_s=6000, budget=8, phases=phases)
    iteration(a, 90, dur=1500)
    a.reveal(2, "extension", at=a.t + 10)
    # phase 2 opens: its tests join and the trajectory point drops (90 → 60), no code got worse
    iteration(a, 90, dur=900, phase=2, phase_tests={2: passing(100, 30)})
    iteration(a, 90, dur=600, phase=2, phase_tests={2: passing(100, 20)})  # a real drop in phase 2
    card = judge_attempt(a.finish())
    assert card.trajectory == [90.0, 60.0, 55.0]
    got = process(card)
    assert got["trajectory_regression"] == -5  # only 60 → 55, within phase 2
    assert "60 → 55" in next(x.evidence for x in card.process_adjustments if x.rule == "trajectory_regression")


def _marathon_per_phase(p1: int, p2: int, extra: bool = False):
    from eventkit import Attempt, passing
    from scenarios import iteration

    from arena.scoring import judge_attempt

    a = Attempt("marathon", time_limit_s=6000, budget=8, phases=[{"id": "extension", "reveal_at": 0.35}])
    iteration(a, p1, dur=1500)
    a.reveal(2, "extension", at=a.t + 10)
    iteration(a, 95, dur=900, phase=2, phase_tests={2: passing(100, p2)})
    if extra:
        iteration(a, 95, dur=300, phase=2, phase_tests={2: passing(100, p2)})
    return process(judge_attempt(a.finish()))


def test_one_shot_per_phase_in_marathon():
    assert _marathon_per_phase(95, 92)["one_shot"] == 8
    assert "one_shot" not in _marathon_per_phase(95, 85)  # phase 2 below 90
    assert "one_shot" not in _marathon_per_phase(95, 92, extra=True)  # two submissions in phase 2
