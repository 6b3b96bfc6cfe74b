"""The rule table against the numbers seeds 000 and 001 fix."""

import pytest

from arena.formats import (
    CATEGORIES,
    FIELD_ADVERSARIAL,
    FIELD_COVERAGE,
    FIELD_DIFF,
    FIELD_FAILURE_MESSAGES,
    FIELD_LINT,
    FIELD_PHASE,
    FIELD_REGRESSIONS,
    FIELD_SCORE_PREVIEW,
    FIELD_TESTS,
    FIELD_TRAJECTORY,
    FORMATS,
    WEIGHT_CLASSES,
    rules_for,
)


@pytest.mark.parametrize(
    "fmt, minutes, budget, grace, weights",
    [
        ("sprint", (10, 20), (1, 2), 0, (0.60, 0.15, 0.15, 0.10)),
        ("standard", (25, 40), (3, 4), 30, (0.50, 0.20, 0.20, 0.10)),
        ("marathon", (60, 120), (5, 8), 60, (0.40, 0.20, 0.30, 0.10)),
    ],
)
def test_ranges_grace_and_weights(fmt, minutes, budget, grace, weights):
    r = FORMATS[fmt]
    assert r.time_range_s == (minutes[0] * 60, minutes[1] * 60)
    assert r.budget_range == budget
    assert r.grace_s == grace
    assert (r.soft_warning, r.hard_warning, r.cutoff) == (0.8, 0.9, 1.0)
    got = tuple(r.weights[k] for k in ("objective", "process", "strategy", "integrity"))
    assert got == weights
    assert sum(r.weights.values()) == pytest.approx(1.0)


def test_format_specific_rules():
    assert FORMATS["standard"].cooldown_s == 60
    assert FORMATS["sprint"].cooldown_s == 0 and FORMATS["marathon"].cooldown_s == 0
    assert FORMATS["sprint"].double_submit_window_s == 30
    assert FORMATS["standard"].double_submit_window_s == 0
    assert FORMATS["marathon"].reveal_marks == (0.35, 0.65, 0.80)
    assert FORMATS["marathon"].advance_threshold == 0.6
    assert FORMATS["sprint"].reveal_marks == () and FORMATS["standard"].reveal_marks == ()


def test_sprint_discloses_names_but_no_messages_lint_or_coverage():
    for n in (1, 2):
        shown = FORMATS["sprint"].disclosed(n)
        assert FIELD_TESTS in shown
        assert not shown & {FIELD_FAILURE_MESSAGES, FIELD_LINT, FIELD_COVERAGE, FIELD_ADVERSARIAL}


def test_standard_progressive_disclosure():
    std = FORMATS["standard"]
    assert FIELD_FAILURE_MESSAGES in std.disclosed(1) and FIELD_LINT in std.disclosed(1)
    assert FIELD_DIFF not in std.disclosed(1) and FIELD_DIFF in std.disclosed(2)
    assert FIELD_REGRESSIONS not in std.disclosed(1) and FIELD_REGRESSIONS in std.disclosed(2)
    assert FIELD_ADVERSARIAL not in std.disclosed(2) and FIELD_ADVERSARIAL in std.disclosed(3)
    assert FIELD_SCORE_PREVIEW not in std.disclosed(3) and FIELD_SCORE_PREVIEW in std.disclosed(4)


def test_marathon_discloses_everything_standard_does_plus_phase_and_trajectory():
    mar = FORMATS["marathon"].disclosed(1)
    std_full = FORMATS["standard"].disclosed(3) - {FIELD_SCORE_PREVIEW}
    assert std_full <= mar
    assert {FIELD_PHASE, FIELD_TRAJECTORY} <= mar


def test_names_and_lookup():
    assert len(CATEGORIES) == 10 and "debug-gauntlet" in CATEGORIES
    assert WEIGHT_CLASSES == ("lightweight", "middleweight", "contender", "heavyweight", "frontier")
    assert rules_for("sprint") is FORMATS["sprint"]
    with pytest.raises(KeyError, match="expected one of sprint, standard, marathon"):
        rules_for("relay")
