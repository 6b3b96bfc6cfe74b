"""`gauntlet challenge list [--summary] [--json]` (issue 39 item 6): bundled, generated and
published challenges with category, format, class and calibrated or not; the summary's
format mix against seed 000's 20/65/15 and each class's category coverage (seed 002).
Expected values are computed here from the manifests and files, never copied from output."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import yaml

from arena.challenge import bundled_challenges, load_challenge
from arena.challenge.content import package_hash
from arena.formats import CATEGORIES, WEIGHT_CLASSES
from arena.pipeline.catalogue import bundled
from arena.pipeline.publish_records import classify, hash_entries, lifecycle, metadata, package_files, read_entries
from arena.pipeline.published import write_entry
from gauntlet_tui.cli import main

MINIMAL = Path(__file__).parent / "fixtures" / "minimal"
RECORDS = Path(__file__).resolve().parents[1] / "arena" / "bundled" / "calibrations.json"


def _manifest(pkg: Path) -> dict:
    return yaml.safe_load((pkg / "challenge.yaml").read_text())


def _run(*args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "GAUNTLET_STORE"}
    res = subprocess.run(
        [sys.executable, "-m", "gauntlet_tui", "challenge", "list", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert "Traceback" not in res.stderr + res.stdout, res.stderr
    return res


def test_list_of_the_bundled_with_summary_as_json_and_text(tmp_path):
    store = tmp_path / "g.db"
    res = _run("--summary", "--json", "--store", str(store))
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    rows = {r["id"]: r for r in doc["challenges"]}
    records = json.loads(RECORDS.read_text())
    pkgs = bundled_challenges()
    assert set(rows) == {_manifest(p)["id"] for p in pkgs}
    for p in pkgs:
        m, r = _manifest(p), rows[_manifest(p)["id"]]
        assert (r["source"], r["category"], r["format"], r["weight_class"]) == (
            "bundled",
            m["category"],
            m["format"],
            m["weight_class"],
        )
        rec = records.get(m["id"])
        want = rec is not None and rec["package_hash"] == package_hash(p) and set(rec["backends"].values()) == {0}
        assert r["calibrated"] is want, (m["id"], r["calibration"])
    s = doc["summary"]
    n = len(pkgs)
    assert s["challenges"] == n and s["by_source"] == {"bundled": n, "generated": 0, "published": 0}
    for f, target in (("sprint", 0.20), ("standard", 0.65), ("marathon", 0.15)):
        count = sum(1 for p in pkgs if _manifest(p)["format"] == f)
        assert s["format_mix"][f]["count"] == count and s["format_mix"][f]["target"] == target
        assert abs(s["format_mix"][f]["off_by"] - (count / n - target)) < 1e-3
    for wc in WEIGHT_CLASSES:
        cats = {_manifest(p)["category"] for p in pkgs if _manifest(p)["weight_class"] == wc}
        c = s["classes"][wc]
        assert c["covered"] == len(cats) and set(c["missing_categories"]) == set(CATEGORIES) - cats
        assert c["categories_needed"] == (10 if wc == "contender" else 6)
    assert set(s["categories_without_any"]) == set(CATEGORIES) - {_manifest(p)["category"] for p in pkgs}
    assert not store.with_name("g.db.d").exists()  # reading only
    text = _run("--summary", "--store", str(store))
    assert text.returncode == 0
    assert "20% Sprint, 65% Standard, 15% Marathon" in text.stdout
    for p in pkgs:
        assert any(line.startswith(p.name) and _manifest(p)["category"] in line for line in text.stdout.splitlines())
    for wc in WEIGHT_CLASSES:
        line = next(x for x in text.stdout.splitlines() if x.strip().startswith(wc))
        c = s["classes"][wc]
        assert f"{c['covered']:>2}/{c['categories_needed']:<2}" in line
        assert ("short" in line) == (c["covered"] < c["categories_needed"])


def _generated(out: Path, *, calibrator: str | None, category: str, fmt: str, cid: str) -> Path:
    shutil.copytree(MINIMAL, out / "package", symlinks=True)
    m = _manifest(out / "package")
    m.update(id=cid, category=category, format=fmt)
    if fmt == "standard":
        m.update(time_limit="30m", iterations=3)
    (out / "package" / "challenge.yaml").write_text(yaml.safe_dump(m, sort_keys=False))
    stages = [{"stage": "architect", "status": "ok"}, {"stage": "builder", "status": "ok"}]
    if calibrator:
        stages.append({"stage": "calibrator", "status": calibrator, "outputs": {"spread": 26.0}})
    report = {
        "outcome": "passed" if calibrator == "ok" else "escalated to human review",
        "attempts": [{"stages": stages}],
    }
    (out / "report.json").write_text(json.dumps(report))
    return out


def _publish(store: Path, pkg: Path, *, verified: bool) -> None:
    ch = load_challenge(pkg)
    rels = package_files(pkg)
    entries = read_entries(pkg, rels)
    plain, sealed = classify(rels)
    now = datetime(2026, 12, 7, tzinfo=timezone.utc)
    cal = {"scores": {"reference": 98, "elite": 94, "standard": 86, "naive": 68}, "spread": 26, "confidence": "high"}

    def records(v: int) -> dict:
        meta = metadata(ch, version=v, now=now, run_id="t", calibration=cal, integrity={"verdict": "pass", "flags": []},
                        package=hash_entries(entries), key="k", sealed=sealed)  # fmt: skip
        return {"metadata": {**meta, "calibration_verified": verified}, "lifecycle": lifecycle(now)}

    write_entry(store, ch.manifest.id, entries, plain=plain, sealed=sealed, key=os.urandom(32),
                package_hash=hash_entries(entries), records=records, stage="t")  # fmt: skip


def test_generated_and_published_are_listed_and_counted_once(tmp_path, capsys):
    store = tmp_path / "g.db"
    gen = tmp_path / "gen"
    _generated(gen / "a", calibrator="ok", category="recovery", fmt="standard", cid="gen-a")
    _generated(gen / "b", calibrator=None, category="forensic-reasoning", fmt="sprint", cid="gen-b")
    # The TUI's generate screen writes under <store>.d/generated/.
    _generated(store.with_name("g.db.d") / "generated" / "c", calibrator="rejected", category="recovery",
               fmt="standard", cid="gen-c")  # fmt: skip
    _publish(store, gen / "a" / "package", verified=False)  # a generated one, published: one challenge
    _publish(store, bundled_challenges()[0], verified=True)
    assert main(["challenge", "list", "--summary", "--json", "--store", str(store), "--generated", str(gen)]) == 0
    doc = json.loads(capsys.readouterr().out)
    rows = {(r["id"], r["source"]): r for r in doc["challenges"]}
    assert rows[("gen-a", "generated")]["calibrated"] is True
    assert rows[("gen-a", "generated")]["category"] == "recovery"
    assert rows[("gen-b", "generated")]["calibrated"] is False
    assert "before gate 3" in rows[("gen-b", "generated")]["calibration"]
    assert (
        rows[("gen-c", "generated")]["calibrated"] is False
        and "rejected" in rows[("gen-c", "generated")]["calibration"]
    )
    pub = rows[("gen-a", "published")]
    assert pub["calibrated"] is True and "unverified" in pub["calibration"] and pub["state"] == "live"
    assert pub["format"] == "standard"
    first = _manifest(bundled_challenges()[0])["id"]
    assert "verified at publish" in rows[(first, "published")]["calibration"]
    s = doc["summary"]
    n_bundled = len(bundled_challenges())
    assert s["by_source"] == {"bundled": n_bundled, "generated": 3, "published": 2}
    assert s["challenges"] == n_bundled + 3  # published copies of listed ids count once
    assert s["classes"]["lightweight"]["categories"]["recovery"] == 2
    assert s["classes"]["lightweight"]["categories"]["forensic-reasoning"] == 1
    # Rows come grouped by category in seed 000's order.
    order = [CATEGORIES.index(r["category"]) for r in doc["challenges"]]
    assert order == sorted(order)


def test_a_bundled_calibration_record_goes_stale_when_the_package_changes(tmp_path):
    root = tmp_path / "bundled"
    pkg = root / "tiny-add"
    shutil.copytree(MINIMAL, pkg, symlinks=True)
    rec = {"package_hash": package_hash(pkg), "measured_at": "2026-12-07", "backends": {"local": 0, "docker": 0}}
    (root / "calibrations.json").write_text(json.dumps({"tiny-add": rec}))
    [e] = bundled(root)
    assert e.calibrated is True and "2026-12-07" in e.calibration
    (pkg / "briefing.md").write_text((pkg / "briefing.md").read_text() + "\nchanged\n")
    [e] = bundled(root)
    assert e.calibrated is False and e.calibration.startswith("stale")
    (root / "calibrations.json").write_text(json.dumps({"tiny-add": {**rec, "package_hash": package_hash(pkg),
                                                                     "backends": {"local": 0, "docker": 1}}}))  # fmt: skip
    [e] = bundled(root)
    assert e.calibrated is False and "docker" in e.calibration
    (root / "calibrations.json").unlink()
    [e] = bundled(root)
    assert e.calibrated is False and "no record" in e.calibration


def test_a_missing_generated_dir_is_exit_2_naming_it(tmp_path, capsys):
    assert main(["challenge", "list", "--generated", str(tmp_path / "nope")]) == 2
    err = capsys.readouterr().err
    assert "--generated" in err and "nope" in err and "Traceback" not in err
