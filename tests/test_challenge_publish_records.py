"""Pure parts of `challenge publish`: gate 3 judged again from a calibration report,
asset classes, lifecycle dates, and concurrent writers of entries and keys."""

from __future__ import annotations

import json
import os
import threading
from datetime import datetime, timezone
from pathlib import PurePosixPath

from arena.challenge import load_challenge
from arena.pipeline.publishing import calibration_findings, parse_calibration
from arena.pipeline.publish_records import asset_class, hash_entries, lifecycle, package_hash
from arena.pipeline.published import open_published, write_entry
from arena.pipeline.sealing import key_id
from test_challenge_publish import MINIMAL, PASSING_RUNS, report_doc


# ---- gate 3 judged from the report (pure) ---------------------------------------------------


def test_report_scores_are_judged_again_not_trusted():
    ch = load_challenge(MINIMAL)
    phash = package_hash(MINIMAL)
    # verify=False: the bands alone (re-judging the stored attempts: test_challenge_publish_forged.py)
    ok = calibration_findings(ch, parse_calibration(report_doc(package_hash=phash), "r.json"), phash, verify=False)
    assert not any(f.severity == "error" for f in ok)
    # The minimal package's real quick calibration, edited to claim ok: the bands still fail it.
    real = {"naive": [28.9], "standard": [79.0], "elite": [79.6], "reference": [92.5]}
    bad = calibration_findings(ch, parse_calibration(report_doc(runs=real, package_hash=phash), "r.json"), phash)
    details = [f.detail for f in bad if f.severity == "error"]
    assert any("naive.yaml: scored 28.9: expected 60-80" in d for d in details)
    assert any("standard.yaml: scored 79: expected 80-95" in d for d in details)
    flaky = dict(PASSING_RUNS, elite=[94.0, 82.0, 95.0])
    assert any(
        f.check == "flakiness" for f in calibration_findings(ch, parse_calibration(report_doc(runs=flaky), "r"), phash)
    )


def test_report_of_another_package_or_agent_missing_is_an_error():
    ch = load_challenge(MINIMAL)
    phash = package_hash(MINIMAL)
    other = calibration_findings(ch, parse_calibration(report_doc(challenge="off-by-one"), "r.json"), phash)
    assert [f.check for f in other] == ["calibration_report"] and "expected one of 'tiny-add'" in other[0].detail
    stale = calibration_findings(ch, parse_calibration(report_doc(package_hash="sha256:00"), "r.json"), phash)
    assert any(f.severity == "error" and "calibrate it again" in f.detail for f in stale)
    runs = {a: r for a, r in PASSING_RUNS.items() if a != "naive"}
    missing = calibration_findings(ch, parse_calibration(report_doc(runs=runs), "r.json"), phash)
    assert any(f.severity == "error" and "no score for the naive agent" in f.detail for f in missing)
    broken = report_doc(
        findings=[
            {"severity": "error", "check": "calibration", "detail": "agents/elite.yaml: attempt a-1 ended interrupted"}
        ]
    )
    assert any("ended interrupted" in f.detail for f in calibration_findings(ch, parse_calibration(broken, "r"), phash))


def test_asset_classes_seal_all_but_briefing_and_starter():
    assert asset_class("briefing.md") is None and asset_class("starter/src/a.py") is None
    assert asset_class("challenge.yaml") == "challenge_manifest"
    assert asset_class("solution/calc.py") == asset_class("agents/fix/calc.py") == "reference_solution"
    assert asset_class("tests/hidden/t.py") == asset_class("phases/2/tests/adversarial/t.py") == "hidden_tests"
    assert asset_class("tests/static/t.py") == asset_class("phases/3/tests/static/t.py") == "judge_configs"
    assert asset_class("phases/2/briefing.md") == asset_class("NOTES.txt") == "withheld"


def test_lifecycle_dates_from_the_injected_clock():
    now = datetime(2026, 3, 27, 14, 32, tzinfo=timezone.utc)
    life = lifecycle(now)
    assert (life["published_at"], life["expires_at"]) == ("2026-03-27T14:32:00Z", "2026-04-03T14:32:00Z")


def test_concurrent_publishers_get_distinct_versions(tmp_path):
    entries = {"challenge.yaml": b"id: x\n", "starter/a.py": b"x = 1\n", "starter/link": PurePosixPath("a.py")}
    phash = hash_entries(entries)
    key = os.urandom(32)
    got: list[int] = []

    def one(i: int) -> None:
        def records(v: int) -> dict:
            return {
                "metadata": {
                    "id": "x",
                    "version": v,
                    "package_hash": phash,
                    "sealed": {"key_id": key_id(key), "assets": {"challenge_manifest": 1}},
                }
            }

        _, v = write_entry(
            tmp_path / "s.db",
            "x",
            entries,
            plain=["starter/a.py", "starter/link"],
            sealed={"challenge_manifest": ["challenge.yaml"]},
            key=key,
            package_hash=phash,
            records=records,
            stage=f"t{i}",
        )
        got.append(v)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(got) == [1, 2, 3, 4, 5, 6]
    for v in got:
        entry = tmp_path / "s.db.d" / "published" / "x" / str(v)
        assert json.loads((entry / "metadata.json").read_text())["version"] == v
        assert open_published(entry, key) == entries  # the symlink comes back as a link


def test_concurrent_first_publishers_share_one_key(tmp_path, monkeypatch):
    from arena.pipeline.sealing import load_key

    monkeypatch.delenv("GAUNTLET_PUBLISH_KEY", raising=False)
    keys: list[bytes] = []
    threads = [threading.Thread(target=lambda: keys.append(load_key(tmp_path / "s.db.d")[0])) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(keys) == 8 and len(set(keys)) == 1
    assert sorted(p.name for p in (tmp_path / "s.db.d").iterdir()) == ["publish.key"]  # no temp files left
