"""Accepting or refusing a submission: budget, cooldown, cutoff, grace, double submit,
identical submissions. Each rule at its edge."""

import pytest

from arena import rules
from arena.clock import AttemptClock, ManualTime
from arena.formats import FORMATS
from arena.rules import Prior, decide_message, decide_submission, identical_to

SPRINT, STANDARD, MARATHON = FORMATS["sprint"], FORMATS["standard"], FORMATS["marathon"]


def decide(fmt, at, history=(), budget=None, limit=None):
    r = FORMATS[fmt]
    limit = limit or r.time_range_s[0]
    clock = AttemptClock(ManualTime(), r, limit)
    return decide_submission(r, budget=budget or r.budget_range[1], at=at, stage=clock.stage(at), history=history)


# -- cutoff and grace ---------------------------------------------------------------
@pytest.mark.parametrize("fmt", ["sprint", "standard", "marathon"])
def test_submission_just_before_cutoff_is_accepted(fmt):
    limit = FORMATS[fmt].time_range_s[0]
    assert decide(fmt, limit - 1e-6).ok


def test_submission_at_exactly_the_cutoff_in_a_sprint_is_time_up():
    d = decide("sprint", 600.0)
    assert (d.ok, d.code) == (False, "time_up")


@pytest.mark.parametrize("fmt", ["standard", "marathon"])
def test_submission_at_exactly_the_cutoff_with_grace_allows_only_a_message(fmt):
    limit = FORMATS[fmt].time_range_s[0]
    d = decide(fmt, limit)
    assert (d.ok, d.code) == (False, "grace_message_only")
    assert "final message" in d.reason
    assert decide_message(FORMATS[fmt], stage="grace").ok


@pytest.mark.parametrize("fmt", ["standard", "marathon"])
def test_grace_end_instant_ends_messages_too(fmt):
    r = FORMATS[fmt]
    limit = r.time_range_s[0]
    clock = AttemptClock(ManualTime(), r, limit)
    assert decide_message(r, stage=clock.stage(limit + r.grace_s - 1e-6)).ok
    end = decide_message(r, stage=clock.stage(limit + r.grace_s))
    assert (end.ok, end.code) == (False, "time_up")
    assert decide(fmt, limit + r.grace_s).code == "time_up"


def test_sprint_has_no_grace_for_messages_either():
    clock = AttemptClock(ManualTime(), SPRINT, 900)
    assert decide_message(SPRINT, stage=clock.stage(899.9)).ok
    assert not decide_message(SPRINT, stage=clock.stage(900)).ok


# -- budget -------------------------------------------------------------------------
def test_budget_spent_refuses_with_the_counts():
    hist = [Prior(1, 100), Prior(2, 300), Prior(3, 500), Prior(4, 700)]
    d = decide("standard", 900, hist, budget=4)
    assert (d.ok, d.code) == (False, "budget_spent")
    assert "4 of 4" in d.reason
    assert decide("standard", 900, hist[:3], budget=4).ok


def test_history_accepts_plain_tuples():
    assert decide("standard", 900, [(1, 100, True), (2, 300, True), (3, 500, True)], budget=3).code == "budget_spent"


# -- Standard cooldown --------------------------------------------------------------
def test_cooldown_refuses_until_the_60th_second_and_accepts_at_it():
    hist = [Prior(1, 200.0)]
    d = decide("standard", 259.999, hist)
    assert (d.ok, d.code) == (False, "cooldown")
    assert d.retry_after_s == pytest.approx(0.001)
    assert decide("standard", 260.0, hist).ok


def test_no_cooldown_outside_standard():
    assert decide("marathon", 201.0, [Prior(1, 200.0)]).ok
    assert decide("sprint", 500.0, [Prior(1, 200.0)]).ok


# -- Sprint double submit -----------------------------------------------------------
def test_second_sprint_submission_within_30s_replaces_the_first():
    d = decide("sprint", 130.0, [Prior(1, 100.0)])
    assert d.ok and d.replaces == 1


def test_the_30th_second_still_replaces_and_just_after_does_not():
    assert decide("sprint", 130.0, [Prior(1, 100.0)]).replaces == 1
    later = decide("sprint", 130.001, [Prior(1, 100.0)])
    assert later.ok and later.replaces is None


def test_a_replacement_does_not_use_budget():
    """Budget 1: the quick second one replaces the first, so it is accepted."""
    d = decide("sprint", 110.0, [Prior(1, 100.0)], budget=1)
    assert d.ok and d.replaces == 1
    assert decide("sprint", 140.0, [Prior(1, 100.0)], budget=1).code == "budget_spent"


def test_a_replacement_cannot_itself_be_replaced():
    """Submissions at 100, 110, 120: #2 replaced #1; #3 is a new, counted submission."""
    hist = [Prior(1, 100.0, counted=False), Prior(2, 110.0)]
    d = decide("sprint", 120.0, hist, budget=2)
    assert d.ok and d.replaces is None
    assert decide("sprint", 120.0, hist, budget=1).code == "budget_spent"


def test_double_submit_rule_is_off_outside_sprint():
    assert decide("marathon", 110.0, [Prior(1, 100.0)]).replaces is None


def test_replacement_after_cutoff_is_still_time_up():
    assert decide("sprint", 600.0, [Prior(1, 590.0)]).code == "time_up"


# -- identical submissions ----------------------------------------------------------
def test_identical_submission_is_detected_by_content_hash():
    prev = [(1, "aaa"), (2, "bbb")]
    assert identical_to("bbb", prev) == 2
    assert identical_to("aaa", prev) is None  # only the previous iteration counts
    assert identical_to("ccc", prev) is None
    assert identical_to("aaa", []) is None
    assert rules.IDENTICAL_NOTICE == "Submission identical to previous iteration."


def test_identical_submission_is_still_accepted():
    """Accepted (and scored the same): identity is a notice, not a refusal."""
    assert decide("marathon", 500.0, [Prior(1, 400.0)]).ok
