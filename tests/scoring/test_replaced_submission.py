"""Seed 001's Sprint double submit: the second submission within the window replaces the
first, which is never scored and never a comparison base (issue 20 item 2): the survivor
is not charged "identical to previous" against it, and the trajectory holds only the
survivor. Built with the event kit the other rule tests use; judged by the real judges."""

from __future__ import annotations

from eventkit import Attempt, passing

from arena.scoring import judge_attempt


def _sprint(replaces: int | None, identical: bool) -> object:
    a = Attempt("sprint", time_limit_s=900, budget=2)
    a.read("src/app.py", after=20).edit("src/app.py", after=20).run_tests(8, 2, after=5)
    a.submit(static=passing(10, 8), at=120)
    a.edit("src/app.py", after=5)
    a.submit(static=passing(10, 8), at=140, identical=identical, replaces=replaces)
    return judge_attempt(a.finish())


def test_a_replaced_submission_is_never_the_comparison_base():
    card = _sprint(replaces=1, identical=True)
    rules = {x.rule for x in card.process_adjustments}
    assert "identical_submission" not in rules, card.process_adjustments
    assert "wasted_iterations" not in rules, card.process_adjustments
    assert card.scored_submission == 2
    assert len(card.trajectory) == 1, card.trajectory


def test_the_same_pair_unreplaced_is_charged():
    """The control: the same two identical submissions, the second not a replacement, is
    charged -5 for repeating the first (so the test above is not passing by accident)."""
    card = _sprint(replaces=None, identical=True)
    pts = {x.rule: x.points for x in card.process_adjustments}
    assert pts.get("identical_submission") == -5.0, card.process_adjustments
    assert len(card.trajectory) == 2, card.trajectory
