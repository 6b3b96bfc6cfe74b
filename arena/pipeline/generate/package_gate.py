"""Seed 003 Quality Gate 2 (package completeness) on a generated package: the validator's
gates 1-2 (``arena.pipeline.package.examine``), the seed's required assets in Gauntlet's
layout, and the adversarial template sampled for at least 5 cases that the reference
solution passes. Judging the unmodified starter (fail, not error) is ``package_runs``'s,
run by the job when a sandbox is wanted."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from arena.challenge.errors import error
from arena.results import Finding

MIN_ADVERSARIAL = 5
# Seed 003's asset names -> where a Gauntlet package keeps them (CONTRACT §1).
ASSETS = {
    "starter/": "starter",
    "fixtures/": "starter/fixtures",
    "static_tests/": "tests/static",
    "adversarial_template/": "tests/adversarial",
    "judge_config.yaml": "challenge.yaml",  # the manifest's judge key
    "challenge_manifest.yaml": "challenge.yaml",
}
_SAMPLE = """
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("adv", sys.argv[1])
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
cases = m.generate_cases(m.SEED, int(sys.argv[2]))
test = [getattr(m, n) for n in dir(m) if n.startswith("test_") and callable(getattr(m, n))][0]
passed, failed = 0, []
for c in cases:
    try:
        test(c); passed += 1
    except BaseException as exc:
        failed.append(f"{c!r}: {type(exc).__name__}: {exc}"[:200])
print(json.dumps({"generated": len(cases), "passed": passed, "failed": failed}))
"""


def adversarial_sample(pkg: Path, count: int = MIN_ADVERSARIAL, timeout_s: float = 60.0) -> list[Finding]:
    pkg = Path(pkg).resolve()  # the sampler runs in a scratch directory: a relative --out must still resolve
    files = sorted((pkg / "tests" / "adversarial").glob("test_*.py"))
    if not files:
        return [error("adversarial", "tests/adversarial/: no adversarial template (test_*.py with generate_cases)")]
    out: list[Finding] = []
    with tempfile.TemporaryDirectory(prefix="gauntlet-adv-") as tmp:
        work = Path(tmp)
        shutil.copytree(pkg / "starter", work, dirs_exist_ok=True)
        shutil.copytree(pkg / "solution", work, dirs_exist_ok=True)
        for f in files:
            rel = f.relative_to(pkg).as_posix()
            try:
                run = subprocess.run(
                    [sys.executable, "-c", _SAMPLE, str(f), str(count)],
                    cwd=work, capture_output=True, text=True, timeout=timeout_s,
                    env={"PYTHONPATH": str(work), "PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"},
                )  # fmt: skip
                lines = run.stdout.strip().splitlines()
                if not lines:  # the sampler died before printing: say why (its last stderr line)
                    why = (run.stderr.strip().splitlines() or [f"exit {run.returncode}, no output"])[-1]
                    out.append(error("adversarial", f"{rel}: sampling stopped: {why[:200]}"))
                    continue
                doc = json.loads(lines[-1])
            except (subprocess.TimeoutExpired, ValueError) as exc:
                out.append(error("adversarial", f"{rel}: sampling stopped: {type(exc).__name__}: {run_err(exc)}"))
                continue
            if doc["generated"] < count:
                out.append(
                    error(
                        "adversarial",
                        f"{rel}: adversarial template only produced {doc['generated']} tests, need {count}+",
                    )
                )
            if doc["failed"]:
                out.append(
                    error("adversarial", f"{rel}: the reference solution fails generated cases: {doc['failed'][0]}")
                )
    return out


def run_err(exc: BaseException) -> str:
    return str(exc)[:200]


def assets(pkg: Path) -> list[Finding]:
    return [
        error("assets", f"{where}: missing required asset ({name} in seed 003's gate 2)")
        for name, where in ASSETS.items()
        if not (pkg / where).exists()
    ]


def gate_2(pkg: Path) -> list[Finding]:
    from arena.pipeline.package import examine  # noqa: PLC0415

    _ch, findings = examine(pkg)
    return findings + assets(pkg) + adversarial_sample(pkg)
