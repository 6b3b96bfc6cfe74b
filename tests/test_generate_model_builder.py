"""Issue 22 item 2, the model builder: `gauntlet challenge generate --builder mini-swe-agent
--model openai/fake-model` runs the real mini-swe-agent package as an attempt in the local
sandbox, through the gateway, against the tests' fake provider replaying a builder agent's
recorded work (tests/fakes/scripts/builder_*.yaml: it writes the package with shell
heredocs). A good recording gives a package that passes gates 1-2; a broken one is routed
back to stage 2 three times and the job ends "escalated to human review" with its report."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from arena.pipeline.publish_records import package_hash

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "fakes"))  # the fake provider
sys.path.insert(0, str(ROOT / "tests" / "realagents"))  # e2e_kit's backends
from e2e_kit import BACKENDS  # noqa: E402

SCRIPTS = ROOT / "tests" / "fakes" / "scripts"
HOST_KEY = "sk-host-builder-5e4d3c2b1a"


def _cli(*args: str, env: dict[str, str] | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "gauntlet_tui", *args],
        env=env or dict(os.environ),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _generate(
    tmp: Path, script: str, sandbox: str = "local"
) -> tuple[subprocess.CompletedProcess, list[dict], Path, Path]:
    from provider import FakeProvider

    out, db = tmp / "gen", tmp / "g.db"
    with FakeProvider.from_yaml(SCRIPTS / script) as fp:
        env = dict(os.environ, OPENAI_BASE_URL=fp.base_url, OPENAI_API_KEY=HOST_KEY, GAUNTLET_SOCKETS=str(tmp / "s"))
        run = _cli(
            "challenge", "generate", "--category", "debugging", "--weight-class", "2", "--seed", "1",
            "--out", str(out), "--until", "package", "--sandbox", sandbox, "--store", str(db),
            "--builder", "mini-swe-agent", "--model", "openai/fake-model", env=env,
        )  # fmt: skip
        requests = list(fp.requests)
    return run, requests, out, db


def _calls(transcript: Path) -> list[dict]:
    with gzip.open(transcript, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


@pytest.mark.parametrize("sandbox", BACKENDS)
def test_recorded_builder_writes_a_package_that_passes_gates_1_and_2(tmp_path, sandbox):
    run, requests, out, db = _generate(tmp_path, "builder_good.yaml", sandbox)
    assert run.returncode == 0, run.stdout + run.stderr
    report = json.loads((out / "report.json").read_text())
    assert report["outcome"] == "passed" and report["retry_count"] == 0
    (attempt,) = report["attempts"]
    arch, builder = attempt["stages"]
    assert arch["stage"] == "architect" and not [f for f in arch["findings"] if f["severity"] == "error"]
    assert builder["stage"] == "builder" and builder["status"] == "ok"
    assert builder["inputs"]["builder"] == "mini-swe-agent@openai/fake-model"
    assert not [f for f in builder["findings"] if f["severity"] == "error"], builder["findings"]
    rec = builder["outputs"]["builder"]
    assert rec["status"] == "finished" and rec["reason"].startswith("agent done")
    # metered by the gateway: every call forwarded with the host's key, counted in usage
    assert requests and all(r["headers"].get("Authorization") == f"Bearer {HOST_KEY}" for r in requests)
    assert rec["usage"]["calls"] == len(requests) and rec["usage"]["tokens"] > 0
    # the agent's own files: the package is what its heredocs wrote (not the offline builder)
    pkg = out / "package"
    manifest = yaml.safe_load((pkg / "challenge.yaml").read_text())
    spec = yaml.safe_load((out / "spec.yaml").read_text())["challenge_spec"]
    assert (manifest["category"], manifest["format"]) == (spec["category"], spec["format"])
    # seed 1 draws the 70/30 rule's novel concept, which a model builder is asked to make
    assert spec["concept_source"] == "novel" and spec["anti_repetition_fingerprint"].startswith("novel-")
    assert "A novel concept" in json.dumps(requests[0]["body"])
    assert (pkg / "tests" / "adversarial").is_dir() and (pkg / "agents" / "reference.yaml").is_file()
    # gates 1-2 again, as a user runs them on the package
    check = _cli("challenge", "validate", str(pkg))
    assert check.returncode == 0, check.stdout + check.stderr
    # the transcript is kept with the package's lineage: x-builder names it and its digest
    xb = manifest["x-builder"]
    assert xb["agent"] == "mini-swe-agent@openai/fake-model" and xb["attempt"] == rec["attempt"]
    kept = out / xb["transcript"]
    assert str(kept) == rec["transcript"]
    assert hashlib.sha256(kept.read_bytes()).hexdigest() == xb["transcript_sha256"]
    calls = _calls(kept)
    assert len(calls) == len(requests) == xb["model_calls"]
    assert "cat > package/challenge.yaml" in json.dumps([c["response"] for c in calls])
    assert HOST_KEY not in kept.read_bytes().decode("latin-1")
    # an ordinary attempt in the store: its model calls and the files it changed
    show = json.loads(_cli("show", rec["attempt"], "--json", "--store", str(db)).stdout)
    kinds = [e["kind"] for e in show["events"]]
    assert kinds.count("model.call") == len(requests) and "file.changed" in kinds
    assert show["status"] == "finished"
    # published, lineage.json names the builder's attempt and transcript digest. Gate 3 is not
    # run here: a report in the shape `calibrate --json` prints, inside middleweight's bands,
    # published --unverified-calibration (as tests/test_challenge_publish.py does)
    runs = {"naive": [38.0], "standard": [62.0, 64.0, 60.0], "elite": [80.0, 82.0, 79.0], "reference": [97.0]}
    rep = tmp_path / "calibration.json"
    rep.write_text(json.dumps({"challenge": manifest["id"], "findings": [], "ok": True, "spread": 42.0,
                               "scores": {a: r[0] for a, r in runs.items()}, "runs": runs,
                               "package_hash": package_hash(pkg)}))  # fmt: skip
    pub = _cli("challenge", "publish", str(pkg), "--calibration", str(rep), "--unverified-calibration",
               "--store", str(tmp_path / "pub.db"), "--sandbox", "local", "--json")  # fmt: skip
    assert pub.returncode == 0, pub.stdout + pub.stderr
    entry = Path(json.loads(pub.stdout)["published"]["entry"])
    assert json.loads((entry / "lineage.json").read_text())["builder"] == xb


def test_broken_builder_is_retried_at_stage_2_then_escalated(tmp_path):
    run, requests, out, _db = _generate(tmp_path, "builder_broken.yaml")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "generate: escalated to human review" in run.stdout
    assert run.stdout.count("gate 2 rejected the package: back to stage 2") == 3
    report = json.loads((out / "report.json").read_text())
    assert report["outcome"] == "escalated to human review" and report["retry_count"] == 2
    attempts = report["attempts"]
    assert [a["from_stage"] for a in attempts] == [1, 2, 2]  # the spec is kept: stage 2 again
    assert [a.get("retry_stage") for a in attempts] == [2, 2, 2]
    assert [[s["stage"] for s in a["stages"]] for a in attempts] == [["architect", "builder"], ["builder"], ["builder"]]
    seen: set[str] = set()
    for a in attempts:
        b = a["stages"][-1]
        assert b["status"] == "rejected" and a["result"] == "gate 2 rejected the package"
        assert b["inputs"] == {"spec": str(out / "spec.yaml"), "builder": "mini-swe-agent@openai/fake-model"}
        assert 0 < b["elapsed_s"] <= b["timeout_s"] == 1800
        errors = {f["check"]: f["detail"] for f in b["findings"] if f["severity"] == "error"}
        assert "syntax error" in errors["solution"] and "tests/adversarial" in errors["assets"]
        rec = b["outputs"]["builder"]
        assert rec["status"] == "finished" and rec["usage"]["calls"] == 3
        assert Path(rec["transcript"]).is_file() and len(_calls(Path(rec["transcript"]))) == 3
        seen.add(rec["attempt"])
    assert len(seen) == 3 and len(requests) == 9  # three builder attempts, each its own
    assert report["stage_timings"]["builder"] is not None and report["stage_timings"]["calibrator"] is None


def test_builder_arguments_are_checked(tmp_path):
    base = ["challenge", "generate", "--category", "debugging", "--weight-class", "2", "--out", str(tmp_path / "o")]
    r = _cli(*base, "--model", "openai/x")
    assert r.returncode == 2 and "--model: only with --builder" in r.stderr
    r = _cli(*base, "--builder", "no-such-agent.yaml")
    assert r.returncode == 2 and "--builder no-such-agent.yaml" in r.stderr, r.stderr
    r = _cli(*base, "--builder", "mini-swe-agent")
    assert r.returncode == 2 and "needs a model" in r.stderr, r.stderr
    assert not (tmp_path / "o").exists()


def test_unreachable_provider_stops_the_job_without_spending_retries(tmp_path):
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    out = tmp_path / "gen"
    env = dict(os.environ, OPENAI_BASE_URL=f"http://127.0.0.1:{port}/v1", OPENAI_API_KEY=HOST_KEY,
               GAUNTLET_SOCKETS=str(tmp_path / "s"))  # fmt: skip
    run = _cli(
        "challenge", "generate", "--category", "debugging", "--weight-class", "2", "--seed", "1",
        "--out", str(out), "--until", "package", "--sandbox", "local", "--store", str(tmp_path / "g.db"),
        "--builder", "mini-swe-agent", "--model", "openai/fake-model", env=env,
    )  # fmt: skip
    assert run.returncode == 1
    assert "stopped by BuilderError: the builder's attempt" in run.stderr and "ended infra_error" in run.stderr
    assert "unreachable" in run.stderr and HOST_KEY not in run.stderr
    report = json.loads((out / "report.json").read_text())
    assert len(report["attempts"]) == 1  # an infrastructure failure is not retried
    assert [(s["stage"], s["status"]) for s in report["attempts"][0]["stages"]] == [
        ("architect", "ok"),
        ("builder", "error"),
    ]


def test_an_agent_file_builder_is_limited_by_the_gateway(tmp_path):
    """`--builder FILE`: the agent file's `limits:` hold as for any attempt. At 3 calls the
    4th is refused: each builder attempt ends at its limit with a partial package (no tests,
    no solution), gate 2 rejects it, and the job is escalated after three such attempts."""
    from provider import FakeProvider

    agent = tmp_path / "builder.yaml"
    agent.write_text("name: capped-builder\nadapter: mini-swe-agent\nmodel: openai/fake-model\nlimits: {calls: 3}\n")
    out = tmp_path / "gen"
    with FakeProvider.from_yaml(SCRIPTS / "builder_good.yaml") as fp:
        env = dict(
            os.environ, OPENAI_BASE_URL=fp.base_url, OPENAI_API_KEY=HOST_KEY, GAUNTLET_SOCKETS=str(tmp_path / "s")
        )
        run = _cli(
            "challenge", "generate", "--category", "debugging", "--weight-class", "2", "--seed", "1",
            "--out", str(out), "--until", "package", "--sandbox", "local", "--store", str(tmp_path / "g.db"),
            "--builder", str(agent), env=env,
        )  # fmt: skip
        forwarded = len(fp.requests)
    assert run.returncode == 1 and "escalated to human review" in run.stdout, run.stdout + run.stderr
    attempts = json.loads((out / "report.json").read_text())["attempts"]
    assert len(attempts) == 3 and forwarded == 9  # 3 forwarded per attempt, the 4th refused
    for a in attempts:
        rec = a["stages"][-1]["outputs"]["builder"]
        assert rec["agent"] == str(agent) and rec["usage"]["calls"] == 3
        assert rec["reason"].startswith("usage limit reached: calls"), rec["reason"]
        assert a["stages"][-1]["status"] == "rejected"


def test_spec_match_names_each_field_the_package_changed(tmp_path):
    from arena.pipeline.generate.model_builder import spec_match

    spec = {"category": "debug-gauntlet", "format": "sprint", "weight_class": 2}
    (tmp_path / "challenge.yaml").write_text("category: debug-gauntlet\nformat: sprint\nweight_class: 2\n")
    assert spec_match(tmp_path, spec) == []  # a class given as its number is the same class
    (tmp_path / "challenge.yaml").write_text("category: recovery\nformat: sprint\nweight_class: contender\n")
    details = [f.detail for f in spec_match(tmp_path, spec)]
    assert details == [
        "challenge.yaml: category is 'recovery': the spec says 'debug-gauntlet'",
        "challenge.yaml: weight_class is 'contender': the spec says 'middleweight'",
    ]
    (tmp_path / "challenge.yaml").unlink()
    assert spec_match(tmp_path, spec) == []  # a missing manifest is the loader's finding
