"""Gate 3 (`gauntlet challenge calibrate`): seed 002's per-weight-class bands and spread
(elite - naive), seed 003's class-independent conditions, and one real calibration of the
minimal package (attempts, judge, store, scoring)."""

import json
import shutil
import statistics
from pathlib import Path

import pytest

from arena.pipeline.calibration import CLASS_BANDS, assess, bands
from gauntlet_tui.cli import main
from arena.formats import WEIGHT_CLASSES

MINIMAL = Path(__file__).parent / "fixtures" / "minimal"
# A contender package inside every band (seed 003's own example is a contender).
GOOD = {"naive": [20.0], "standard": [45.0, 47.0, 43.0], "elite": [70.0, 71.0, 66.0], "reference": [92.0]}
# Seed 002's table, written out again here so a slip in the code's table shows up.
SEED_002 = {
    "lightweight": ((60, 80), (80, 95), (90, 100), (20, 35)),
    "middleweight": ((25, 50), (50, 75), (70, 90), (35, 55)),
    "contender": ((10, 30), (35, 55), (55, 80), (45, 65)),
    "heavyweight": ((0, 15), (15, 40), (40, 60), (50, 65)),
    "frontier": ((0, 5), (5, 20), (20, 40), (25, 40)),
}
# One set of scores inside each class's bands and spread (reference above 85, strictly first).
INSIDE = {
    "lightweight": {"naive": 68.0, "standard": 86.0, "elite": 94.0, "reference": 98.0},
    "middleweight": {"naive": 35.0, "standard": 62.0, "elite": 80.0, "reference": 95.0},
    "contender": {"naive": 20.0, "standard": 45.0, "elite": 70.0, "reference": 92.0},
    "heavyweight": {"naive": 5.0, "standard": 30.0, "elite": 58.0, "reference": 90.0},
    "frontier": {"naive": 3.0, "standard": 12.0, "elite": 30.0, "reference": 88.0},
}


def runs(**changes):
    r = {k: list(v) for k, v in GOOD.items()}
    r.update({k: v if isinstance(v, list) else [v] for k, v in changes.items()})
    return r


def errors(r, wc="contender"):
    return [f.detail for f in assess(r, wc) if f.severity == "error"]


def test_the_table_is_seed_002_for_every_weight_class():
    assert set(CLASS_BANDS) == set(WEIGHT_CLASSES)
    for wc, (naive, standard, elite, spread) in SEED_002.items():
        assert bands(wc) == {"naive": naive, "standard": standard, "elite": elite, "spread": spread}, wc


def test_unknown_weight_class_is_a_clear_error():
    with pytest.raises(ValueError, match="weight class 'featherweight': expected one of lightweight, middleweight"):
        bands("featherweight")


@pytest.mark.parametrize("wc", WEIGHT_CLASSES)
def test_scores_inside_the_class_bands_pass(wc):
    found = assess({a: [s] for a, s in INSIDE[wc].items()}, wc)
    assert [f.severity for f in found if f.severity == "error"] == [], found
    info = [f.detail for f in found if f.severity == "info"]
    assert info and info[0].startswith(f"{wc}: scores naive ")


@pytest.mark.parametrize("wc", WEIGHT_CLASSES)
def test_the_same_scores_fail_the_other_classes(wc):
    scores = {a: [s] for a, s in INSIDE[wc].items()}
    for other in WEIGHT_CLASSES:
        if other != wc:
            assert errors(scores, other), (wc, other)


@pytest.mark.parametrize("wc", WEIGHT_CLASSES)
@pytest.mark.parametrize("agent", ["naive", "standard", "elite"])
def test_bands_are_inclusive_at_their_edges(wc, agent):
    lo, hi = bands(wc)[agent]
    base = {a: [s] for a, s in INSIDE[wc].items()}

    def band_errors(score):
        return [e for e in errors({**base, agent: [score]}, wc) if e.startswith(f"agents/{agent}.yaml")]

    assert band_errors(lo) == [] and band_errors(hi) == [], (lo, hi)
    above, below = hi + 0.5, lo - 0.5
    assert band_errors(above) == [
        f"agents/{agent}.yaml: scored {above:g}: expected {lo:g}-{hi:g} (too easy for the {agent} agent in {wc})"
    ]
    if below >= 0:
        assert band_errors(below) == [
            f"agents/{agent}.yaml: scored {below:g}: expected {lo:g}-{hi:g} (too hard for the {agent} agent in {wc})"
        ]


@pytest.mark.parametrize("wc", WEIGHT_CLASSES)
def test_spread_is_elite_minus_naive_inclusive_at_its_edges(wc):
    lo, hi = bands(wc)["spread"]
    elite = bands(wc)["elite"]
    naive = bands(wc)["naive"]
    for target in (lo, hi, lo - 0.5, hi + 0.5):
        # pick a naive and an elite inside their own bands with elite - naive == target, when possible
        for n in [naive[0] + i * 0.5 for i in range(int((naive[1] - naive[0]) * 2) + 1)]:
            e = n + target
            if elite[0] <= e <= elite[1]:
                break
        else:
            continue  # not reachable inside the class's bands (heavyweight's 65: see docs/foundation.md)
        r = {**{a: [s] for a, s in INSIDE[wc].items()}, "naive": [n], "elite": [e]}
        r["reference"] = [max(r["reference"][0], e + 1)]
        r["standard"] = [min(max(r["standard"][0], n + 0.25), e - 0.25)]
        spread_errors = [x for x in errors(r, wc) if x.startswith("score spread")]
        if lo <= target <= hi:
            assert spread_errors == [], (wc, n, e)
        else:
            assert spread_errors == [f"score spread (elite - naive) {target:g}: expected {lo:g}-{hi:g} for {wc}"], (
                wc,
                n,
                e,
            )


def test_heavyweight_spread_upper_edge_is_unreachable_inside_its_bands():
    """Seed 002's heavyweight spread 50-65 vs naive 0-15 and elite 40-60: at most 60."""
    b = bands("heavyweight")
    assert b["elite"][1] - b["naive"][0] == 60 < b["spread"][1]


def test_reference_must_score_above_85_strictly_in_every_class():
    for wc in WEIGHT_CLASSES:
        scores = {a: [s] for a, s in INSIDE[wc].items()}
        assert "agents/reference.yaml: scored 85: expected above 85 (the challenge must be solvable)" in errors(
            {**scores, "reference": [85.0]}, wc
        )
    assert errors(runs(reference=85.1)) == []


def test_order_must_be_strict():
    tie = runs(naive=[30.0], standard=[30.0] * 3, elite=[75.0] * 3)
    assert (
        "score order: expected reference > elite > standard > naive, got reference 92 > elite 75 > standard 30 > naive 30"
        in errors(tie)
    )
    light = {"naive": [70.0], "standard": [92.0], "elite": [91.0], "reference": [99.0]}  # all in lightweight bands
    assert errors(light, "lightweight") == [
        "score order: expected reference > elite > standard > naive, got reference 99 > elite 91 > standard 92 > naive 70"
    ]


def test_seed_003_stddev_is_a_note_never_a_failure():
    light = {
        "naive": [70.0],
        "standard": [87.0],
        "elite": [95.0],
        "reference": [97.0],
    }  # seed 002's lightweight midpoints
    stdev = statistics.stdev([70.0, 87.0, 95.0, 97.0])
    found = assess(light, "lightweight")
    assert [f.severity for f in found] == ["info", "info"]  # info: a warning would fail the gate's exit code
    assert (
        found[1].detail
        == f"score stddev {stdev:.1f}: seed 003 asks above 15 (a note, not a failure: seed 002's lightweight bands take precedence)"
    )
    assert not [f for f in assess(runs(), "contender") if "stddev" in f.detail]  # 20, 45, 70, 92: 31.2


def test_flakiness_limit_is_10_points():
    assert errors(runs(elite=[70.0, 60.0, 65.0])) == []
    assert errors(runs(elite=[70.0, 59.9, 65.0])) == [
        "agents/elite.yaml: scores 70, 59.9, 65 over 3 runs vary by 10.1: expected at most 10"
    ]
    assert errors(runs(standard=[45.0, 35.0, 40.0])) == []
    assert errors(runs(standard=[45.0, 34.5, 40.0])) == [
        "agents/standard.yaml: scores 45, 34.5, 40 over 3 runs vary by 10.5: expected at most 10"
    ]


def test_missing_benchmark_agent_is_reported_without_running(tmp_path, capsys):
    pkg = tmp_path / "pkg"
    shutil.copytree(MINIMAL, pkg)
    (pkg / "agents/naive.yaml").unlink()
    assert main(["challenge", "calibrate", "--sandbox", "local", str(pkg)]) == 1
    assert (
        "agents/naive.yaml: missing: expected the naive benchmark agent (gate 3 runs all four)"
        in capsys.readouterr().out
    )


def test_bad_time_scale_is_a_usage_error(capsys):
    assert main(["challenge", "calibrate", "--time-scale", "0", str(MINIMAL)]) == 2
    assert "--time-scale: expected a positive number, got 0.0" in capsys.readouterr().err


@pytest.mark.docker
def test_real_calibration_of_the_minimal_package(tmp_path, capsys):
    """Four real attempts (docker sandbox, judge, store, scoring). The minimal package's
    agents are not calibrated to the seed's bands, and calibrate says so."""
    store = tmp_path / "cal.db"
    code = main(
        [
            "challenge",
            "calibrate",
            "--json",
            "--quick",
            "--sandbox",
            "docker",
            "--time-scale",
            "60",
            "--store",
            str(store),
            str(MINIMAL),
        ]
    )
    doc = json.loads(capsys.readouterr().out)
    assert code == 1 and doc["ok"] is False
    # the four benchmark agents, plus the baselines calibrate runs beside them (issue 12)
    assert {"naive", "standard", "elite", "reference"} <= set(doc["scores"])
    assert set(doc["scores"]) - {"naive", "standard", "elite", "reference"} <= {
        "null",
        "attack-delete",
        "attack-regex",
        "attack-copy",
    }
    assert all(len(v) == 1 for v in doc["runs"].values())
    assert doc["scores"]["reference"] > 85 > doc["scores"]["naive"]
    assert any(f["detail"].startswith("agents/naive.yaml: scored") for f in doc["findings"])
    ids = [i for k, v in doc["attempts"].items() for i in v if k in ("naive", "standard", "elite", "reference")]
    assert len(ids) == 4 and store.exists()
    assert main(["judge", ids[0], "--store", str(store), "--json"]) == 0  # stored and re-judgeable
    assert json.loads(capsys.readouterr().out)["attempt"] == ids[0]
