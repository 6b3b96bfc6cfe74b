"""Seed 001's trajectory table, seed and code side by side (CONTRACT §7: where a seed's
example and its own formulas differ, the formulas are implemented and a test shows both).

Each trajectory is a Standard attempt (budget 4, 100 static tests), every iteration with the
same healthy habits (reads, a local run, feedback read), so that only the trajectory rules
differ: monotonic (+2 per non-regressing step, -5 per regression), wasted (-3 per step
under 2 points), rapid convergence (never for 4 of 4), progressive refinement, and the
Integrity judge's suspicious jump.
"""

from __future__ import annotations

import pytest
from scenarios import run

TRAJECTORY_RULES = (
    "monotonic_improvement",
    "trajectory_regression",
    "wasted_iterations",
    "rapid_convergence",
    "progressive_refinement",
)

# trajectory, the seed's reading, what the formulas give (trajectory points, integrity flags), why
TABLE = [
    (
        [45, 72, 88, 91],
        "+bonus",
        10,
        [],
        "+2 × 3 steps, progressive refinement +4 (1 per submission: rising, diminishing)",
    ),
    ([45, 80, 78, 92], "-small", -1, [], "+2, -5, +2"),
    ([45, 44, 46, 48], "-major", -4, [], "-5, +2, +2 and one wasted step (44 → 45 moved 1): -3"),
    (
        [88, 90, 91, 91],
        "+bonus",
        0,
        [],
        "the seed says +bonus; its formulas give +6 - 6: two steps under 2 points are wasted (-3 each)",
    ),
    (
        [20, 20, 85, 85],
        "-flag",
        0,
        ["suspicious_jump"],
        "+6 - 6 (two flat steps wasted) and the flag: +65 right after a stagnant step",
    ),
]


@pytest.mark.parametrize("traj,seed,ours,flagged,why", TABLE, ids=[str(t[0]) for t in TABLE])
def test_seed_001_trajectory_table(traj, seed, ours, flagged, why):
    card = run(traj)
    assert card.trajectory == [float(x) for x in traj]
    pts = sum(a.points for a in card.process_adjustments if a.rule in TRAJECTORY_RULES)
    assert pts == ours, why
    assert [f.rule for f in card.flags if f.rule == "suspicious_jump"] == flagged
    # where the seed gives a sign, ours has it, except where the formulas say otherwise (stated)
    sign = {"+": 1, "-": -1}[seed[0]]
    if seed.endswith("flag"):
        assert flagged
    elif ours != 0:
        assert (ours > 0) == (sign > 0), why
    else:
        assert "says +bonus" in why  # the one disagreement, stated
