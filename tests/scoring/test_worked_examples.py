"""Seed 001's three worked examples as test vectors (CONTRACT §7).

Each example's telemetry is built as events, judged, and the Process Judge total compared
with the example's. Where the seed's own formulas give another number than the example's
prose, the test asserts the formula's number and states both and why.

The judge's result for each submission has 100 static tests so that the objective equals
the example's score exactly (62 → 62 of 100 passing).
"""
from __future__ import annotations

from eventkit import Attempt, passing

from arena.scoring import judge_attempt

MOD = "registration"


def _points(card) -> dict[str, float]:
    return {a.rule: a.points for a in card.process_adjustments}


def example1_events():
    a = Attempt("standard", time_limit_s=2400)
    # Iteration 0 (18 min): read brief 2, plan 2, implement 12, local tests 2.
    a.read("briefing.md", after=60).read("src/registration.py", after=60).wait(120)
    a.edit("src/registration.py", after=240).edit("src/registration.py", after=240)
    a.edit("src/responses.py", after=200)
    a.run_tests(16, 8, after=30)
    a.submit(static=passing(100, 62), module=MOD, files=["src/registration.py", "src/responses.py"],
             at=18 * 60)
    # Iteration 1 (12 min): read feedback, diagnose, 2 targeted edits, tests 22/24.
    start = a.t
    a.read_feedback(after=30).read("src/registration.py", after=60).read("src/responses.py", after=60)
    a.edit("src/registration.py", after=180).edit("src/responses.py", after=180)
    a.run_tests(22, 2, after=60)
    a.submit(static=passing(100, 84), module=MOD, files=["src/registration.py", "src/responses.py"],
             at=start + 12 * 60)
    # Iteration 2 (8 min): unique constraint + off-by-one, tests 24/24.
    start = a.t
    a.read_feedback(after=20).read("src/models.py", after=40).read("src/registration.py", after=40)
    a.edit("src/models.py", after=120).edit("src/registration.py", after=120)
    a.run_tests(24, 0, after=60)
    a.submit(static=passing(100, 93), module=MOD, files=["src/models.py", "src/registration.py"],
             at=start + 8 * 60)
    return a.finish()


def test_example_1_good_standard_pattern():
    """Example +20, ours +23 (component clamped to +20: 70 of the 20-70 range).

    The example: monotonic +6, convergence +5, no regressions +4, targeted +3, front-loaded +2.
    Ours: monotonic is +2 per non-regressing *step* (2 steps → +4, not +6); rapid
    convergence 93/3 = 31 > 1.2 × 25 fires (+5), the baseline being 100 / budget (4) = 25,
    the example's own "Standard baseline of 25" (the seed's "final / 3" baseline cancels the
    final score out of its formula); the front-loaded time (+2) is scored once, by Strategy's
    time_allocation, not here. The best practices the narrative shows — diagnostic first
    (3 read → edit → test chains: +4) and progressive refinement (62 → 84 → 93, diminishing
    steps: +3) — are added. 4 + 5 + 4 + 3 + 4 + 3 = 23.
    """
    card = judge_attempt(example1_events())
    assert card.trajectory == [62.0, 84.0, 93.0]
    pts = _points(card)
    assert pts == {"monotonic_improvement": 4, "rapid_convergence": 5, "no_regressions": 4,
                   "targeted_fixes": 3, "diagnostic_first": 4, "progressive_refinement": 3}
    example_total, ours = 20, 23
    assert card.process_raw == ours and ours - example_total == (4 - 6) - 2 + 4 + 3
    assert card.components["process"] == 100.0  # +20 (the top of -30..+20) → 80 + 20


def example2_events():
    a = Attempt("standard", time_limit_s=4000)
    # Iteration 0 (10 min): skim 30s, implement, no local tests.
    a.read("briefing.md", after=1).edit("src/registration.py", after=30).edit("src/registration.py", after=200)
    a.submit(static=passing(100, 38), module=MOD, files=["src/registration.py"], at=10 * 60)
    # Iteration 1 (15 min): glance at feedback, rewrite: 8 files changed, only 3 relevant.
    start = a.t
    eight = ["src/registration.py", "src/registration_email.py", "src/registration_errors.py",
             "src/logger.py", "src/config.py", "src/utils.py", "src/db.py", "src/cache.py"]
    a.wait(20)
    for f in eight:
        a.edit(f, added=40, removed=30, after=30)
    a.submit(static=passing(100, 51), module=MOD, files=eight, at=start + 15 * 60)
    # Iteration 2 (18 min): break 3 previously passing tests, no local tests.
    start = a.t
    a.read_feedback(after=10).edit("src/registration.py", after=60)
    a.submit(static=passing(100, set(range(3, 51))), module=MOD, files=["src/registration.py"],
             at=start + 18 * 60)
    # Iteration 3 (20 min): panic, massive rewrite, tests run once (19/24).
    start = a.t
    four = ["src/registration.py", "src/registration_email.py", "src/registration_errors.py",
            "src/registration_forms.py"]
    a.wait(10)
    for f in four:
        a.edit(f, added=120, removed=100, after=60)
    a.run_tests(19, 5, after=60)
    a.submit(static=passing(100, 71), module=MOD, files=four, similarity=0.3, at=start + 20 * 60)
    return a.finish()


def test_example_2_bad_standard_pattern():
    """Example -29, ours -20.

    Same as the example: regression at iteration 2 -5, shotgun debugging (8 files, 5 unrelated
    to the failing tests) -4, no local tests in iterations 0-2 -6, regression blindness (3
    visible tests broken: the cap, 3 tests) -9.
    Differences, all from seed 001's own formulas:
    - monotonic bonus: +2 for each non-regressing step (38→51, 48→71): +4 the example leaves out;
    - wasted iterations: |48 - 51| = 3 is not < 2, so iteration 2 is not "wasted" (example -3).
    - back-loaded time (-2) is scored once, by Strategy's time_allocation, not here.
    -29 + 4 + 3 + 2 = -20. (The "no regressions" credit, +4 in example 1, does not apply: tests broke.)
    (The example's iteration 2 "fixes 4 new tests but breaks 3" yet scores lower; with scores
    from pass rates that is impossible, so the vector breaks 3 and fixes none.)
    """
    card = judge_attempt(example2_events())
    assert card.trajectory == [38.0, 51.0, 48.0, 71.0]
    pts = _points(card)
    assert pts == {"monotonic_improvement": 4, "trajectory_regression": -5, "shotgun_debugging": -4,
                   "regression_blindness": -9, "no_local_validation": -6}
    example_total, ours = -29, -20
    assert card.process_raw == ours
    assert ours - example_total == 4 + 3 + 2
    assert card.components["process"] == 60.0  # 80 - 20
    assert "time_allocation" in {a.rule for a in card.strategy_adjustments}


def example3_events():
    a = Attempt("sprint", time_limit_s=15 * 60, budget=2, weight_class="lightweight")
    a.read("briefing.md", after=60).read("src/registration.py", after=120).wait(60)
    a.edit("src/registration.py", after=120).edit("src/registration.py", after=120)
    a.run_tests(22, 2, after=30)
    a.edit("src/registration.py", after=60)
    a.run_tests(24, 0, after=30)
    a.submit(static=passing(100, 91), module=MOD, files=["src/registration.py"], at=12 * 60)
    return a.finish()


def test_example_3_sprint_one_shot():
    """Example +13, ours +17.

    The example: single iteration high score +8, no iterations wasted +3, local test runs +2.
    We keep the example's +8 as the ``one_shot`` rule (the iteration hierarchy's "get it
    right the first time"); "no iterations wasted" has no formula (the wasted-iteration rule
    only penalises), so it is not awarded. Rapid convergence, with the baseline 100 / budget
    (2) = 50, fires: 91/1 > 1.2 × 50 (+5; the example does not list it, the seed's own
    final/1 baseline could never fire). Test-driven iteration (2 local runs) +2 and
    diagnostic first (read → edit → test) +2 are seed 001 best practices. 8 + 5 + 2 + 2 = 17.
    """
    card = judge_attempt(example3_events())
    assert card.trajectory == [91.0]
    assert _points(card) == {"one_shot": 8, "rapid_convergence": 5, "test_driven_iteration": 2,
                             "diagnostic_first": 2}
    example_total, ours = 13, 17
    assert card.process_raw == ours
    assert ours - example_total == 5 - 3 + 2


def test_judging_twice_is_byte_identical():
    events = example2_events()
    assert judge_attempt(events).to_json() == judge_attempt(list(events)).to_json()
    # dict form (as a store might return) judges the same
    as_dicts = [e.model_dump() for e in events]
    assert judge_attempt(as_dicts).to_json() == judge_attempt(events).to_json()
