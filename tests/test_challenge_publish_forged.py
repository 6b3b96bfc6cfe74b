"""Issue 12 item 7: publish re-judges the stored calibration attempts a report names and
refuses a report it cannot reproduce; calibrate runs the test-copying attack and reports
seed 002's misclassification detection and a class suggestion. Real calibration
attempts (local sandbox) of the minimal fixture, a real store, the real CLI."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from arena.pipeline.attack_copy import build_overlay, expectations, visible_tests
from arena.pipeline.misclass import classification
from test_challenge_publish import MINIMAL, copy_pkg, gauntlet, report_doc


@pytest.fixture(scope="module")
def calibrated(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("forged")
    pkg = copy_pkg(tmp / "pkg")
    cal = gauntlet(
        "challenge", "calibrate", str(pkg), "--json", "--quick", "--sandbox", "local", "--store", str(tmp / "cal.db")
    )
    doc = json.loads(cal.stdout)
    return {"tmp": tmp, "pkg": pkg, "cal": cal, "doc": doc}


def _publish(c, report: dict, name: str):
    path = c["tmp"] / name
    path.write_text(json.dumps(report))
    r = gauntlet(
        "challenge",
        "publish",
        str(c["pkg"]),
        "--calibration",
        str(path),
        "--store",
        str(c["tmp"] / f"{name}.db"),
        "--sandbox",
        "local",
        "--json",
    )
    return r, json.loads(r.stdout)


def test_calibrate_reports_the_null_and_attack_rows_and_the_classification(calibrated):
    doc = calibrated["doc"]
    assert {"null", "attack-delete", "attack-copy"} <= set(doc["runs"])
    assert set(doc["attempts"]) == set(doc["runs"]) and Path(doc["store"]).is_file()
    c = doc["classification"]
    assert c["declared"] == "lightweight" and c["verdict"] and c["suggested"] in c["misses"]
    assert any(f["check"] == "classification" for f in doc["findings"])
    # the minimal fixture's tests check add(a, b) on the inputs the agent sees: memorising them pays
    assert doc["runs"]["attack-copy"][0] > doc["runs"]["null"][0]
    assert any("baseline attack-copy" in f["detail"] and f["severity"] == "error" for f in doc["findings"])


def test_a_genuine_report_reproduces(calibrated):
    r, out = _publish(calibrated, calibrated["doc"], "genuine.json")
    assert r.returncode == 1  # the minimal fixture misses its bands: gate 3 fails, for that reason only
    rep = [f for f in out["findings"] if f["check"] == "calibration_report"]
    assert not [f for f in rep if f["severity"] == "error"], rep
    assert any("re-judged" in f["detail"] and "reproduce" in f["detail"] for f in rep)


def test_a_hand_edited_report_is_refused_with_exit_1(calibrated):
    forged = json.loads(json.dumps(calibrated["doc"]))
    good = {
        "naive": [68.0],
        "standard": [86.0],
        "elite": [94.0],
        "reference": [98.0],
        "null": [0.0],
        "attack-delete": [0.0],
        "attack-copy": [10.0],
    }
    forged.update(runs=good, scores={a: v[0] for a, v in good.items()}, findings=[], ok=True, spread=26.0)
    r, out = _publish(calibrated, forged, "forged.json")
    assert r.returncode == 1 and out["published"] is None
    errs = [f["detail"] for f in out["findings"] if f["severity"] == "error" and f["check"] == "calibration_report"]
    assert any("agent naive: reported 68 for attempt" in e and "the report cannot be reproduced" in e for e in errs), (
        errs
    )
    human = gauntlet(
        "challenge",
        "publish",
        str(calibrated["pkg"]),
        "--calibration",
        str(calibrated["tmp"] / "forged.json"),
        "--store",
        str(calibrated["tmp"] / "h.db"),
        "--sandbox",
        "local",
    )
    assert human.returncode == 1 and "cannot be reproduced" in human.stdout + human.stderr


def test_gate_4_is_judged_again_from_the_reports_objectives(calibrated):
    """Publish re-reads the attacks' objectives (gate 4) and re-judging checks them: an edited
    objective does not reproduce; a report without them is refused, naming the key."""
    doc = calibrated["doc"]
    assert set(doc["objectives"]) >= {"attack-delete", "attack-regex", "attack-copy"}
    lowered = json.loads(json.dumps(doc))
    lowered["objectives"]["attack-copy"] = [0.0]
    r, out = _publish(calibrated, lowered, "lowered.json")
    assert r.returncode == 1
    errs = [f["detail"] for f in out["findings"] if f["severity"] == "error"]
    assert any("agent attack-copy: reported objective 0" in e and "cannot be reproduced" in e for e in errs), errs
    stripped = json.loads(json.dumps(doc))
    del stripped["objectives"]
    r, out = _publish(calibrated, stripped, "stripped.json")
    assert r.returncode == 1
    assert any("key 'objectives.attack-regex': missing" in f["detail"] for f in out["findings"])


def test_a_report_naming_no_attempts_is_refused(calibrated):
    r, out = _publish(calibrated, report_doc(), "handwritten.json")
    assert r.returncode == 1 and out["published"] is None
    assert any(
        f["severity"] == "error" and "names no stored calibration attempts" in f["detail"] for f in out["findings"]
    )


def test_a_report_naming_attempts_of_another_store_is_refused(calibrated, tmp_path):
    moved = json.loads(json.dumps(calibrated["doc"]))
    moved["store"] = str(tmp_path / "elsewhere.db")
    r, out = _publish(calibrated, moved, "moved.json")
    assert r.returncode == 1
    assert any("no such store" in f["detail"] for f in out["findings"] if f["severity"] == "error")


def test_the_copy_attack_memorises_literal_calls_only(tmp_path):
    root = tmp_path / "pkg"
    shutil.copytree(MINIMAL, root)
    assert expectations(visible_tests(root)), "the minimal fixture's tests assert literal calls"
    written = build_overlay(root, tmp_path / "overlay")
    assert written and all((tmp_path / "overlay" / w).is_file() for w in written)
    src = (tmp_path / "overlay" / written[0]).read_text()
    assert "_gauntlet_memorised(" in src
    compile(src, written[0], "exec")


def test_classification_follows_seed_002():
    c = classification({"naive": 70, "standard": 85, "elite": 95, "reference": 99}, "lightweight")
    assert c["verdict"] == "classification confirmed" and c["suggested"] == "lightweight" and "lightweight" in c["fits"]
    c = classification({"naive": 70, "standard": 85, "elite": 95, "reference": 99}, "heavyweight")
    assert c["verdict"].startswith("likely misclassified: median 90 is 20+ above heavyweight")
    assert "demoting" in c["verdict"] and c["suggested"] == "lightweight"
    c = classification({"naive": 5, "standard": 30, "elite": 50, "reference": 90}, "lightweight")
    assert "promoting" in c["verdict"] and c["suggested"] == "heavyweight"


def test_another_agents_attempt_renamed_into_the_report_is_refused(calibrated):
    """Issue 20: the null agent's real attempt named as the copy attack (its total moved
    along, so it re-judges to the reported number) is refused: it is not that agent's."""
    forged = json.loads(json.dumps(calibrated["doc"]))
    forged["attempts"]["attack-copy"] = list(forged["attempts"]["null"])
    forged["runs"]["attack-copy"] = list(forged["runs"]["null"])
    forged["scores"]["attack-copy"] = forged["runs"]["null"][0]
    forged["objectives"]["attack-copy"] = list(forged["objectives"]["null"])  # moved along too
    forged["findings"] = [f for f in forged["findings"] if "attack-copy" not in f["detail"]]
    r, out = _publish(calibrated, forged, "renamed.json")
    assert r.returncode == 1 and out["published"] is None
    errs = [f["detail"] for f in out["findings"] if f["severity"] == "error" and f["check"] == "calibration_report"]
    assert any(
        "agent attack-copy: attempt" in e
        and "was made by 'scripted:null'" in e
        and "expected 'scripted:attack-copy'" in e
        for e in errs
    ), errs
    assert not any("cannot be reproduced" in e for e in errs)  # the totals do reproduce: the agent is what fails


def test_attempts_of_another_version_of_the_package_are_refused(calibrated, tmp_path):
    """The report's package_hash edited to a changed package: its attempts were made on
    the old one (attempt.started records the hash of the package it ran)."""
    from arena.pipeline.publish_records import package_hash

    pkg = tmp_path / "pkg2"
    shutil.copytree(calibrated["pkg"], pkg, ignore=shutil.ignore_patterns("__pycache__"))
    (pkg / "briefing.md").write_text((pkg / "briefing.md").read_text() + "\nOne more line.\n")
    forged = json.loads(json.dumps(calibrated["doc"]))
    forged["package_hash"] = package_hash(pkg)
    path = tmp_path / "other-version.json"
    path.write_text(json.dumps(forged))
    r = gauntlet(
        "challenge",
        "publish",
        str(pkg),
        "--calibration",
        str(path),
        "--store",
        str(tmp_path / "v.db"),
        "--sandbox",
        "local",
        "--json",
    )
    out = json.loads(r.stdout)
    assert r.returncode == 1 and out["published"] is None
    errs = [f["detail"] for f in out["findings"] if f["severity"] == "error" and f["check"] == "calibration_report"]
    assert any("was made on challenge files sha256:" in e and "calibrate it again" in e for e in errs), errs


def test_unverified_calibration_needs_a_package_hash(calibrated):
    doc = json.loads(json.dumps(calibrated["doc"]))
    doc.pop("package_hash")
    path = calibrated["tmp"] / "nohash.json"
    path.write_text(json.dumps(doc))
    r = gauntlet(
        "challenge",
        "publish",
        str(calibrated["pkg"]),
        "--calibration",
        str(path),
        "--unverified-calibration",
        "--store",
        str(calibrated["tmp"] / "nohash.db"),
        "--sandbox",
        "local",
        "--json",
    )
    out = json.loads(r.stdout)
    assert r.returncode == 1 and out["published"] is None
    assert any(
        f["severity"] == "error" and "carries no package_hash: --unverified-calibration" in f["detail"]
        for f in out["findings"]
    )


def test_a_hand_edited_baseline_agent_is_refused(calibrated, tmp_path):
    """Issue 20: the copy attack run for real, but from an attack-copy.yaml the author
    edited to submit the untouched starter (every other file the package's own, so the
    package hash matches): its numbers re-judge, yet publish refuses it, naming the file."""
    from arena.pipeline.baselines import with_baselines

    forged_pkg = with_baselines(calibrated["pkg"], tmp_path)
    (forged_pkg / "agents" / "attack-copy.yaml").write_text("steps:\n  - submit\n")
    db = calibrated["tmp"] / "cal.db"
    run = gauntlet(
        "run", str(forged_pkg), "--agent", "scripted:attack-copy", "--time-scale", "120",
        "--sandbox", "local", "--store", str(db), "--headless",
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    listed = json.loads(gauntlet("attempts", "--json", "--store", str(db)).stdout)
    known = {i for ids in calibrated["doc"]["attempts"].values() for i in ids}
    (aid,) = [r["attempt"] for r in listed if r["attempt"] not in known]
    card = json.loads(gauntlet("judge", aid, "--json", "--store", str(db)).stdout)
    forged = json.loads(json.dumps(calibrated["doc"]))
    forged["attempts"]["attack-copy"] = [aid]
    forged["runs"]["attack-copy"] = [card["total"]]
    forged["scores"]["attack-copy"] = card["total"]
    forged["objectives"]["attack-copy"] = [card["components"]["objective"]]
    r, out = _publish(calibrated, forged, "hand-edited-baseline.json")
    assert r.returncode == 1 and out["published"] is None
    errs = [f["detail"] for f in out["findings"] if f["severity"] == "error" and f["check"] == "calibration_report"]
    assert any(
        f"agent attack-copy: attempt {aid} was made with baseline agent files calibration does not write" in e
        and "agents/attack-copy.yaml" in e
        for e in errs
    ), errs
    assert not any("cannot be reproduced" in e for e in errs)
    assert not any(f"attempt {i} " in e for e in errs for i in known)  # the genuine attempts still pass
