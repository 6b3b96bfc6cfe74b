"""The rule table: everything seeds 000 and 001 fix per format, in one place.

Read this table everywhere; never write ``if format == "sprint"`` elsewhere.
Submission numbers are 1-based (CONTRACT §7).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

FormatName = Literal["sprint", "standard", "marathon"]

# Feedback fields of CONTRACT §4 that a format may withhold.
FIELD_BUILD = "build"
FIELD_TESTS = "tests"
FIELD_FAILURE_MESSAGES = "failure_messages"  # tests.failures[].message
FIELD_HIDDEN = "hidden"
FIELD_ADVERSARIAL = "adversarial"
FIELD_LINT = "lint"
FIELD_COVERAGE = "coverage"
FIELD_DIFF = "diff"
FIELD_REGRESSIONS = "regressions"
FIELD_PHASE = "phase"
FIELD_SCORE_PREVIEW = "score_preview"
FIELD_TRAJECTORY = "trajectory"


@dataclass(frozen=True)
class Disclosure:
    """What feedback discloses from a given submission number on (1-based)."""

    always: frozenset[str]
    from_submission: dict[str, int] = field(default_factory=dict)

    def fields_at(self, submission: int) -> frozenset[str]:
        extra = {f for f, n in self.from_submission.items() if submission >= n}
        return self.always | extra


@dataclass(frozen=True)
class FormatRules:
    name: FormatName
    time_range_s: tuple[float, float]
    budget_range: tuple[int, int]
    soft_warning: float  # fraction of the time limit
    hard_warning: float
    cutoff: float
    grace_s: float  # 0 = no grace: cutoff is cutoff
    weights: dict[str, float]
    cooldown_s: float  # minimum time between accepted submissions
    double_submit_window_s: float  # 0 = rule off; else 2nd within window replaces 1st
    reveal_marks: tuple[float, ...]  # Marathon phase 2, 3, 4 time fallbacks
    advance_threshold: float  # share of a phase's static tests needed to advance
    disclosure: Disclosure
    convergence_baseline: int  # seed 001 rapid convergence: final_score / N
    # Seed 001 time-allocation tables: expected share of time per iteration.
    time_allocation: tuple[float, ...] = ()

    def disclosed(self, submission: int) -> frozenset[str]:
        return self.disclosure.fields_at(submission)


_SPRINT_DISCLOSURE = Disclosure(
    # CONTRACT §7: counts, build status, each static test's name with pass/fail and
    # its failure category; no failure messages, no coverage, no lint.
    always=frozenset({FIELD_BUILD, FIELD_TESTS, FIELD_HIDDEN}),
)
_STANDARD_DISCLOSURE = Disclosure(
    always=frozenset({FIELD_BUILD, FIELD_TESTS, FIELD_FAILURE_MESSAGES, FIELD_HIDDEN, FIELD_LINT, FIELD_COVERAGE}),
    # Seed 000: iteration 2 adds diff and regressions; adversarial from the 3rd
    # submission; the preliminary score breakdown on the 4th.
    from_submission={
        FIELD_DIFF: 2,
        FIELD_REGRESSIONS: 2,
        FIELD_ADVERSARIAL: 3,
        FIELD_SCORE_PREVIEW: 4,
    },
)
_MARATHON_DISCLOSURE = Disclosure(
    # Seed 001: everything in Standard, plus phase status, hints, cumulative
    # trajectory and regression alerts, from the first submission.
    always=frozenset(
        {
            FIELD_BUILD,
            FIELD_TESTS,
            FIELD_FAILURE_MESSAGES,
            FIELD_HIDDEN,
            FIELD_ADVERSARIAL,
            FIELD_LINT,
            FIELD_COVERAGE,
            FIELD_DIFF,
            FIELD_REGRESSIONS,
            FIELD_PHASE,
            FIELD_TRAJECTORY,
        }
    ),
)

FORMATS: dict[str, FormatRules] = {
    "sprint": FormatRules(
        name="sprint",
        time_range_s=(10 * 60, 20 * 60),
        budget_range=(1, 2),
        soft_warning=0.8,
        hard_warning=0.9,
        cutoff=1.0,
        grace_s=0.0,
        weights={"objective": 0.60, "process": 0.15, "strategy": 0.15, "integrity": 0.10},
        cooldown_s=0.0,
        double_submit_window_s=30.0,
        reveal_marks=(),
        advance_threshold=0.0,
        disclosure=_SPRINT_DISCLOSURE,
        convergence_baseline=1,
        time_allocation=(0.8, 0.2),
    ),
    "standard": FormatRules(
        name="standard",
        time_range_s=(25 * 60, 40 * 60),
        budget_range=(3, 4),
        soft_warning=0.8,
        hard_warning=0.9,
        cutoff=1.0,
        grace_s=30.0,
        weights={"objective": 0.50, "process": 0.20, "strategy": 0.20, "integrity": 0.10},
        cooldown_s=60.0,
        double_submit_window_s=0.0,
        reveal_marks=(),
        advance_threshold=0.0,
        disclosure=_STANDARD_DISCLOSURE,
        convergence_baseline=3,
        time_allocation=(0.4, 0.3, 0.2, 0.1),
    ),
    "marathon": FormatRules(
        name="marathon",
        time_range_s=(60 * 60, 120 * 60),
        budget_range=(5, 8),
        soft_warning=0.8,
        hard_warning=0.9,
        cutoff=1.0,
        grace_s=60.0,
        weights={"objective": 0.40, "process": 0.20, "strategy": 0.30, "integrity": 0.10},
        cooldown_s=0.0,
        double_submit_window_s=0.0,
        reveal_marks=(0.35, 0.65, 0.80),
        advance_threshold=0.6,
        disclosure=_MARATHON_DISCLOSURE,
        convergence_baseline=6,
        # Seed 001 Marathon: phase 1 30%, phase 2 35%, phase 3 25%, buffer 10%.
        time_allocation=(0.30, 0.35, 0.25, 0.10),
    ),
}


def rules_for(fmt: str) -> FormatRules:
    try:
        return FORMATS[fmt]
    except KeyError:
        raise KeyError(f"unknown format {fmt!r}: expected one of {', '.join(FORMATS)}") from None


# Seed 002 weight classes, 1-5 (CONTRACT §7: by name or number).
WEIGHT_CLASSES: tuple[str, ...] = (
    "lightweight",
    "middleweight",
    "contender",
    "heavyweight",
    "frontier",
)

# Seed 000's ten categories (CONTRACT §7).
CATEGORIES: tuple[str, ...] = (
    "debug-gauntlet",
    "forensic-reasoning",
    "recovery",
    "deceptive-optimization",
    "constraint-maze",
    "adversarial-implementation",
    "tool-use-orchestration",
    "open-ended-strategy",
    "long-horizon-planning",
    "humanity-gap",
)

# Seed 000 "Early Termination Conditions": no activity for longer than this is a hang.
DEFAULT_HANG_LIMIT_S = 60.0
