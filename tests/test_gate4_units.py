"""Fast unit tests of issue 20's calibration pieces (the scripted schedule's own:
tests/test_schedule_own_time.py): the regex attack's
variants (pipeline/attack_regex.py: COMMON_FIX_PATTERNS on a small package) and seed 003's
gate 4 thresholds and severities on the attacks' objective (baselines.gate_4)."""

from __future__ import annotations

import re

import pytest

from arena.pipeline.attack_regex import COMMON_FIX_PATTERNS, MAX_VARIANTS, target_files, variants
from arena.pipeline.baselines import assess_baselines, gate_4

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
