"""Helpers for tests/test_bundled_challenges.py: lay out workspaces, run judge-side tests
with plain pytest in a subprocess, read the JUnit XML, replay scripted-agent file steps."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

import yaml

BUNDLED = Path(__file__).resolve().parent.parent / "arena" / "bundled"
IDS = ("off-by-one", "rate-limiter", "task-store")
AGENTS = ("naive", "standard", "elite", "reference")
SUITES = ("static", "hidden", "adversarial")
JUDGE_CMD = "python -m pytest -q -p no:cacheprovider --junitxml={report} {tests}"


@dataclass
class Outcome:
    passed: set[str] = field(default_factory=set)
    failed: set[str] = field(default_factory=set)
    errors: set[str] = field(default_factory=set)
    skipped: set[str] = field(default_factory=set)
    stdout: str = ""

    @property
    def total(self) -> int:
        return len(self.passed | self.failed | self.errors | self.skipped)


def phase_numbers(package: Path) -> list[int]:
    phases = package / "phases"
    extra = sorted(int(p.name) for p in phases.iterdir() if p.is_dir()) if phases.is_dir() else []
    return [1, *extra]


def judge_test_dirs(package: Path, phases: list[int] | None = None) -> list[Path]:
    """Every judge-side suite directory of the given phases (all phases by default)."""
    out = []
    for n in phases or phase_numbers(package):
        base = package / "tests" if n == 1 else package / "phases" / str(n) / "tests"
        out += [base / s for s in SUITES if (base / s).is_dir()]
    return out


def copy_tree(src: Path, dst: Path) -> None:
    shutil.copytree(src, dst, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))


def make_workspace(package: Path, dest: Path, *overlays: Path) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    copy_tree(package / "starter", dest)
    for overlay in overlays:
        copy_tree(overlay, dest)
    return dest


def stage_tests(package: Path, dest: Path, phases: list[int] | None = None) -> list[Path]:
    """Copy judge-side tests out of the package, as a judge does (never into the workspace)."""
    staged = []
    for src in judge_test_dirs(package, phases):
        rel = src.relative_to(package)
        target = dest / str(rel).replace(os.sep, "_")
        copy_tree(src, target)
        staged.append(target)
    return staged


def run_pytest(workspace: Path, test_paths: list[Path], report: Path, timeout: float = 180) -> Outcome:
    """Run the manifest's judge command (plain pytest) with the workspace as working dir."""
    cmd = JUDGE_CMD.format(report=report, tests=" ".join(str(p) for p in test_paths)).split()
    # plain pytest: no third-party plugins from the host (faster start, nothing implicit)
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
    # A real judge runs with a cleared environment. CI / BUILD_NUMBER in particular make
    # pytest print untruncated assertion diffs: difflib over two 5,000-item lists in a
    # failing adversarial test then runs for many minutes (the cause of CI's stalls).
    for var in ("PYTHONPATH", "CI", "BUILD_NUMBER"):
        env.pop(var, None)
    cmd = [sys.executable if c == "python" else c for c in cmd]
    # A test stuck for a minute dumps every thread's stack (faulthandler) into stderr.
    cmd += [f"--rootdir={workspace}", "-o", "faulthandler_timeout=60"]
    try:
        proc = _run(cmd, workspace, env, timeout)
    except subprocess.TimeoutExpired as exc:
        raise AssertionError(f"judge-side pytest timed out:\n{_timeout_report(exc)}") from None
    out = parse_junit(report)
    out.stdout = proc.stdout[-4000:] + proc.stderr[-2000:]
    return out


def _run(cmd: list[str], cwd: Path, env: dict, timeout: float) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def _timeout_report(exc: subprocess.TimeoutExpired) -> str:
    def text(b) -> str:  # the head: faulthandler prints the innermost frame first
        return (b.decode(errors="replace") if isinstance(b, bytes) else b or "")[:3000]

    ps = subprocess.run(
        ["ps", "-eo", "pid,ppid,etimes,pcpu,rss,args", "--sort=-pcpu"], capture_output=True, text=True
    ).stdout.splitlines()[:15]
    return (
        f"after {exc.timeout}s; stdout: {text(exc.stdout)}\nstderr: {text(exc.stderr)}\n"
        "busiest processes:\n" + "\n".join(line[:160] for line in ps)
    )


def parse_junit(report: Path) -> Outcome:
    out = Outcome()
    if not report.exists():
        out.errors.add("<no junit report>")
        return out
    root = ET.parse(report).getroot()
    for case in root.iter("testcase"):
        name = f"{case.get('classname')}::{case.get('name')}"
        tags = {child.tag for child in case}
        if "error" in tags:
            out.errors.add(name)
        elif "failure" in tags:
            out.failed.add(name)
        elif "skipped" in tags:
            out.skipped.add(name)
        else:
            out.passed.add(name)
    # collection errors appear as testsuite-level errors without a testcase of their own
    for suite in root.iter("testsuite"):
        if int(suite.get("errors", 0)) > len(out.errors):
            out.errors.add(f"<{int(suite.get('errors')) - len(out.errors)} collection errors>")
    return out


def agent_steps(package: Path, agent: str) -> list[dict | str]:
    doc = yaml.safe_load((package / "agents" / f"{agent}.yaml").read_text())
    return doc["steps"]


def step_kind(step: dict | str) -> tuple[str, object]:
    if isinstance(step, str):
        return step, None
    ((kind, value),) = step.items()
    return kind, value


def parse_seconds(text: str | int | float) -> float:
    if isinstance(text, (int, float)):
        return float(text)
    total, num = 0.0, ""
    for ch in str(text).strip():
        if ch.isdigit() or ch == ".":
            num += ch
        else:
            total += float(num) * {"h": 3600, "m": 60, "s": 1}[ch]
            num = ""
    return total + (float(num) if num else 0.0)


def replay_files(package: Path, agent: str, dest: Path) -> tuple[Path, list[str]]:
    """Apply an agent's overlay/delete steps to a copy of the starter; return the final
    workspace and the problems found (missing overlay dirs, reads or deletes of absent files)."""
    ws = make_workspace(package, dest)
    problems = []
    for step in agent_steps(package, agent):
        kind, value = step_kind(step)
        if kind == "overlay":
            src = package / str(value)
            if not src.is_dir() or not any(src.rglob("*")):
                problems.append(f"overlay {value}: no such non-empty directory")
            else:
                copy_tree(src, ws)
        elif kind == "read":
            if not (ws / str(value)).is_file():
                problems.append(f"read {value}: not in the workspace at that step")
        elif kind == "delete":
            for rel in value if isinstance(value, list) else [value]:
                target = ws / rel
                if not target.exists():
                    problems.append(f"delete {rel}: not in the workspace at that step")
                elif target.is_dir():
                    shutil.rmtree(target)
                else:
                    target.unlink()
    return ws, problems
