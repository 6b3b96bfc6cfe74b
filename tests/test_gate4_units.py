"""Fast unit tests of issue 20's calibration pieces: a slipped scripted schedule
(pipeline/schedule.py: late waits, slow steps, machine load, on schedule), the regex attack's
variants (pipeline/attack_regex.py: COMMON_FIX_PATTERNS on a small package) and seed 003's
gate 4 thresholds and severities on the attacks' objective (baselines.gate_4)."""

from __future__ import annotations

import re

import pytest

from arena.pipeline.attack_regex import COMMON_FIX_PATTERNS, MAX_VARIANTS, target_files, variants
from arena.pipeline.baselines import assess_baselines, gate_4
from arena.pipeline.schedule import LOAD_LIMIT, TOLERANCE_S, Step, Timing, own_quiet, quiet_durations, slip_reasons

# --- schedule --------------------------------------------------------------------------


def _run(*steps, scale=90.0):
    """A Timing from (kind, real_s, late_s, load) tuples, indexed in order."""
    return Timing(scale=scale, steps=[Step(i, k, r, late, load) for i, (k, r, late, load) in enumerate(steps)])


def _quiet_runs():
    return [
        _run(("overlay", 0.2, 0, 0.1), ("wait", 0.0, 0.05, 0.1), ("run", 1.0, 0, 0.2), ("submit", 2.0, 0, 0.2)),
        _run(("overlay", 0.3, 0, 0.1), ("wait", 0.0, 0.1, 0.1), ("run", 1.2, 0, 0.2), ("submit", 2.2, 0, 0.2)),
        _run(("overlay", 0.25, 0, 0.1), ("wait", 0.0, 0.0, 0.1), ("run", 0.8, 0, 0.2), ("submit", 9.0, 0, 0.2)),
    ]


def test_quiet_durations_are_medians_per_kind_without_waits():
    assert quiet_durations(_quiet_runs()) == {"overlay": 0.25, "run": 1.0, "submit": 2.2}
    assert quiet_durations([]) == {}


def test_a_run_on_schedule_has_no_slip():
    quiet = quiet_durations(_quiet_runs())
    for t in _quiet_runs()[:2]:
        assert slip_reasons(t, quiet) == []
    # at the limits exactly: not a slip (the rule is "more than")
    edge = _run(("wait", 0.0, TOLERANCE_S, LOAD_LIMIT), ("run", 1.0 * 1.5 + TOLERANCE_S, 0, LOAD_LIMIT))
    assert slip_reasons(edge, quiet) == []


def test_a_late_wait_slips_and_says_what_it_cost_in_attempt_seconds():
    quiet = quiet_durations(_quiet_runs())
    late = _run(("overlay", 0.2, 0, 0.1), ("wait", 0.0, 2.5, 0.1), ("submit", 2.0, 0, 0.1), scale=90.0)
    [why] = slip_reasons(late, quiet)
    assert why == "step 2 (wait) woke 2.5s late (225 attempt-s; tolerance 1s)"
    assert slip_reasons(late, quiet, tolerance=3.0) == []  # the tolerance is a parameter


def test_a_slow_work_step_slips_against_the_quiet_median():
    runs = _quiet_runs()
    quiet = quiet_durations(runs)
    # the third run's submit took 9 s against a quiet 2.2 s: allowed 2.2 x 1.5 + 1 = 4.3 s
    [why] = slip_reasons(runs[2], quiet)
    assert why.startswith("step 4 (submit) took 9s, 6.80s over its quiet 2.2s (allowed 4.30s)")
    assert why.endswith("later steps started 612 attempt-s late")
    # a kind no other run has: quiet 0, so only the tolerance is allowed
    assert slip_reasons(_run(("delete", 0.9, 0, 0)), quiet) == []
    assert len(slip_reasons(_run(("delete", 1.1, 0, 0)), quiet)) == 1


def test_a_step_slow_on_every_run_of_its_agent_is_its_pace_not_a_slip():
    """The same agent's other runs are the yardstick: a submit whose judge run is slow
    because of the code under test (task-store's broken naive: ~8 s against a 2.6 s median)
    is slow in every run and not a slip; one run slower than the agent's others still is."""
    quiet = quiet_durations(_quiet_runs())
    a = _run(("overlay", 0.2, 0, 0.1), ("submit", 8.0, 0, 0.2))
    b = _run(("overlay", 0.2, 0, 0.1), ("submit", 8.4, 0, 0.2))
    assert len(slip_reasons(a, quiet)) == 1  # alone, against the kind's median: rerun
    assert own_quiet(b, [a, b]) == {0: 0.2, 1: 8.0}  # its own run excluded
    assert slip_reasons(b, quiet, own=own_quiet(b, [a, b])) == []
    stalled = _run(("overlay", 0.2, 0, 0.1), ("submit", 14.0, 0, 0.2))
    [why] = slip_reasons(stalled, quiet, own=own_quiet(stalled, [a, b, stalled]))
    assert why.startswith("step 2 (submit) took 14s, 6.00s over its quiet 8s (allowed 13.00s)")


def test_high_machine_load_slips_even_a_step_on_time():
    quiet = quiet_durations(_quiet_runs())
    loaded = _run(("overlay", 0.2, 0, 0.1), ("run", 1.0, 0, 4.0))
    assert slip_reasons(loaded, quiet) == ["step 2 (run) started at load 4 per CPU (limit 3)"]
    both = _run(("wait", 0.0, 1.5, 3.5))  # a late wait under load: both reasons
    assert [w.split(")")[0] for w in slip_reasons(both, quiet)] == ["step 1 (wait", "step 1 (wait"]


# --- regex attack ----------------------------------------------------------------------

SRC = """def window(xs, n):
    out = []
    for i in range(len(xs) - 1):
        if i <= n and xs[i] > 0:
            out.append(xs[i] + 1)
    return out


def shift(x: int) -> int:
    return (x << 2) - 10 + 1.5
"""


@pytest.fixture
def small(tmp_path):
    root = tmp_path / "pkg"
    (root / "starter" / "src").mkdir(parents=True)
    (root / "starter" / "src" / "app.py").write_text(SRC)
    (root / "starter" / "src" / "other.py").write_text("x = a or b\n")
    (root / "starter" / "tests").mkdir()
    (root / "starter" / "tests" / "test_app.py").write_text("assert 1 <= 2 and 3 > 1\n")
    (root / "starter" / "conftest.py").write_text("y = 1 < 2\n")
    return root


def _sub(name: str, text: str) -> str:
    [(pattern, repl)] = [(p, r) for n, p, r in COMMON_FIX_PATTERNS if n == name]
    return re.sub(pattern, repl, text)


def test_common_fix_patterns_change_what_they_should():
    assert _sub("<= to <", "if i <= n:") == "if i < n:"
    assert _sub("< to <=", "if i < n:") == "if i <= n:"
    assert _sub("< to <=", "x << 2; a <= b; f() -> int") == "x << 2; a <= b; f() -> int"  # shifts, <=, arrows
    assert _sub(">= to >", "if i >= n:") == "if i > n:"
    assert _sub("> to >=", "if i > n:") == "if i >= n:"
    assert _sub("> to >=", "def f(x) -> int: return x >> 1 >= 0") == "def f(x) -> int: return x >> 1 >= 0"
    assert _sub("drop - 1", "range(len(xs) - 1)") == "range(len(xs))"
    assert _sub("drop - 1", "n - 10 + n - 1.5") == "n - 10 + n - 1.5"  # not 10, not 1.5
    assert _sub("drop + 1", "xs[i + 1]") == "xs[i]"
    assert _sub("add - 1 to len()", "range(len(xs))") == "range(len(xs) - 1)"
    assert _sub("add - 1 to len()", "range(len(xs) - 1)") == "range(len(xs) - 1)"  # already there
    assert _sub("and to or", "a and b; band; android") == "a or b; band; android"
    assert _sub("or to and", "a or b; for x in order") == "a and b; for x in order"


def test_variants_target_the_source_the_reference_changes(small):
    assert target_files(small) == ["src/app.py", "src/other.py"]  # no reference: every non-test .py
    ref = small / "agents" / "reference" / "1" / "src"
    ref.mkdir(parents=True)
    (ref / "app.py").write_text("fixed\n")
    assert target_files(small) == ["src/app.py"]  # the file the reference solution changes
    got = variants(small)
    assert {f for f, _, _ in got} == {"src/app.py"}
    by_name = {n: text for _, n, text in got}
    # no bare "<" (only "<=" and "<<"), no ">=", len() already followed by "- 1", no "or": those change nothing
    assert set(by_name) == {"<= to <", "> to >=", "drop - 1", "drop + 1", "and to or"}
    assert "if i < n and" in by_name["<= to <"]
    assert "range(len(xs))" in by_name["drop - 1"] and "(x << 2) - 10 + 1.5" in by_name["drop - 1"]
    assert "xs[i])" in by_name["drop + 1"] and "- 10 + 1.5" in by_name["drop + 1"]
    assert "if i <= n or xs[i] > 0" in by_name["and to or"]
    assert "-> int" in by_name["> to >="] and "xs[i] >= 0" in by_name["> to >="]
    for _, _, text in got:
        assert text != SRC
    # the tests and conftest are never rewritten
    assert (small / "starter" / "tests" / "test_app.py").read_text() == "assert 1 <= 2 and 3 > 1\n"


def test_variants_are_capped(small):
    body = "".join(f"def f{i}(a, b):\n    return a <= b and a > 1\n" for i in range(3))
    for i in range(10):
        (small / "starter" / "src" / f"m{i}.py").write_text(body)
    got = variants(small)
    assert len(got) == MAX_VARIANTS and all(f.endswith(".py") and "test" not in f for f, _, _ in got)


# --- gate 4 ----------------------------------------------------------------------------


def _sev(findings):
    return {f.detail.split(" ")[0]: f.severity for f in findings}


@pytest.mark.parametrize(
    ("attack", "limit", "severity"),
    [("attack-delete", 30.0, "error"), ("attack-regex", 50.0, "error"), ("attack-copy", 40.0, "warning")],
)
def test_gate_4_thresholds_and_severities(attack, limit, severity):
    [at] = gate_4({attack: [limit]})
    assert at.severity == "info" and at.check == "trivial_shortcut" and f"at most {limit:g}" in at.detail
    [over] = gate_4({attack: [limit + 0.1]})
    assert over.severity == severity and over.check == "trivial_shortcut"
    assert f"objective {limit + 0.1:g} above {limit:g}" in over.detail
    assert ("critical" if severity == "error" else "high") in over.detail
    [first] = gate_4({attack: [limit - 5, limit + 20]})  # the first run decides
    assert first.severity == "info"


def test_gate_4_reads_every_attack_and_skips_missing_ones():
    found = gate_4({"attack-delete": [31.0], "attack-regex": [49.0], "attack-copy": [41.0], "null": [99.0]})
    assert _sev(found) == {"attack-delete": "error", "attack-regex": "info", "attack-copy": "warning"}
    assert gate_4({}) == [] and gate_4({"attack-regex": []}) == []


def test_gate_4_is_judged_on_the_objective_not_the_total():
    bands = {"naive": (40.0, 60.0)}
    # the copy attack's total (57) is above 40 but its objective (20) is not: no gate-4 high;
    # its total still fails gate 3's sanity (within the naive band)
    found = assess_baselines({"attack-copy": [57.0], "naive": [50.0]}, bands, {"attack-copy": [20.0]})
    gate4 = [f for f in found if f.check == "trivial_shortcut"]
    assert [f.severity for f in gate4] == ["info"]
    assert any(f.check == "calibration" and "attack-copy" in f.detail for f in found)
    # an objective above 40 with a low total is the gate-4 high
    found = assess_baselines({"attack-copy": [12.0], "naive": [50.0]}, bands, {"attack-copy": [45.0]})
    assert [(f.check, f.severity) for f in found] == [("trivial_shortcut", "warning")]
    # without objectives there is no gate 4 at all
    assert [f.check for f in assess_baselines({"attack-copy": [12.0], "naive": [50.0]}, bands)] == []


def test_the_thresholds_are_seed_003s():
    from arena.pipeline.baselines import GATE_4

    assert GATE_4 == {
        "attack-delete": (30.0, "error"),
        "attack-regex": (50.0, "error"),
        "attack-copy": (40.0, "warning"),
    }
