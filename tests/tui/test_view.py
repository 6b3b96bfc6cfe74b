"""arena.view: the reducer from events to what screens show (no Textual)."""

from __future__ import annotations

import subprocess
import sys

import tui_scenarios as S
from arena.bus import EventBus
from arena.view import AttemptView, view_of


def _view(bus: EventBus) -> AttemptView:
    view = AttemptView(activity_size=5)
    bus.subscribe(view.apply)
    return view


def test_started_fills_the_facts_and_phase_one_is_open():
    bus = EventBus()
    view = _view(bus)
    S.start(bus, "a-1", "marathon", agent="scripted:naive")
    assert (view.attempt, view.format, view.agent, view.budget, view.time_limit_s) == (
        "a-1",
        "marathon",
        "scripted:naive",
        6,
        3600.0,
    )
    assert view.grace_s == 60.0
    assert [(p.number, p.id, p.open) for p in view.phases] == [
        (1, "foundation", True),
        (2, "extension", False),
        (3, "adaptation", False),
        (4, "integration", False),
    ]


def test_clock_level_and_stage_follow_the_deadline_not_events():
    bus = EventBus()
    view = _view(bus)
    S.start(bus, "a-1", "standard")  # 1800 s, grace 30 s
    levels = {f: view.clock_level(1800 * f) for f in (0.79, 0.8, 0.89, 0.9)}
    assert levels == {0.79: "ok", 0.8: "warning", 0.89: "warning", 0.9: "urgent"}
    assert view.stage(1799.0) == "running"
    assert view.stage(1800.0) == "grace"
    assert view.stage(1829.0) == "grace"
    assert view.stage(1830.0) == "over"
    S.finish(bus, "a-1", 900.0)
    assert view.stage(900.0) == "over" and view.status == "finished"


def test_submissions_scores_feedback_and_the_sprint_double_submit():
    bus = EventBus()
    view = _view(bus)
    S.start(bus, "a-1", "sprint")
    S.submit(bus, "a-1", 1, 100, S.doc("sprint", 1, 100), 40.0)
    assert (view.submissions_used, view.submissions_left, view.last_score) == (1, 1, 40.0)
    bus.publish("a-1", 120, "submission.received", {"submission": 2, "replaces": 1, "diff": {}})
    bus.publish("a-1", 121, "submission.judged", {"submission": 2, "score": 70.0})
    assert view.replaced == {1}
    assert view.submissions_used == 1  # the replaced one does not count
    assert view.trajectory == [70.0]
    assert sorted(view.feedback) == [1]
    assert view.feedback[1]["submission"] == 1


def test_cooldown_left_uses_the_rule_table():
    bus = EventBus()
    view = _view(bus)
    S.start(bus, "a-1", "standard")  # cooldown 60 s
    assert view.cooldown_left(10.0) == 0.0
    S.submit(bus, "a-1", 1, 100, S.doc("standard", 1, 100), 40.0)
    assert view.cooldown_left(130.0) == 30.0
    assert view.cooldown_left(170.0) == 0.0


def test_warnings_phase_reveal_and_the_activity_ring():
    bus = EventBus()
    view = _view(bus)
    S.start(bus, "a-1", "marathon")
    S.activity(bus, "a-1", 10)
    S.reveal(bus, "a-1", 2, 1300)
    S.clock_mark(bus, "a-1", "marathon", "clock.soft_warning")
    assert view.warning == "soft"
    assert view.current_phase == 2
    phase = view.phases[1]
    assert phase.open and phase.by == "threshold" and "extend the store" in phase.briefing
    assert view.activity_total == 6 and len(view.activity) == 5  # ring of 5
    assert [a.kind for a in view.activity] == ["edit", "command", "output", "phase", "clock"]
    assert view.activity[1].text == "$ python -m pytest -q → exit 1 (3 passed, 1 failed)"


def test_view_of_folds_a_stored_list():
    bus = EventBus()
    seen = []
    bus.subscribe(seen.append)
    S.start(bus, "a-1", "sprint")
    S.finish(bus, "a-1", 50.0, scored=None)
    view = view_of(seen)
    assert view.finished and view.elapsed_s == 50.0 and view.scored_submission is None


def test_view_and_replay_import_without_textual():
    code = (
        "import arena.view, arena.replay, sys; "
        "print(any(m == 'textual' or m.startswith('textual.') for m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"
