"""gauntlet challenge generate (issue 22): seed 003 stages 1-2 offline, gate 1's 30-day
fingerprint window, the job's report, and a generated package through the real gates."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from arena.pipeline.generate.architect import architect, dump
from arena.pipeline.generate.job import ESCALATED, Job, Request
from arena.pipeline.generate.spec_gate import gate_1, recent_fingerprints
from arena.pipeline.generate.templates import library
from tests.support.published import publish_record

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=timezone.utc)


def gauntlet(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gauntlet_tui", *args], cwd=cwd, capture_output=True, text=True, timeout=900
    )


def spec(seed: int, wc: int = 2) -> dict:
    return architect(library(), category="debugging", weight_class=wc, seed=seed)


def test_spec_is_reproduced_byte_for_byte_and_passes_gate_1():
    a, b = dump(spec(7)), dump(spec(7))
    assert a == b
    assert dump(spec(8)) != a
    assert gate_1(spec(7), []) == []
    for wc in (1, 2, 3):
        assert gate_1(spec(3, wc), []) == [], wc


def test_ten_seeds_give_ten_distinct_fingerprints():
    fps = {spec(s)["challenge_spec"]["anti_repetition_fingerprint"] for s in range(1, 11)}
    assert len(fps) == 10


def test_gate_1_rejects_a_fingerprint_published_in_the_last_30_days(tmp_path):
    store = tmp_path / "g.db"
    fp = spec(1)["challenge_spec"]["anti_repetition_fingerprint"]
    near = fp.rsplit(":", 1)[0] + ":9rh"  # 5 of 6 fields: 83% similar
    publish_record(store, "recent-one", near, NOW - timedelta(days=5))
    publish_record(store, "old-one", fp, NOW - timedelta(days=40))
    recent = recent_fingerprints(store, NOW)
    assert [r[1] for r in recent] == ["recent-one"]
    found = gate_1(spec(1), recent)
    assert [f.check for f in found] == ["repetition"]
    assert "recent-one" in found[0].detail and "83%" in found[0].detail
    # The job routes the rejection back to stage 1, whose next draw is another combination.
    job = Job(
        Request(category="debugging", weight_class=2, seed=1, out=tmp_path / "o", until="spec", store=store),
        now=lambda: NOW,
    )
    assert job.run() == "passed"
    report = json.loads((tmp_path / "o" / "report.json").read_text())
    assert [a["result"] for a in report["attempts"]] == ["gate 1 rejected the spec", "done"]
    assert report["attempts"][0]["retry_stage"] == 1 and report["attempts"][1]["seed"] == 2


def test_three_rejections_escalate_with_a_report(tmp_path):
    store = tmp_path / "g.db"
    for s in (1, 2, 3):
        publish_record(
            store, f"p{s}", spec(s)["challenge_spec"]["anti_repetition_fingerprint"], NOW - timedelta(days=1)
        )
    job = Job(
        Request(category="debugging", weight_class=2, seed=1, out=tmp_path / "o", until="spec", store=store),
        now=lambda: NOW,
    )
    assert job.run() == ESCALATED
    report = json.loads((tmp_path / "o" / "report.json").read_text())
    assert report["outcome"] == ESCALATED and len(report["attempts"]) == 3 and report["retry_count"] == 2


def test_a_stage_over_its_timeout_aborts_with_the_report(tmp_path):
    job = Job(Request(category="debugging", weight_class=2, seed=1, out=tmp_path / "o", until="package", run_starter=False),
              timeouts={"builder": 0.0})  # fmt: skip
    assert job.run().startswith("aborted: stage builder exceeded")
    stages = json.loads((tmp_path / "o" / "report.json").read_text())["attempts"][0]["stages"]
    assert [(s["stage"], s["status"]) for s in stages] == [("architect", "ok"), ("builder", "timeout")]


def test_generated_package_passes_validate(tmp_path):
    r = gauntlet("challenge", "generate", "--category", "debugging", "--weight-class", "2", "--seed", "1",
                 "--out", str(tmp_path / "o"), "--until", "package", "--sandbox", "local", cwd=tmp_path)  # fmt: skip
    assert r.returncode == 0, r.stdout + r.stderr
    assert (tmp_path / "o" / "spec.yaml").is_file()
    v = gauntlet("challenge", "validate", str(tmp_path / "o" / "package"), "--json", cwd=tmp_path)
    assert v.returncode == 0, v.stdout
    assert json.loads(v.stdout)["ok"] is True
    gates = json.loads((tmp_path / "o" / "report.json").read_text())["stage_timings"]
    assert gates["architect"] is not None and gates["builder"] is not None and gates["calibrator"] is None


def test_bad_arguments_exit_2(tmp_path):
    for args in (["--category", "nope", "--weight-class", "2"], ["--category", "debugging", "--weight-class", "9"],
                 ["--category", "debugging", "--weight-class", "5"],
                 ["--category", "debugging", "--weight-class", "2", "--discriminators", "luck"]):  # fmt: skip
        r = gauntlet("challenge", "generate", *args, "--out", str(tmp_path / "o"), cwd=tmp_path)
        assert r.returncode == 2, (args, r.stderr)
        assert r.stderr.startswith("gauntlet: --") and "Traceback" not in r.stderr


def test_a_calibration_retry_with_the_offline_builder_redraws_the_spec(tmp_path, monkeypatch):
    # Gate 3 asks for stage 2; the offline Builder would rebuild the same bytes, so the job
    # goes back to stage 1 with the next seed (recorded), reproducibly from --seed.
    def rejected(self, stages, pkg, spec):
        return "gate 3 rejected the calibration", 2, spec

    monkeypatch.setattr(Job, "_gates_3_to_5", rejected)
    req = Request(
        category="debugging", weight_class=2, seed=1, out=tmp_path / "o", until="calibrate", run_starter=False
    )
    assert Job(req).run() == ESCALATED
    attempts = json.loads((tmp_path / "o" / "report.json").read_text())["attempts"]
    assert [(a["seed"], a["from_stage"]) for a in attempts] == [(1, 1), (2, 1), (3, 1)]
    assert [(a["retry_stage_asked"], a["retry_stage"]) for a in attempts] == [(2, 1)] * 3
    fps = {a["stages"][0]["outputs"]["fingerprint"] for a in attempts}
    assert len(fps) == 3


@pytest.mark.slow
def test_generated_package_passes_gates_3_to_5_and_lineage_has_the_job(tmp_path):
    """The issue's command through every gate (one run per agent, local sandbox) and
    published: the first attempt's package calibrates, the audit's check 4.7 flags a
    publication 80 days old that is 67% alike (one flag: still published), and gate 5's
    lineage.json has the job's stage timings, retry count and spec hash."""
    from arena.pipeline.published import read_record  # noqa: PLC0415

    store = tmp_path / "g.db"
    f = spec(1)["challenge_spec"]["anti_repetition_fingerprint"].split(":")
    publish_record(store, "older", ":".join(f[:4] + ["other", "9rh"]), datetime.now(timezone.utc) - timedelta(days=80))
    r = gauntlet("challenge", "generate", "--category", "debugging", "--weight-class", "2", "--seed", "1",
                 "--out", str(tmp_path / "o"), "--publish", "--store", str(store), "--sandbox", "local", "--quick",
                 cwd=tmp_path)  # fmt: skip
    report = json.loads((tmp_path / "o" / "report.json").read_text())
    assert r.returncode == 0, r.stdout[-3000:] + json.dumps(report["attempts"][-1], default=str)[-3000:]
    assert report["outcome"] == "passed" and len(report["attempts"]) == 1
    stages = {s["stage"]: s for s in report["attempts"][0]["stages"]}
    scores = stages["calibrator"]["outputs"]["scores"]
    assert scores["reference"] > scores["elite"] > scores["standard"] > scores["naive"]
    audit = stages["auditor"]
    assert audit["inputs"]["recent_fingerprints_90d"] == 1 and audit["outputs"]["verdict"] == "pass_with_flags"
    assert [x["check"] for x in audit["findings"] if x["severity"] == "warning"] == ["repetition"]
    entry = Path(stages["publisher"]["outputs"]["entry"])
    lin = read_record(entry, "lineage")
    spec_bytes = (tmp_path / "o" / "spec.yaml").read_bytes()
    assert lin["spec_hash"] == "sha256:" + __import__("hashlib").sha256(spec_bytes).hexdigest()
    assert lin["retry_count"] == 0 and lin["template_id"] == "boundary-batches"
    for stage in ("architect", "builder", "calibrator", "auditor", "publisher"):
        assert isinstance(lin["stage_timings"][stage], float), (stage, lin["stage_timings"])
    assert lin["stage_timings"]["calibrator"] == report["stage_timings"]["calibrator"]
