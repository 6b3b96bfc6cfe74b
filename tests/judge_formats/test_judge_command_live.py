"""Issue 23: a package's judge command in any language, live: the real judge runs a shell
command in the real sandbox (local; Docker when present) that writes a result file of
each format; the verdict is the file's tests, a malformed file is an infra_error naming it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from arena.challenge import load_challenge
from arena.judge import Judge, take_snapshot
from arena.sandbox import get_backend

MANIFEST = {
    "schema": "gauntlet.challenge/v1",
    "id": "shell-judge",
    "title": "Shell judge",
    "category": "debug-gauntlet",
    "format": "sprint",
    "weight_class": "lightweight",
    "time_limit": "10m",
    "iterations": 2,
    "deliverables": [{"name": "fix", "kind": "tests", "weight": 1.0}],
}
# The judge-side script reads the submission's answer.txt and writes its verdict in FORMAT.
WRITERS = {
    "reward": 'if [ "$(cat answer.txt)" = 42 ]; then echo 1 > "$OUT"; else echo 0 > "$OUT"; fi',
    "ctrf": 'ok=failed; [ "$(cat answer.txt)" = 42 ] && ok=passed\n'
    'printf \'{"results":{"tests":[{"name":"test_answer","status":"%s","message":"not 42"},'
    '{"name":"test_exists","status":"passed"}]}}\' "$ok" > "$OUT"',
    "tap": 'echo 1..2; if [ "$(cat answer.txt)" = 42 ]; then echo "ok 1 - answer"; '
    'else echo "not ok 1 - answer # wrong"; fi; echo "ok 2 - exists"',
    "junit": 'r=""; [ "$(cat answer.txt)" = 42 ] || r="<failure message=\\"not 42\\"/>"\n'
    'echo "<testsuite><testcase classname=\\"c\\" name=\\"test_answer\\">$r</testcase></testsuite>" > "$OUT"',
}


def package(root: Path, fmt: str, writer: str | None = None) -> Path:
    (root / "starter").mkdir(parents=True)
    (root / "starter" / "answer.txt").write_text("41\n")
    (root / "tests" / "static").mkdir(parents=True)
    (root / "tests" / "static" / "check.sh").write_text(
        '#!/bin/sh\ncd "$GAUNTLET_JUDGE_WORKSPACE"\n' + (writer or WRITERS[fmt]) + "\n"
    )
    (root / "briefing.md").write_text("Put 42 in answer.txt.\n")
    path = "stdout" if fmt == "tap" else {"reward": "reward.txt", "ctrf": "ctrf.json", "junit": "out.xml"}[fmt]
    out = "" if fmt == "tap" else "OUT={report} "
    m = dict(
        MANIFEST,
        judge={
            "command": f"{out}sh /judge/tests/1/static/check.sh",
            "timeout": "30s",
            "isolation": "none",
            "results": {"format": fmt, "path": path},
        },
    )
    (root / "challenge.yaml").write_text(yaml.safe_dump(m))
    return root


def backends():
    out = ["local"]
    if shutil.which("docker"):
        out.append("docker")
    return out


async def verdicts(backend: str, root: Path, tmp: Path):
    ch = load_challenge(root)
    judge = Judge(get_backend(backend), pool_size=1, prestart=0, coverage_pass=False)
    try:
        ws = tmp / "ws"
        shutil.copytree(ch.starter_dir, ws)
        before = await judge.run(ch, take_snapshot(ws, tmp / "snaps"), submission=1)
        (ws / "answer.txt").write_text("42\n")
        after = await judge.run(ch, take_snapshot(ws, tmp / "snaps"), submission=2)
    finally:
        await judge.aclose()
    return before, after


@pytest.mark.parametrize("backend", backends())
@pytest.mark.parametrize("fmt", ["reward", "ctrf", "tap", "junit"])
async def test_each_format_judges_the_submission(tmp_path, backend, fmt):
    root = package(tmp_path / "pkg", fmt)
    before, after = await verdicts(backend, root, tmp_path)
    assert before.infra_error is None and after.infra_error is None, (before.infra_error, after.infra_error)
    assert before.isolation is None  # not pytest: no process boundary claimed
    first = {t.name: t.outcome for t in before.tests}
    assert first[{"reward": "reward", "ctrf": "test_answer", "tap": "answer", "junit": "test_answer"}[fmt]] == "failed"
    assert all(t.outcome == "passed" for t in after.tests) and after.tests
    assert {t.suite for t in after.tests} == {"static"}


async def test_a_malformed_result_file_is_an_infra_error_naming_it(tmp_path):
    root = package(tmp_path / "pkg", "reward", writer='echo "all good" > "$OUT"')
    before, _ = await verdicts("local", root, tmp_path)
    assert before.infra_error == (
        "judge: reward result file reward.txt: 'all good' is not a number: expected one number such as 0 or 1"
    )
    assert before.tests == []


async def test_no_result_file_is_a_build_failure_not_a_crash(tmp_path):
    root = package(tmp_path / "pkg", "ctrf", writer="exit 3")
    before, _ = await verdicts("local", root, tmp_path)
    assert before.infra_error is None and before.build.status == "failure"
    assert "wrote no report (exit code 3)" in before.build.errors[0]


FAILING_TEST = {"reward": "reward", "ctrf": "test_answer", "tap": "answer", "junit": "test_answer"}


@pytest.mark.parametrize("fmt", ["reward", "ctrf", "tap", "junit"])
async def test_each_format_maps_onto_feedback_and_the_objective(tmp_path, fmt):
    """The same real verdicts through the format's disclosure (CONTRACT §4: the Sprint's
    first feedback shows the visible tests, with failures and their category) and the
    Objective judge (CONTRACT §6): the failing submission scores below 100 with its failing
    test named in the feedback, the fixed one 100 with none failing."""
    from arena.formats import FORMATS
    from arena.rules import disclose
    from arena.scoring.objective import submission_score

    root = package(tmp_path / "pkg", fmt)
    ch = load_challenge(root)
    before, after = await verdicts("local", root, tmp_path)
    docs = [
        disclose(FORMATS["sprint"], n, res, at="2026-12-05T00:00:00Z", elapsed_s=60.0 * n)
        for n, res in ((1, before), (2, after))
    ]
    first, second = docs[0]["tests"], docs[1]["tests"]
    assert first["total"] == len(before.tests) and first["passed"] == first["total"] - 1, first
    (failure,) = first["failures"]
    assert FAILING_TEST[fmt] in failure["name"] and failure["category"], failure
    assert second["passed"] == second["total"] == len(after.tests) and not second["failures"], second
    deliverables = ch.manifest.deliverables
    low, high = submission_score(before, deliverables), submission_score(after, deliverables)
    assert high == 100.0 and low < 100.0, (low, high)
    if fmt == "reward":  # a reward-only result is one test: all or nothing
        assert low == 0.0 and len(before.tests) == 1


MALFORMED = {
    "ctrf": ('echo \'{"results": [1, 2]}\' > "$OUT"', "ctrf result file ctrf.json"),
    "tap": ("echo 'ok, I guess'", "tap result"),
    "junit": ('echo "<testsuite><testcase" > "$OUT"', "junit result file out.xml"),
}


@pytest.mark.parametrize("fmt", sorted(MALFORMED))
async def test_a_malformed_file_of_each_format_is_an_infra_error_naming_it(tmp_path, fmt):
    writer, named = MALFORMED[fmt]
    root = package(tmp_path / "pkg", fmt, writer=writer)
    before, _ = await verdicts("local", root, tmp_path)
    assert before.infra_error is not None and before.infra_error.startswith("judge: "), before.infra_error
    assert named in before.infra_error, before.infra_error
    assert before.tests == []
