"""Gate 3 (`gauntlet challenge calibrate`): the seed 003 conditions on benchmark scores,
and one real calibration of the minimal package (attempts, judge, store, scoring)."""
import json
import shutil
from pathlib import Path

import pytest

from arena.challenge.calibrate import assess
from arena.cli import main

MINIMAL = Path(__file__).parent / "fixtures" / "minimal"
GOOD = {"naive": [15.0], "standard": [40.0, 42.0, 38.0], "elite": [70.0, 71.0, 66.0], "reference": [92.0]}


def runs(**changes):
    r = {k: list(v) for k, v in GOOD.items()}
    r.update({k: v if isinstance(v, list) else [v] for k, v in changes.items()})
    return r


def errors(r):
    return [f.detail for f in assess(r) if f.severity == "error"]


def test_a_well_calibrated_package_passes():
    found = assess(runs())
    assert [f.severity for f in found] == ["info"]
    assert found[0].detail.startswith("scores naive 15, standard 40, elite 70, reference 92; spread")


def test_reference_must_score_above_85_strictly():
    assert errors(runs(reference=85.0)) == [
        "agents/reference.yaml: scored 85: expected above 85 (the challenge must be solvable)"]
    assert errors(runs(reference=85.1)) == []


@pytest.mark.parametrize("agent, lo, hi", [("naive", 5, 25), ("standard", 25, 55), ("elite", 55, 80)])
def test_bands_are_inclusive(agent, lo, hi):
    n = len(GOOD[agent])
    for edge in (lo, hi):
        assert not [e for e in errors(runs(**{agent: [edge] * n})) if e.startswith(f"agents/{agent}.yaml")], edge
    assert f"agents/{agent}.yaml: scored {hi + 0.5:g}: expected {lo}-{hi} (too easy for the {agent} agent)" in errors(runs(**{agent: [hi + 0.5] * n}))
    assert f"agents/{agent}.yaml: scored {lo - 0.5:g}: expected {lo}-{hi} (too hard for the {agent} agent)" in errors(runs(**{agent: [lo - 0.5] * n}))


def test_order_must_be_strict():
    tie = runs(naive=[25.0], standard=[25.0] * 3)
    assert "score order: expected reference > elite > standard > naive, got reference 92 > elite 70 > standard 25 > naive 25" in errors(tie)


def test_spread_must_exceed_15():
    # scores 24, 30, 40, 50: sample stddev 11.4
    narrow = runs(naive=[24.0], standard=[30.0] * 3, elite=[40.0] * 3, reference=[50.0])
    assert "score spread (stddev) 11.4: expected above 15 (the challenge must discriminate)" in errors(narrow)
    assert not [e for e in errors(runs()) if e.startswith("score spread")]  # 15, 40, 70, 92: 33.5


def test_flakiness_limit_is_10_points():
    assert errors(runs(elite=[70.0, 60.0, 65.0])) == []
    assert errors(runs(elite=[70.0, 59.9, 65.0])) == [
        "agents/elite.yaml: scores 70, 59.9, 65 over 3 runs vary by 10.1: expected at most 10"]


def test_missing_benchmark_agent_is_reported_without_running(tmp_path, capsys):
    pkg = tmp_path / "pkg"
    shutil.copytree(MINIMAL, pkg)
    (pkg / "agents/naive.yaml").unlink()
    assert main(["challenge", "calibrate", "--sandbox", "local", str(pkg)]) == 1
    assert "agents/naive.yaml: missing: expected the naive benchmark agent (gate 3 runs all four)" in capsys.readouterr().out


def test_bad_time_scale_is_a_usage_error(capsys):
    assert main(["challenge", "calibrate", "--time-scale", "0", str(MINIMAL)]) == 2
    assert "--time-scale: expected a positive number, got 0.0" in capsys.readouterr().err


@pytest.mark.docker
def test_real_calibration_of_the_minimal_package(tmp_path, capsys):
    """Four real attempts (docker sandbox, judge, store, scoring). The minimal package's
    agents are not calibrated to the seed's bands, and calibrate says so."""
    store = tmp_path / "cal.db"
    code = main(["challenge", "calibrate", "--json", "--quick", "--sandbox", "docker", "--time-scale", "60",
                 "--store", str(store), str(MINIMAL)])
    doc = json.loads(capsys.readouterr().out)
    assert code == 1 and doc["ok"] is False
    assert set(doc["scores"]) == {"naive", "standard", "elite", "reference"}
    assert all(len(v) == 1 for v in doc["runs"].values())
    assert doc["scores"]["reference"] > 85 > doc["scores"]["naive"]
    assert any(f["detail"].startswith("agents/naive.yaml: scored") for f in doc["findings"])
    ids = [i for v in doc["attempts"].values() for i in v]
    assert len(ids) == 4 and store.exists()
    assert main(["judge", ids[0], "--store", str(store), "--json"]) == 0  # stored and re-judgeable
    assert json.loads(capsys.readouterr().out)["attempt"] == ids[0]
