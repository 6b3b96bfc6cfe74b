"""Components scale with demonstrated work (issue 20, item 1): Process, Strategy and
Integrity count ``min(1, share / 0.5)``, ``share`` being the part of the starter's gap to 100
that the final objective closed; the starter's objective comes from the attempt's own
``starter.judged`` event (arena/attempt/starter.py)."""

from __future__ import annotations

import pytest
from eventkit import Attempt, make_result, passing
from scenarios import iteration

from arena.scoring import judge_attempt


def _attempt(starter_passing: int | None, final_passing: int, fmt: str = "standard"):
    a = Attempt(fmt, time_limit_s=3600, budget=4)
    if starter_passing is not None:
        a.emit("starter.judged", result=make_result(0, static=passing(100, starter_passing)), cached=False, key="k")
    iteration(a, final_passing, dur=900)
    return judge_attempt(a.finish())


def test_no_gain_over_the_starter_earns_only_the_objective_share():
    """The comment-only agent: it built and changed files, its objective is the starter's."""
    card = _attempt(40, 40)
    assert card.work == {"starter": 40.0, "objective": 40.0, "share": 0.0, "credit": 0.0}
    assert card.components["process"] == card.components["strategy"] == card.components["integrity"] == 0.0
    assert card.total == pytest.approx(0.5 * 40.0)
    assert "work_credit" in {f.rule for f in card.flags}


def test_credit_rises_with_the_gap_closed_and_is_whole_from_half_of_it():
    quarter, half, full = _attempt(40, 55), _attempt(40, 70), _attempt(40, 100)
    assert quarter.work["share"] == 0.25 and quarter.work["credit"] == 0.5
    assert half.work["credit"] == full.work["credit"] == 1.0
    unscaled = _attempt(None, 55)  # the same iteration, with no starter record
    assert quarter.components["integrity"] == pytest.approx(0.5 * unscaled.components["integrity"], abs=0.05)
    assert quarter.total < half.total < full.total


def test_a_regression_below_the_starter_earns_no_credit():
    assert _attempt(60, 30).work["credit"] == 0.0


def test_without_a_starter_record_the_work_gate_alone_applies_and_says_so():
    card = _attempt(None, 40)
    assert card.work["starter"] is None and card.work["credit"] == 1.0
    assert "work_unmeasured" in {f.rule for f in card.flags}
    assert card.components["integrity"] == 100.0
