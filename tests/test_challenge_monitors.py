"""Issue 20 item 6: a run of a published challenge evaluates its monitors (one
monitors.json shape, read by the model that wrote it) and a challenge whose solve rate
crosses seed 003's retire threshold (0.90) is retired by them. Real attempts: the real
CLI (`gauntlet arena`, `gauntlet run`), local sandbox, a real store; the entry written by
publish's own writer and records."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
import yaml

from arena.challenge import load_challenge
from arena.pipeline.lifecycle_gate import load_monitors
from arena.pipeline.monitors import bimodality, evaluate, parse_monitors
from arena.pipeline.publish_records import (
    classify,
    hash_entries,
    lifecycle,
    metadata,
    monitors,
    package_files,
    read_entries,
)
from arena.pipeline.published import list_published, unverified_attempts, write_entry
from arena.pipeline.sealing import SealError, key_id
from attempt_kit import make_package

SOLVES = [{"overlay": "agents/fixed"}, "submit"]
KEY = bytes(range(32))


def gauntlet(*args, timeout=180):
    env = {k: v for k, v in os.environ.items() if k != "GAUNTLET_STORE"}
    return subprocess.run(
        [sys.executable, "-m", "gauntlet_tui", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )


def publish_entry(store: Path, pkg: Path, when: datetime, *, verified: bool = True) -> Path:
    """A publication as `challenge publish` writes it (same writer, same records), without
    its gates (the kit package is not calibrated; the gates have their own tests)."""
    ch = load_challenge(pkg)
    entries = read_entries(pkg, package_files(pkg))
    phash = hash_entries(entries)
    plain, sealed = classify(sorted(entries))
    cal = {
        "scores": {"naive": 60.0, "standard": 85.0, "elite": 95.0, "reference": 99.0},
        "spread": 35.0,
        "confidence": "low",
    }

    def records(version):
        meta = metadata(
            ch,
            version=version,
            now=when,
            run_id="p-test",
            calibration=cal,
            integrity={"verdict": "pass_clean", "flags": []},
            package=phash,
            key=key_id(KEY),
            sealed=sealed,
        )
        meta["calibration_verified"] = verified
        life = lifecycle(when)
        return {"metadata": meta, "lifecycle": life, "monitors": monitors(meta, life)}

    entry, _ = write_entry(
        store, ch.id, entries, plain=plain, sealed=sealed, key=KEY, package_hash=phash, records=records, stage="t"
    )
    return entry


@pytest.fixture(scope="module")
def solved(tmp_path_factory):
    """Nine attempts of nine solving agents (`gauntlet arena`), then a tenth (`gauntlet run`)."""
    tmp = tmp_path_factory.mktemp("monitors")
    agents = {f"s{i}": SOLVES for i in range(9)} | {"solver": SOLVES}
    pkg = make_package(tmp / "pkg", fmt="sprint", agents=agents, cid="kit-monitored")
    store = tmp / "g.db"
    entry = publish_entry(store, pkg, datetime.now(timezone.utc) - timedelta(minutes=5))
    plan = tmp / "plan.yaml"
    plan.write_text(
        yaml.safe_dump(
            {
                "schema": "gauntlet.plan/v1",
                "parallel": 3,
                "time_scale": 120,
                "sandbox": "local",
                "attempts": [{"challenge": str(pkg), "agents": [f"scripted:s{i}" for i in range(9)]}],
            }
        )
    )
    nine = gauntlet("arena", plan, "--headless", "--store", store, timeout=300)
    life9 = json.loads((entry / "lifecycle.json").read_text())
    tenth = gauntlet(
        "run",
        pkg,
        "--agent",
        "scripted:solver",
        "--time-scale",
        "120",
        "--sandbox",
        "local",
        "--store",
        store,
        "--headless",
    )
    return {"tmp": tmp, "pkg": pkg, "store": store, "entry": entry, "nine": nine, "life9": life9, "tenth": tenth}


def test_monitors_json_is_one_object_read_by_its_writers_model(solved):
    doc = json.loads((solved["entry"] / "monitors.json").read_text())
    assert isinstance(doc, dict) and doc["challenge"] == "kit-monitored" and doc["version"] == 1
    mons = load_monitors(solved["entry"])
    assert mons.dump() == doc and mons.interval == 10
    assert [m.metric for m in mons.monitors] == [
        "solve_rate",
        "abandonment_rate",
        "attempts",
        "score_distribution",
        "avg_score",
    ]
    with pytest.raises(ValueError, match=r"not a JSON object \(list\)"):
        parse_monitors(doc["monitors"], "monitors.json")  # the old list shape is refused, with a reason
    with pytest.raises(ValueError, match=r"key 'monitors.0.thresholds.auto_quarantine_abov'"):
        bad = json.loads(json.dumps(doc))
        bad["monitors"][0]["thresholds"]["auto_quarantine_abov"] = 0.5
        parse_monitors(bad, "monitors.json")


def test_the_runs_evaluate_the_monitors_and_the_tenth_retires_the_challenge(solved):
    nine, tenth = solved["nine"], solved["tenth"]
    assert nine.returncode == 0, nine.stdout + nine.stderr
    assert tenth.returncode == 0, tenth.stdout + tenth.stderr
    for p in (nine, tenth):
        assert "did not run" not in p.stderr and "Traceback" not in p.stderr, p.stderr
    assert "monitor_checks" not in solved["life9"] and solved["life9"]["state"] == "live"  # 9: not due
    life = json.loads((solved["entry"] / "lifecycle.json").read_text())
    [check] = life["monitor_checks"]
    assert check["attempts"] == 10 and check["solve_rate"] == 1.0 and check["abandonment_rate"] == 0.0
    assert check["avg_score"] == 100.0 and check["action"] == "retired"
    assert check["retire"] == ["solve rate 1.00 above 0.9"]
    assert life["state"] == "retired" and life["reason"] == "solve rate 1.00 above 0.9 after 10 attempts"
    assert any("drifts" in r["flag"] for r in life["review"])  # 100 vs the calibration's mean 84.75
    assert "monitors checked 10 attempts" in tenth.stderr and ": retired" in tenth.stderr


def test_a_retired_challenge_is_no_longer_admitted_or_offered_live(solved):
    again = gauntlet(
        "run",
        solved["pkg"],
        "--agent",
        "scripted:s0",
        "--time-scale",
        "120",
        "--sandbox",
        "local",
        "--store",
        solved["store"],
        "--headless",
    )
    assert again.returncode == 2 and "rule lifecycle.state" in again.stderr and "retired" in again.stderr
    [row] = list_published(solved["store"])
    assert row["state"] == "retired" and row["state_reason"].startswith("solve rate 1.00 above 0.9")
    shown = gauntlet("challenge", "published", "--store", solved["store"])
    assert "retired" in shown.stdout and "retired: solve rate 1.00 above 0.9" in shown.stdout


def test_unverified_publications_mark_their_attempts(tmp_path):
    pkg = make_package(tmp_path / "pkg", fmt="sprint", cid="kit-unverified")
    store = tmp_path / "g.db"
    t0 = datetime(2026, 3, 1, 12, 0, tzinfo=timezone.utc)
    publish_entry(store, pkg, t0, verified=False)
    rows = [
        {"id": "a-before", "challenge": "kit-unverified", "started_at": "2026-03-01T11:00:00Z"},
        {"id": "a-after", "challenge": "kit-unverified", "started_at": "2026-03-01T13:00:00+00:00"},
        {"id": "a-other", "challenge": "other", "started_at": "2026-03-01T13:00:00Z"},
    ]
    assert unverified_attempts(store, rows) == {"a-after"}
    publish_entry(store, pkg, t0 + timedelta(hours=2), verified=True)  # version 2, re-judged
    rows.append({"id": "a-v2", "challenge": "kit-unverified", "started_at": "2026-03-01T15:00:00Z"})
    assert unverified_attempts(store, rows) == {"a-after"}
    [row] = list_published(store)
    assert row["version"] == 2 and row["calibration_verified"] is True


def test_monitor_triggers_review_and_quarantine_between_thresholds(tmp_path):
    pkg = make_package(tmp_path / "pkg", fmt="sprint", cid="kit-review")
    entry = publish_entry(tmp_path / "g.db", pkg, datetime(2026, 3, 1, tzinfo=timezone.utc))
    mons, life = load_monitors(entry), json.loads((entry / "lifecycle.json").read_text())

    def rows(scores, status="finished"):
        return [{"status": status, "last_score": s} for s in scores]

    bimodal = evaluate(mons, life, rows([5.0] * 5 + [95.0] * 5))
    assert bimodal["action"] is None and any("bimodal" in f for f in bimodal["review"])
    assert bimodality([5.0] * 5 + [95.0] * 5) > 5 / 9 > bimodality([40.0, 50.0, 55.0, 60.0, 70.0])
    flat = evaluate(mons, life, rows([80.0, 82.0, 84.0, 85.0, 86.0, 87.0, 88.0, 89.0, 91.0, 92.0]))
    assert flat["action"] is None and flat["review"] == [] and flat["solve_rate"] == 0.2
    nobody = evaluate(mons, life, rows([10.0] * 10))
    assert nobody["action"] == "retired" and nobody["retire"] == ["solve rate 0.00 below 0.02"]
    quit_ = evaluate(mons, life, rows([0.0] * 8, "interrupted") + rows([95.0, 20.0]))
    assert quit_["action"] == "retired" and quit_["retire"] == ["abandonment rate 0.80 above 0.7"]
    doc = mons.dump()
    doc["monitors"][0]["thresholds"]["auto_quarantine_above"] = 0.5  # tighter than retirement's 0.90
    tight = parse_monitors(doc, "monitors.json")
    q = evaluate(tight, life, rows([95.0] * 6 + [50.0] * 4))
    assert q["action"] == "quarantined" and q["quarantine"] == ["solve rate 0.60 above 0.5"] and q["retire"] == []
    with pytest.raises(SealError, match="monitors.json: not a JSON object"):
        (entry / "monitors.json").write_text("[]")
        load_monitors(entry)
