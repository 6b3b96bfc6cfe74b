"""Issue 38 item 3: in a Sprint, right first time beats the same result in two submissions
(seed 000: "Elite agents should be able to one-shot it"; seed 001: "An agent that reaches
95% on iteration 1 and stops is scored higher than an agent that reaches 95% on iteration
3", and its rapid convergence, whose formula cannot fire at the Sprint's baseline of 1).

Judged in process from events: scenario attempts with the same care in every iteration
(reads, feedback read, local test runs after edits), and the off-by-one reference (one
submission) and elite (two) as recorded from a real local run of the bundled package
(tests/scoring/recorded/, the store's events as `judge_attempt` reads them)."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from eventkit import Attempt
from scenarios import iteration, process

from arena.events import Event
from arena.scoring import judge_attempt
from arena.scoring.process import FIX_PASS_MAX

RECORDED = Path(__file__).parent / "recorded"


def _sprint(scores: list[int], **kw) -> Attempt:
    per = kw.pop("per", {})
    a = Attempt("sprint", time_limit_s=900, budget=2, weight_class="lightweight")
    for i, s in enumerate(scores):
        iteration(a, s, **{**kw, **per.get(i, {})})
    return a


@pytest.mark.parametrize("hidden", [10, 9, 8])
def test_one_shot_beats_the_same_final_in_two_submissions(hidden):
    """The best-behaved fix pass: front-loaded time, two test runs after edits in each
    iteration, reads and feedback read, one targeted file, nothing broken. The old rules
    gave it 15-17 Process points against the one-shot's 12: more for the same result. Every
    visible test passes at the end (a one-shot that stops with visible tests failing and
    budget left is ``stopped_while_failing``'s, seed 001's "when NOT to stop early"); the
    hidden ones set the final score."""
    care = dict(test_runs=2, hidden=[i < hidden for i in range(10)])
    one = judge_attempt(_sprint([100], **care).finish())
    two = judge_attempt(_sprint([80, 100], **care, per={0: dict(dur=400.0), 1: dict(dur=200.0)}).finish())
    assert len(one.trajectory) == 1 and len(two.trajectory) == 2
    assert one.trajectory[0] == two.trajectory[1] >= 90
    assert one.components["objective"] == two.components["objective"]
    assert process(one)["first_time_right"] == FIX_PASS_MAX + 1 - process(one)["one_shot"]
    assert one.process_raw > two.process_raw, (process(one), process(two))
    assert one.total > two.total, (one.total, two.total)


def test_no_two_submission_sprint_out_earns_the_one_shot():
    """Every combination of the behaviours the Process rules read in a two-submission Sprint
    (time shape, test runs, reads, feedback read, files changed): what the second submission
    adds stays at or below FIX_PASS_MAX, and the one-shot with the first iteration's care
    scores more."""
    for runs, reads, shape, files in itertools.product(
        (0, 1, 2), ((), ("src/app.py",)), ((300.0, 300.0), (400.0, 200.0), (200.0, 400.0)), (1, 2)
    ):
        kw = dict(test_runs=runs, reads=reads)
        changed = ("src/app.py", "src/app_util.py")[:files]
        one = judge_attempt(_sprint([100], **kw, per={0: dict(dur=shape[0])}).finish())
        two = judge_attempt(
            _sprint([70, 100], **kw, per={0: dict(dur=shape[0]), 1: dict(dur=shape[1], files=changed)}).finish()
        )
        seen = (runs, reads, shape, files, process(one), process(two))
        assert one.process_raw > two.process_raw, seen
        assert one.total > two.total, seen


def test_first_time_right_is_a_sprint_rule_for_a_right_one_shot():
    assert "first_time_right" not in process(judge_attempt(_sprint([89]).finish()))  # one shot, not right
    assert "first_time_right" not in process(judge_attempt(_sprint([95, 96]).finish()))
    a = Attempt("standard", budget=4)
    iteration(a, 95)
    card = judge_attempt(a.finish())
    assert "one_shot" in process(card) and "first_time_right" not in process(card)  # rapid_convergence's there


def _recorded(name: str) -> list[Event]:
    return [Event(**e) for e in json.loads((RECORDED / f"off-by-one-{name}.json").read_text())]


def test_off_by_one_reference_one_shot_beats_the_elite_in_two():
    """The issue's case: the reference (one submission) and the elite (two, the same final
    objective 100) tied at 95.5, the elite listed first by name. Judged from recorded events."""
    ref, elite = judge_attempt(_recorded("reference")), judge_attempt(_recorded("elite"))
    assert ref.format == elite.format == "sprint"
    assert len(ref.trajectory) == 1 and len(elite.trajectory) == 2
    assert ref.components["objective"] == elite.components["objective"] == 100.0
    assert "first_time_right" in process(ref)
    # even without the elite's code-quality finding, its second submission earns less
    elite_fix_pass = sum(p for r, p in process(elite).items() if r != "code_quality")
    assert ref.process_raw > elite_fix_pass
    assert ref.total > elite.total
