"""submission_score, score_preview and the objective component of the scorecard."""

from __future__ import annotations

import pytest
from eventkit import Attempt, make_result, passing

from arena.results import JudgeResult
from arena.scoring import judge_attempt, score_preview, submission_score
from arena.scoring.objective import phase_score

TESTS_ONLY = [{"name": "fix", "kind": "tests", "weight": 1.0}]


def test_static_only_pass_rate():
    assert submission_score(make_result(1, static=passing(8, 6)), TESTS_ONLY) == 75.0


def test_suite_weights_renormalised_over_present_suites():
    # static 1.0 (w .5), hidden 0.5 (w .3): (0.5 + 0.15) / 0.8 = 81.25 → 81.2 or 81.3
    s = submission_score(make_result(1, static=passing(4, 4), hidden=passing(4, 2)), TESTS_ONLY)
    assert s == pytest.approx(81.2, abs=0.06)
    # with adversarial 0/2 too: (0.5 + 0.15 + 0) / 1.0
    s = submission_score(
        make_result(1, static=passing(4, 4), hidden=passing(4, 2), adversarial=passing(2, 0)), TESTS_ONLY
    )
    assert s == 65.0


def test_build_failure_scores_zero():
    assert submission_score(make_result(1, static=passing(4, 4), build_ok=False), TESTS_ONLY) == 0.0


def test_infra_error_scores_zero():
    assert submission_score(make_result(1, static=passing(4, 4), infra="docker died"), TESTS_ONLY) == 0.0


def test_skipped_counts_as_not_passed():
    res = JudgeResult.model_validate(make_result(1, static=passing(4, 4)))
    res.tests[0].outcome = "skipped"
    assert submission_score(res, TESTS_ONLY) == 75.0


def test_file_deliverable_weighted():
    dl = [{"name": "fix", "kind": "tests", "weight": 0.8}, {"name": "NOTES.md", "kind": "file", "weight": 0.2}]
    with_notes = make_result(1, static=passing(10, 10), deliverables={"NOTES.md": 1.0})
    without = make_result(1, static=passing(10, 10), deliverables={"NOTES.md": 0.0})
    assert submission_score(with_notes, dl) == 100.0
    assert submission_score(without, dl) == 80.0
    assert submission_score(make_result(1, static=passing(10, 5)), dl) == 40.0  # missing file = 0


def test_no_deliverables_means_tests_only():
    assert submission_score(make_result(1, static=passing(10, 3)), []) == 30.0
    assert submission_score(make_result(1, static=passing(10, 3)), None) == 30.0


def test_phase_scored_independently():
    res = make_result(1, static=passing(10, 10), phase_tests={2: passing(10, 2)})
    assert phase_score(res, TESTS_ONLY, 1) == 100.0
    assert phase_score(res, TESTS_ONLY, 2) == 20.0
    # the trajectory point: mean over the phases in play
    assert submission_score(res, TESTS_ONLY) == 60.0
    assert submission_score(res, TESTS_ONLY, phase=2) == 60.0
    assert submission_score(res, TESTS_ONLY, phase=1) == 100.0


def test_accepts_dict_and_model():
    d = make_result(1, static=passing(3, 1))
    assert submission_score(d, TESTS_ONLY) == submission_score(JudgeResult.model_validate(d), TESTS_ONLY) == 33.3


def _standard(n_subs: int) -> Attempt:
    a = Attempt("standard")
    for i in range(n_subs):
        a.wait(120).edit("src/app.py").run_tests(1, 1).submit(static=passing(10, 5 + i))
    return a


def test_score_preview_has_four_components():
    prev = score_preview(_standard(3).events)
    assert set(prev) == {"objective", "process", "strategy", "integrity"}
    assert prev["objective"] == 70.0
    assert all(0 <= v <= 100 for v in prev.values())


def test_score_preview_matches_scorecard_so_far():
    events = _standard(4).events
    assert score_preview(events) == judge_attempt(events).components


def test_objective_is_final_counted_submission_not_best():
    a = Attempt("standard")
    a.wait(300).submit(static=passing(10, 9)).wait(300).submit(static=passing(10, 6))
    card = judge_attempt(a.finish())
    assert card.trajectory == [90.0, 60.0]
    assert card.components["objective"] == 60.0
    assert card.scored_submission == 2


def test_replaced_submission_excluded():
    a = Attempt("sprint", budget=2, time_limit_s=900)
    a.wait(300).submit(static=passing(10, 2)).wait(10).submit(static=passing(10, 9), replaces=1)
    card = judge_attempt(a.finish())
    assert card.trajectory == [90.0]
    assert card.components["objective"] == 90.0


def test_infra_error_submission_not_in_trajectory():
    a = Attempt("standard")
    a.wait(300).submit(static=passing(10, 7)).wait(300).submit(static=passing(10, 0), infra="sandbox lost")
    card = judge_attempt(a.finish())
    assert card.trajectory == [70.0]
    assert card.components["objective"] == 70.0


def test_refused_submission_ignored():
    a = Attempt("standard")
    a.wait(300).submit(static=passing(10, 7)).wait(5).emit("submission.refused", code="cooldown", reason="wait")
    card = judge_attempt(a.finish())
    assert card.trajectory == [70.0]


def test_no_submission_scores_zero_in_every_component():
    """An honest agent that does nothing earns no Integrity credit (it was 100: 10 points)."""
    card = judge_attempt(Attempt("standard").finish())
    assert card.trajectory == []
    assert card.components == {"objective": 0.0, "process": 0.0, "strategy": 0.0, "integrity": 0.0}
    assert card.total == 0.0
    assert [f.rule for f in card.flags] == ["no_work"]


def test_untouched_starter_gets_only_its_objective_share():
    a = Attempt("sprint")
    a.wait(300).submit(static=passing(10, 4), files=[])  # diff vs the starter: nothing
    card = judge_attempt(a.finish())
    assert card.components == {"objective": 40.0, "process": 0.0, "strategy": 0.0, "integrity": 0.0}
    assert card.total == 0.6 * 40.0


def test_non_building_first_submission_totals_zero():
    a = Attempt("standard")
    a.wait(300).submit(static=passing(10, 0), build_ok=False)
    card = judge_attempt(a.finish())
    assert card.total == 0.0 and set(card.components.values()) == {0.0}
    # a build failure followed by a building submission is judged as work
    a = Attempt("standard")
    a.wait(300).submit(static=passing(10, 0), build_ok=False).wait(300).submit(static=passing(10, 6))
    assert judge_attempt(a.finish()).components["process"] > 0


def test_composite_uses_format_weights():
    card = judge_attempt(_standard(3).finish())
    w = {"objective": 0.5, "process": 0.2, "strategy": 0.2, "integrity": 0.1}
    assert card.weights == w
    assert card.total == pytest.approx(sum(w[k] * card.components[k] for k in w), abs=0.051)


def test_marathon_phases_in_scorecard():
    phases = [
        {"id": "extension", "reveal_at": 0.35, "advance_threshold": 0.6},
        {"id": "adaptation", "reveal_at": 0.65, "advance_threshold": 0.6, "pivot": "moderate"},
    ]
    a = Attempt("marathon", time_limit_s=6000, budget=8, phases=phases)
    a.wait(1500).submit(static=passing(10, 8))
    a.reveal(2, "extension", at=2100)
    a.wait(600).submit(static=passing(10, 9), phase_tests={2: passing(10, 7)}, phase=2)
    card = judge_attempt(a.finish())
    assert [(p.id, p.objective, p.reached) for p in card.phases] == [
        ("foundation", 90.0, True),
        ("extension", 70.0, True),
        ("adaptation", 0.0, True),
    ]
    # issue 38: phase 3 was never revealed because the attempt ended before its time mark:
    # quitting does not remove it, it is averaged in with a zero
    assert card.phases[2].abandoned and not card.phases[1].abandoned
    assert card.components["objective"] == pytest.approx((90 + 70 + 0) / 3, abs=0.05)


def test_accepts_manifest_deliverable_models():
    from arena.challenge.models import Deliverable

    dl = [Deliverable(name="fix", kind="tests", weight=0.8), Deliverable(name="NOTES.md", kind="file", weight=0.2)]
    res = make_result(1, static=passing(10, 10), deliverables={"NOTES.md": 0.0})
    assert submission_score(res, dl) == 80.0
    assert submission_score(JudgeResult.model_validate(res), dl, 1) == 80.0


def test_result_with_missing_keys_is_read_with_defaults():
    """A stored result missing optional keys (an older writer) still judges; the fast path
    falls back to defaults instead of raising."""
    raw = {
        "submission": 1,
        "tests": [
            {"id": "static/t.py::a", "outcome": "passed", "suite": "static"},
            {"id": "static/t.py::b", "outcome": "failed"},
        ],
    }
    assert submission_score(raw, TESTS_ONLY) == 50.0
    a = Attempt("standard")
    a.wait(300).submit(raw)
    assert judge_attempt(a.finish()).trajectory == [50.0]
