"""Issue 37 items 2 and 4: the import's exit codes (0 imported, also with a FROM image no
registry gives: built false and a note naming docker pull/docker load; 1 imported with an
image that does not build; 2 not a task), and a failed verifier that says why: "reward 0.0",
test.sh's output kept with the verdict (its tail in the failed reward's message and in
``show``), CTRF per-test results, ``validate --run`` running an imported task's reference."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import uuid
from pathlib import Path

import pytest

from arena.judge.verdict import result_formats, verifier_output
from arena.judge.verdict.junit import MAX_MESSAGE_CHARS, MAX_MESSAGE_LINES
from tests.task_import.fixtures import _w, harbor_python, tb_shell
from tests.task_import.test_task_import import DOCKER, gauntlet

needs_docker = pytest.mark.skipif(not DOCKER, reason="needs Docker")


def _import(src: Path, pkg: Path, *extra: str) -> subprocess.CompletedProcess:
    return gauntlet("challenge", "import", str(src), "--out", str(pkg), "--json", *extra, timeout=300)


# -- exit codes ----------------------------------------------------------------------
@needs_docker
def test_a_missing_base_image_imports_with_exit_0_then_builds_once_loaded(tmp_path):
    """No registry answers here: the pull fails at once, the package is written, not built,
    and the note says how to provide the image; a stand-in tagged locally then builds."""
    base = f"gauntlet-test-standin/base:{uuid.uuid4().hex[:12]}"
    src = harbor_python(tmp_path / "t")
    (src / "environment" / "Dockerfile").write_text(f"FROM {base}\nWORKDIR /app\nCOPY calc.py /app/calc.py\n")
    r = _import(src, tmp_path / "pkg")
    assert r.returncode == 0, r.stderr
    s = json.loads(r.stdout)
    assert s["built"] is False and s["missing_images"] == [base] and "build_error" not in s
    note = next(n for n in s["notes"] if f"FROM {base}" in n)
    assert f"docker pull {base}" in note and "docker load" in note and "the pull failed" in note
    assert (tmp_path / "pkg" / "challenge.yaml").is_file()
    # the stand-in base: gauntlet-base (a Debian rootfs) tagged under the missing name
    subprocess.run(["docker", "tag", "gauntlet-base", base], check=True, capture_output=True)
    try:
        r = _import(src, tmp_path / "pkg2")
        assert r.returncode == 0, r.stderr
        s = json.loads(r.stdout)
        assert s["built"] is True and "missing_images" not in s
    finally:
        subprocess.run(["docker", "rmi", "-f", s["image"], base], capture_output=True)


@needs_docker
def test_an_image_that_does_not_build_is_imported_with_exit_1(tmp_path):
    src = tb_shell(tmp_path / "t")
    (src / "Dockerfile").write_text("FROM gauntlet-base\nWORKDIR /app\nRUN exit 3\n")
    r = _import(src, tmp_path / "pkg")
    assert r.returncode == 1, r.stderr
    s = json.loads(r.stdout)
    assert s["built"] is False and "RUN exit 3" in s["build_error"] or "returned a non-zero code" in s["build_error"]
    assert (tmp_path / "pkg" / "challenge.yaml").is_file()
    r = gauntlet("challenge", "import", str(src), "--out", str(tmp_path / "pkg3"))
    assert r.returncode == 1 and "cannot pass as is" in r.stderr and "Traceback" not in r.stderr


def test_not_a_task_exits_2_and_writes_nothing(tmp_path):
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "README.md").write_text("not a task\n")
    r = _import(tmp_path / "t", tmp_path / "pkg")
    assert r.returncode == 2 and "neither task.toml" in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "pkg").exists()


# -- the reward's words and CTRF -----------------------------------------------------
def _cases(out: Path) -> list[tuple[str, str, str]]:
    got = result_formats.read("reward", "reward.txt", out)
    assert got is not None
    return [(c.name, c.outcome, c.message) for c in got]


def test_a_failed_reward_reads_as_a_reward_not_a_count(tmp_path):
    (tmp_path / "reward.txt").write_text("0\n")
    assert _cases(tmp_path) == [("reward", "failed", "reward 0.0 of 1.0")]
    (tmp_path / "reward.txt").write_text("0.5")
    assert _cases(tmp_path) == [("reward", "failed", "reward 0.5 of 1.0")]


def test_ctrf_beside_the_reward_gives_per_test_results(tmp_path):
    ctrf = {
        "results": {
            "tests": [
                {"name": "test_add", "status": "passed"},
                {"name": "test_sub", "status": "failed", "message": "assert -1 == 5"},
            ]
        }
    }
    (tmp_path / "reward.txt").write_text("0")
    (tmp_path / "ctrf.json").write_text(json.dumps(ctrf))
    assert _cases(tmp_path) == [("test_add", "passed", ""), ("test_sub", "failed", "assert -1 == 5")]
    # every CTRF test passed but the script gave 0: the reward still fails the run
    ctrf["results"]["tests"][1]["status"] = "passed"
    (tmp_path / "ctrf.json").write_text(json.dumps(ctrf))
    assert [o for _, o, _ in _cases(tmp_path)] == ["passed", "passed", "failed"]
    # a CTRF report that does not read: the reward stands
    (tmp_path / "ctrf.json").write_text("{not json")
    assert _cases(tmp_path) == [("reward", "failed", "reward 0.0 of 1.0")]


# -- test.sh's output kept, its tail in the message -----------------------------------
def test_the_output_is_kept_bounded_and_its_tail_fits_a_message(tmp_path):
    noisy = "".join(f"line {i}\n" for i in range(5000)) + "\x1b[31mFAILED test_add: expected 5, got -1\x1b[0m\n"
    text = verifier_output.kept(tmp_path, noisy.encode(), b"stderr: 1 failed\r\n")
    assert len(text.encode()) <= verifier_output.KEEP_BYTES and "line 0\n" not in text
    assert text.endswith("FAILED test_add: expected 5, got -1\nstderr: 1 failed") and "\x1b" not in text
    (tmp_path / "test-output.txt").write_text("from the file\n")  # the command's own output file wins
    assert verifier_output.kept(tmp_path, noisy.encode(), b"") == "from the file"
    cases = result_formats.parse_reward(b"0", json_file=False)
    verifier_output.attach(cases, text)
    msg = cases[0].message
    assert msg.startswith("reward 0.0 of 1.0\nverifier output, last lines:\n")
    assert msg.endswith("stderr: 1 failed") and "expected 5, got -1" in msg
    assert len(msg) <= MAX_MESSAGE_CHARS and len(msg.splitlines()) <= MAX_MESSAGE_LINES


def test_the_tui_feedback_shows_the_verifiers_last_lines():
    from gauntlet_tui.widgets.feedback_pane import render_feedback  # noqa: PLC0415

    cases = result_formats.parse_reward(b"0", json_file=False)
    verifier_output.attach(cases, "".join(f"step {i} ok\n" for i in range(9)) + "FAILED: expected 5, got -1\n")
    failure = {"name": "reward", "message": cases[0].message}
    doc = {"submission": 1, "tests": {"total": 1, "passed": 0, "results": [], "failures": [failure]}}
    text = render_feedback(doc).plain
    assert "reward 0.0 of 1.0" in text and "FAILED: expected 5, got -1" in text and "step 8 ok" in text
    assert "step 3 ok" not in text


def _broken_reference(root: Path) -> Path:
    """harbor_python whose solve.sh does nothing and whose test.sh says why it fails."""
    src = harbor_python(root)
    _w(src / "solution" / "solve.sh", "#!/bin/bash\necho 'forgot to fix calc.py'\n")
    _w(
        src / "tests" / "test.sh",
        "#!/bin/bash\ncd /app\n"
        "if [ \"$(PYTHONPATH=/app python3 -c 'from calc import add; print(add(2, 3))')\" = 5 ]; then\n"
        "  echo 1 > /logs/verifier/reward.txt\nelse\n"
        "  echo \"CHECK add(2, 3): expected 5, got $(PYTHONPATH=/app python3 -c 'from calc import add; print(add(2, 3))')\"\n"
        "  echo 0 > /logs/verifier/reward.txt\nfi\n",
    )
    return src


def test_validate_run_fails_an_imported_reference_that_does_not_score_full(tmp_path):
    """Local backend: validate --run runs the reference and the no-op of an imported task;
    the broken reference fails validation, naming what its verifier printed."""
    pkg = tmp_path / "pkg"
    r = _import(_broken_reference(tmp_path / "t"), pkg, "--no-build")
    assert r.returncode == 0, r.stderr
    r = gauntlet(
        "challenge", "validate", str(pkg), "--run", "--sandbox", "local", "--time-scale", "100", "--json",
        timeout=300,
    )  # fmt: skip
    assert r.returncode != 0, r.stdout
    doc = json.loads(r.stdout)
    text = json.dumps(doc)
    assert "reference scores objective 0" in text and "CHECK add(2, 3): expected 5, got -1" in text, text[:2000]
    assert "untouched environment scores 0" in text


def test_show_keeps_the_verifier_output_and_the_failed_reward_says_why(tmp_path):
    """Local backend: the no-op of an imported task, run live; the stored verdict keeps what
    test.sh printed, its failed reward's message ends with it, and show prints it."""
    pkg = tmp_path / "pkg"
    r = _import(_broken_reference(tmp_path / "t"), pkg, "--no-build")
    assert r.returncode == 0, r.stderr
    store = tmp_path / "s.db"
    run = gauntlet(
        "run", str(pkg), "--agent", "scripted:noop", "--sandbox", "local", "--time-scale", "100", "--headless",
        "--store", str(store),
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    attempt = run.stdout.strip().splitlines()[-1]
    with sqlite3.connect(store) as db:
        (raw,) = db.execute("SELECT result FROM submissions WHERE attempt = ? ORDER BY n DESC", (attempt,)).fetchone()
    result = json.loads(raw)
    assert "CHECK add(2, 3): expected 5, got -1" in result["verifier_output"]
    [test] = result["tests"]
    assert test["outcome"] == "failed" and test["message"].startswith("reward 0.0 of 1.0\n"), test
    assert test["message"].endswith("CHECK add(2, 3): expected 5, got -1"), test
    show = gauntlet("show", attempt, "--store", str(store), "--json")
    assert show.returncode == 0, show.stderr
    assert "expected 5, got -1" in (json.loads(show.stdout)["submissions"][-1]["verifier_output"] or "")
    text = gauntlet("show", attempt, "--store", str(store))
    assert "verifier output (last lines):" in text.stdout and "expected 5, got -1" in text.stdout
