"""Which Marathon phase is open: by threshold (60% of the phase's static tests) or by
the time fallback (35 / 65 / 80% or the manifest's reveal_at)."""

from arena.formats import FORMATS
from arena.rules import PhaseOpening, open_phase

MAR = FORMATS["marathon"]


def opens(**kw):
    kw.setdefault("phase_count", 4)
    return [(o.phase, o.by) for o in open_phase(MAR, **kw)]


def test_threshold_opens_the_next_phase_at_exactly_60_percent():
    assert opens(current=1, fraction=0.10, pass_rate=0.59) == []
    assert opens(current=1, fraction=0.10, pass_rate=0.6) == [(2, "threshold")]
    assert opens(current=1, fraction=0.10, pass_rate=3 / 5) == [(2, "threshold")]  # 3 of 5 tests


def test_time_fallback_at_the_format_marks():
    assert opens(current=1, fraction=0.3499) == []
    assert opens(current=1, fraction=0.35) == [(2, "time")]
    assert opens(current=2, fraction=0.6499) == []
    assert opens(current=2, fraction=0.65) == [(3, "time")]
    assert opens(current=3, fraction=0.80) == [(4, "time")]


def test_a_stuck_agent_gets_every_overdue_phase_by_time():
    assert opens(current=1, fraction=0.81, pass_rate=0.1) == [(2, "time"), (3, "time"), (4, "time")]


def test_threshold_opens_one_phase_then_time_may_open_more():
    assert opens(current=1, fraction=0.70, pass_rate=0.9) == [(2, "threshold"), (3, "time")]
    assert opens(current=1, fraction=0.20, pass_rate=1.0) == [(2, "threshold")]


def test_manifest_reveal_at_and_thresholds_override_the_format():
    assert opens(current=1, fraction=0.30, reveal_at=[0.3, 0.6, 0.85]) == [(2, "time")]
    assert opens(current=3, fraction=0.84, reveal_at=[0.3, 0.6, 0.85]) == []
    assert opens(current=1, fraction=0.1, pass_rate=0.7, thresholds=[0.75, 0.6, 0.6]) == []
    assert opens(current=1, fraction=0.1, pass_rate=0.75, thresholds=[0.75, 0.6, 0.6]) == [(2, "threshold")]


def test_no_phase_past_the_last_one():
    assert opens(current=2, phase_count=2, fraction=0.99, pass_rate=1.0) == []
    assert opens(current=1, phase_count=2, fraction=0.99) == [(2, "time")]


def test_a_phase_without_static_tests_opens_only_by_time():
    assert opens(current=1, fraction=0.2, pass_rate=None) == []


def test_phase_opening_is_a_value():
    assert PhaseOpening(2, "time") == PhaseOpening(2, "time")
