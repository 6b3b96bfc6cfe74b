"""Seed 002 promotion and relegation, with thresholds at their edges; Elo; normalisation."""

from __future__ import annotations

import pytest

from arena.scoring.ratings import RatedAttempt, compute_ratings, expected
from arena.scoring.weight_classes import (
    AgentClassState,
    ClassAttempt,
    apply_attempt,
    normalize_class,
    percentile_rank,
    promotion_check,
    relegation_triggers,
)


def state(cls: str, scores: list[float], *, distinct: bool = True, improved: bool = False) -> AgentClassState:
    st = AgentClassState(weight_class=cls)
    st.history[cls] = [ClassAttempt(f"c{i if distinct else 0}", s, improved) for i, s in enumerate(scores)]
    return st


# --- promotion ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "scores,ok",
    [
        ([80, 80, 80], True),  # mean exactly 80, 3 challenges
        ([80, 80, 79.9], False),  # mean just under 80
        ([100, 100, 60], True),  # 60 is not "below 60"
        ([100, 100, 59.9], False),  # one score below 60 in the last 5
        ([59, 100, 100, 100, 100, 100], True),  # the 59 fell out of the last 5
        ([90, 90], False),  # only 2 challenges completed
    ],
)
def test_lightweight_to_middleweight(scores, ok):
    assert promotion_check(state("lightweight", scores), elo=1000)[0] is ok


def test_lightweight_counts_distinct_challenges():
    assert not promotion_check(state("lightweight", [90, 90, 90], distinct=False), 1000)[0]


@pytest.mark.parametrize(
    "scores,elo,ok",
    [
        ([55, 55, 55, 55, 70], 1200, True),  # every threshold exactly met (mean 58)
        ([50, 50, 50, 50, 70], 1200, False),  # mean 54 < 55
        ([55, 55, 55, 55, 70], 1199.9, False),  # Elo under 1200
        ([60, 60, 60, 60, 69.9], 1300, False),  # no score ≥ 70
        ([70, 60, 60, 60], 1300, False),  # only 4 challenges
    ],
)
def test_middleweight_to_contender(scores, elo, ok):
    assert promotion_check(state("middleweight", scores), elo)[0] is ok


def test_contender_to_heavyweight_needs_recoveries():
    st = state("contender", [45] * 7, improved=True)
    assert promotion_check(st, 1600)[0]
    assert not promotion_check(st, 1599.9)[0]
    st.history["contender"][0].improved = True
    for a in st.history["contender"][1:]:
        a.improved = False
    ok, why = promotion_check(st, 1700)
    assert not ok and "1 of 2 recoveries" in why[0]
    assert not promotion_check(state("contender", [45] * 6 + [44.9], improved=True), 1700)[0]


@pytest.mark.parametrize(
    "scores,elo,ok",
    [
        ([40, 40, 40, 40, 55], 2000, True),
        ([40, 40, 40, 40, 54.9], 2000, False),
        ([40, 40, 40, 40, 55], 1999, False),
    ],
)
def test_heavyweight_to_frontier(scores, elo, ok):
    assert promotion_check(state("heavyweight", scores), elo)[0] is ok


def test_frontier_has_no_promotion():
    assert not promotion_check(state("frontier", [100] * 10), 3000)[0]


# --- relegation -------------------------------------------------------------------------------
def test_elo_trigger_more_than_200_below_threshold():
    st = state("contender", [40])
    assert relegation_triggers(st, 999.9, [40])  # threshold into contender is 1200
    assert not relegation_triggers(st, 1000.0, [40])  # exactly 200 below is not "more than"


def test_no_elo_trigger_for_classes_entered_without_elo_gate():
    assert not relegation_triggers(state("middleweight", [50]), 100, [50])


def test_mean_below_15_percent_of_class_median():
    pool = [0.0] * 10 + [60.0] * 11  # median 60 → 9; the zeros keep 9s out of the bottom decile

    def mean_trigger(scores):
        return [w for w in relegation_triggers(state("middleweight", scores), 1100, pool) if "median" in w]

    assert mean_trigger([8.9] * 5)
    assert not mean_trigger([9.0] * 5)
    assert not mean_trigger([1.0] * 4)  # fewer than 5 attempts


def test_three_consecutive_bottom_decile():
    pool = [float(x) for x in range(10, 100)]
    assert relegation_triggers(state("middleweight", [50, 1, 2, 3]), 1100, pool + [1, 2, 3])
    assert not relegation_triggers(state("middleweight", [1, 2, 50]), 1100, pool + [1, 2])


def test_lightweight_never_under_review():
    assert not relegation_triggers(state("lightweight", [0] * 10), 0, [50] * 10)


def _review(matches: list[float]) -> AgentClassState:
    st = state("contender", [30])
    st.under_review = True
    for i, m in enumerate(matches):
        apply_attempt(st, "contender", ClassAttempt(f"m{i}", m, False), 1300, [50.0] * 10, label=f"a{i}")
    return st


def test_relegation_matches_at_threshold_clear_the_flag():
    st = _review([55, 55, 55])  # the promotion into contender asked mean ≥ 55
    assert st.weight_class == "contender" and not st.under_review
    assert "review cleared" in st.log[-1]


def test_relegation_matches_below_threshold_demote():
    st = _review([55, 55, 54.9])
    assert st.weight_class == "middleweight" and not st.under_review
    assert "relegated to middleweight" in st.log[-1]


def test_under_review_until_three_matches():
    st = _review([10, 10])
    assert st.under_review and st.matches == [10, 10]


def test_attempts_in_other_classes_are_not_relegation_matches():
    st = state("contender", [30])
    st.under_review = True
    apply_attempt(st, "lightweight", ClassAttempt("x", 5, False), 1300, [50.0])
    assert st.matches == [] and st.under_review


# --- Elo and the leaderboard --------------------------------------------------------------------
def _att(i, agent, challenge, cls, total, traj=()):
    return RatedAttempt(f"a-{i:08x}", agent, challenge, cls, total, tuple(traj), order=f"2026-01-01T00:{i:02d}")


def test_expected_score_model():
    assert expected(1000, 1000) == 0.5
    assert expected(1400, 1000) == pytest.approx(1 / 1.1)


def test_elo_orders_agents_by_results_and_is_order_independent():
    atts = []
    for i in range(6):
        atts.append(_att(2 * i, "strong", f"c{i % 3}", "middleweight", 85))
        atts.append(_att(2 * i + 1, "weak", f"c{i % 3}", "middleweight", 30))
    board = compute_ratings(atts)
    rows = board.agent_rows()
    assert [r["agent"] for r in rows] == ["strong", "weak"]
    # Elo within the middleweight bracket (they entered it at its challenges' 1150); their own
    # class is still lightweight, whose bracket they have not played
    mw = [r["elo_by_class"]["middleweight"] for r in rows]
    assert mw[0]["elo"] > 1150 > mw[1]["elo"] and mw[0]["games"] == 6
    assert rows[0]["elo"] == rows[1]["elo"] == 1000.0
    assert compute_ratings(list(reversed(atts))).as_dict() == board.as_dict()


def test_promotion_through_compute_ratings():
    atts = [_att(i, "ace", f"lw{i}", "lightweight", 85) for i in range(3)]
    row = compute_ratings(atts).agent_rows()[0]
    assert row["weight_class"] == "middleweight"
    assert any("promoted to middleweight" in h for h in row["history"])
    row = compute_ratings(atts[:2]).agent_rows()[0]
    assert row["weight_class"] == "lightweight"


def test_multiplier_scales_elo_impact():
    lw = compute_ratings([_att(0, "x", "c", "lightweight", 100)]).agents["x"].bracket_elo("lightweight") - 1000
    hw = compute_ratings([_att(0, "x", "c", "heavyweight", 100)]).agents["x"].bracket_elo("heavyweight") - 1950
    assert lw > 0 and hw > 0
    # same actual score, heavier class: larger gain per unit of surprise (2.0× K); each bracket
    # is entered even with its challenges
    e_lw, e_hw = expected(1000, 1000), expected(1950, 1950)
    assert lw == pytest.approx(32 * 1.0 * (1 - e_lw))
    assert hw == pytest.approx(32 * 2.0 * (1 - e_hw))


def test_percentile_normalisation_within_class():
    assert percentile_rank(70, [50, 60, 70, 80, 90]) == 50.0
    assert percentile_rank(45, [20, 30, 40, 50, 60]) == 60.0
    atts = [_att(i, f"p{i}", "c", "contender", s) for i, s in enumerate([20, 30, 40, 50, 60])]
    atts += [_att(10 + i, f"q{i}", "d", "lightweight", s) for i, s in enumerate([50, 60, 70, 80, 90])]
    rows = {r["agent"]: r for r in compute_ratings(atts).agent_rows()}
    # the seed's example: raw 45-ish on contender outranks raw 70 on lightweight once normalised
    assert rows["p3"]["mean_percentile"] == 70.0 and rows["q2"]["mean_percentile"] == 50.0
    assert rows["p3"]["weighted_percentile"] == pytest.approx(70.0 * 1.6)


@pytest.mark.parametrize(
    "value,name",
    [
        (3, "contender"),
        ("3", "contender"),
        ("Heavyweight", "heavyweight"),
        ("frontier", "frontier"),
        (None, "lightweight"),
    ],
)
def test_class_by_name_or_number(value, name):
    assert normalize_class(value) == name
