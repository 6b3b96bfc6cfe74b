"""Issue 12 item 8: a published challenge's lifecycle refuses attempts (expiry, instance
cap, 24 h cooldown, quarantine) with a UsageError naming the rule; the monitors run
every 10 finished attempts and quarantine or retire. Records as publish writes them
(publish_records.lifecycle / monitors); time injected."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest

from arena.errors import UsageError
from arena.pipeline.lifecycle_gate import admit, newest_entry, run_monitors
from arena.pipeline.publish_records import iso, lifecycle, monitors

T0 = datetime(2026, 1, 5, 12, 0, tzinfo=timezone.utc)


@pytest.fixture
def entry(tmp_path):
    e = tmp_path / "arena.db.d" / "published" / "tiny-add" / "1"
    e.mkdir(parents=True)
    life = lifecycle(T0)
    (e / "metadata.json").write_text("{}")
    (e / "lifecycle.json").write_text(json.dumps(life))
    meta = {"calibration_scores": {"naive": 60, "standard": 85, "elite": 95, "reference": 99}}
    (e / "monitors.json").write_text(json.dumps(monitors(dict(meta, id="tiny-add", version=1), life)))
    return e


def row(i, agent="a", status="finished", score=50.0, at=T0):
    return {
        "id": f"a-{i}",
        "challenge": "tiny-add",
        "agent": agent,
        "status": status,
        "last_score": score,
        "started_at": iso(at),
    }


def test_a_live_challenge_admits_and_the_entry_is_found(entry, tmp_path):
    assert newest_entry(tmp_path / "arena.db", "tiny-add") == entry
    admit(entry, "scripted:elite", [row(1, agent="other")], T0 + timedelta(hours=1))


def test_past_its_expiry_is_refused(entry):
    with pytest.raises(UsageError, match=r"expired at .*rule lifecycle.expires_at"):
        admit(entry, "a", [], T0 + timedelta(weeks=1))


def test_over_the_instance_cap_is_refused(entry):
    running = [row(i, agent=f"x{i}", status="running", at=T0 - timedelta(days=2)) for i in range(100)]
    admit(entry, "a", running[:99], T0 + timedelta(hours=1))
    with pytest.raises(UsageError, match=r"100 attempts running, at its cap of 100: rule lifecycle.max_instances"):
        admit(entry, "a", running, T0 + timedelta(hours=1))


def test_inside_the_24h_cooldown_is_refused_and_after_it_admitted(entry):
    rows = [row(1, agent="a", at=T0 + timedelta(hours=1))]
    with pytest.raises(UsageError, match=r"agent a started attempt a-1 .*rule lifecycle.cooldown_period_s \(86400 s"):
        admit(entry, "a", rows, T0 + timedelta(hours=20))
    admit(entry, "b", rows, T0 + timedelta(hours=20))  # another agent
    admit(entry, "a", rows, T0 + timedelta(hours=25))  # cooled down


def test_monitors_run_every_10_attempts_and_quarantine_blocks(entry):
    rows = [row(i, agent=f"x{i}", score=100.0) for i in range(9)]
    assert run_monitors(entry, rows, T0) is None  # 9: not due
    rows.append(row(9, agent="x9", score=100.0))
    check = run_monitors(entry, rows, T0)
    # seed 003: retire_if_solve_rate_above 0.90 (the solve-rate monitor's quarantine threshold
    # is the same number; retirement, the stronger state, acts)
    assert check["attempts"] == 10 and check["solve_rate"] == 1.0 and check["action"] == "retired"
    assert check["retire"] == ["solve rate 1.00 above 0.9"] and check["quarantine"] == ["solve rate 1.00 above 0.9"]
    assert run_monitors(entry, rows, T0) is None  # checked at 10 already
    with pytest.raises(
        UsageError, match=r"retired \(solve rate 1.00 above 0.9 after 10 attempts\): rule lifecycle.state"
    ):
        admit(entry, "new", [], T0 + timedelta(hours=1))


def test_monitors_leave_a_healthy_challenge_live(entry):
    rows = [row(i, agent=f"x{i}", score=95.0 if i < 3 else 40.0) for i in range(10)]
    check = run_monitors(entry, rows, T0)
    assert check["action"] is None and check["solve_rate"] == 0.3
    admit(entry, "new", rows, T0 + timedelta(hours=1))


def test_monitors_retire_on_abandonment(entry):
    rows = [row(i, agent=f"x{i}", status="abandoned" if i < 8 else "finished", score=95.0) for i in range(10)]
    check = run_monitors(entry, rows, T0)
    assert check["action"] == "retired" and check["abandonment_rate"] == 0.8
    with pytest.raises(UsageError, match=r"retired .*rule lifecycle.state"):
        admit(entry, "new", [], T0)


def test_gauntlet_run_refuses_a_quarantined_published_challenge(tmp_path):
    """The gate is wired into `gauntlet run`: exit 2, the rule named, nothing started."""
    import subprocess
    import sys
    from pathlib import Path

    store = tmp_path / "g.db"
    e = tmp_path / "g.db.d" / "published" / "off-by-one" / "1"
    e.mkdir(parents=True)
    life = dict(lifecycle(T0), state="quarantined", reason="solve rate 0.97 above 0.95")
    (e / "metadata.json").write_text("{}")
    (e / "lifecycle.json").write_text(json.dumps(life))
    (e / "monitors.json").write_text(json.dumps({"challenge": "off-by-one", "version": 1, "monitors": []}))
    root = Path(__file__).resolve().parents[1]
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "gauntlet_tui",
            "run",
            "off-by-one",
            "--agent",
            "scripted:naive",
            "--headless",
            "--sandbox",
            "local",
            "--store",
            str(store),
        ],
        capture_output=True,
        text=True,
        cwd=root,
        timeout=120,
    )
    assert p.returncode == 2, p.stdout + p.stderr
    assert "rule lifecycle.state" in p.stderr and "Traceback" not in p.stderr
    assert not store.exists() or "a-" not in p.stdout
