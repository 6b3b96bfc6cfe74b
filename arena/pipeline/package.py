"""Seed 003 stage 2 (Scenario Builder), quality gate 2: package completeness — the checks
that can be automated on a package without running an agent (the sandbox runs are in
``package_runs``). ``examine``/``validate`` run gates 1 and 2 together."""

from __future__ import annotations

import fnmatch
import re
from pathlib import Path

from arena.challenge.errors import error, info, warning
from arena.challenge.errors import ChallengeError
from arena.challenge.loader import BRIEFING, SUITES, Challenge, load_findings
from arena.results import Finding
from arena.pipeline.common import FILE, files_under, imported, is_test_file, rel, is_plain_file, digest  # noqa: F401
from arena.pipeline.spec import completeness, repetition

MIN_BRIEFING_WORDS = 30
BENCHMARK_AGENTS = ("naive", "standard", "elite", "reference")  # seed 003 stage 3


# -- gate 2 -------------------------------------------------------------------------
def briefing(ch: Challenge) -> list[Finding]:
    if not (ch.root / BRIEFING).is_file():
        return []  # reported by the loader as a missing required file
    words = len(ch.briefing.split())
    if words == 0:
        return [error("briefing", f"{BRIEFING}: empty: expected the task, its deliverables and how it is judged")]
    if words < MIN_BRIEFING_WORDS:
        return [
            (info if imported(ch) else warning)(
                "briefing",
                f"{BRIEFING}: only {words} words: expected a briefing that states the task and deliverables (at least {MIN_BRIEFING_WORDS} words)",
            )
        ]
    return []


def compiles(ch: Challenge, d: Path, what: str) -> list[Finding]:
    out: list[Finding] = []
    for p in files_under(d):
        if p.suffix != ".py" or p.is_symlink():
            continue
        try:
            compile(p.read_bytes(), rel(ch, p), "exec", dont_inherit=True)
        except SyntaxError as exc:
            out.append(
                error(
                    what,
                    f"{rel(ch, p)}: line {exc.lineno}: syntax error ({exc.msg}): expected {what.replace('_', ' ')} code that at least compiles",
                )
            )
        except ValueError as exc:  # NUL bytes
            out.append(error(what, f"{rel(ch, p)}: {exc}: expected Python source"))
    return out


def starter_and_solution(ch: Challenge) -> list[Finding]:
    out: list[Finding] = []
    source = imported(ch)
    if ch.starter_dir.is_dir() and not files_under(ch.starter_dir):
        if source:  # a task whose environment starts with an empty working directory
            out.append(info("starter", f"starter/: empty: the imported {source} task's working directory starts empty"))
        else:
            out.append(error("starter", "starter/: empty: expected the agent's initial workspace files"))
    out += compiles(ch, ch.starter_dir, "starter")
    sol = ch.solution_dir
    if (sol is None or not files_under(sol)) and source and (ch.root / "agents" / "reference.yaml").is_file():
        out.append(
            info("solution", f"no solution/: the imported {source} task's solve script is agents/reference.yaml")
        )
    elif sol is None or not files_under(sol):
        out.append(
            error(
                "solution",
                "solution/: missing or empty: expected the reference solution (files laid over starter/) to calibrate",
            )
        )
    else:
        out += compiles(ch, sol, "solution")
    return out


def tests(ch: Challenge) -> list[Finding]:
    out: list[Finding] = []
    for phase in range(1, ch.phase_count + 1):
        base = ch.tests_root(phase)
        for suite in SUITES:
            d = base / suite
            if not d.is_dir():
                if phase > 1 and suite == "static":
                    out.append(
                        warning(
                            "tests",
                            f"{rel(ch, d)}/: missing: expected phase {phase}'s static tests (its advance threshold counts them)",
                        )
                    )
                continue
            found = [p for p in files_under(d) if is_test_file(p)]
            if not found and imported(ch) and files_under(d):
                out.append(info("tests", f"{rel(ch, d)}/: the imported task's own test scripts, run by judge.command"))
            elif not found:
                sev = error if suite == "static" and phase == 1 else warning
                out.append(
                    sev(
                        "tests",
                        f"{rel(ch, d)}/: no test files: expected files named test_*.py (or *_test.*) in the {suite} suite",
                    )
                )
            out += compiles(ch, d, "tests")
    return out


def isolation(ch: Challenge) -> list[Finding]:
    """Judge-side tests must not be agent-visible: no copy of one in starter/."""
    starter = {digest(p): p for p in files_under(ch.starter_dir) if is_plain_file(p) and p.stat().st_size > 0}
    out: list[Finding] = []
    roots = [ch.root / "tests"] + [ch.tests_root(n) for n in range(2, ch.phase_count + 1)]
    for base in roots:
        for p in files_under(base):
            if is_plain_file(p) and p.relative_to(base).parts[0] in ("hidden", "adversarial"):
                twin = starter.get(digest(p)) if p.stat().st_size > 0 else None
                if twin is not None:
                    out.append(
                        error(
                            "isolation",
                            f"{rel(ch, p)}: the same file is agent-visible as {rel(ch, twin)}: expected judge-side hidden/adversarial tests kept out of starter/",
                        )
                    )
    return out


def deliverables(ch: Challenge) -> list[Finding]:
    out: list[Finding] = []
    sol = ch.solution_dir
    for i, d in enumerate(ch.manifest.deliverables):
        if d.kind != "file":
            continue
        present = (ch.starter_dir / d.name).exists() or (sol is not None and (sol / d.name).exists())
        if not present:
            out.append(
                warning(
                    "deliverables",
                    f"{FILE}: key 'deliverables[{i}].name': {d.name} is in neither solution/ nor starter/: expected the reference solution to deliver it",
                )
            )
    return out


def phases(ch: Challenge) -> list[Finding]:
    out: list[Finding] = []
    for n in range(2, ch.phase_count + 1):
        if not (ch.root / "phases" / str(n) / BRIEFING).is_file():
            out.append(
                warning(
                    "phases", f"phases/{n}/{BRIEFING}: missing: expected the briefing revealed when phase {n} opens"
                )
            )
    pdir = ch.root / "phases"
    if pdir.is_dir():
        for d in sorted(pdir.iterdir()):
            if not (d.name.isdigit() and 2 <= int(d.name) <= ch.phase_count):
                out.append(
                    error(
                        "phases",
                        f"phases/{d.name}: not a declared phase: expected phases/2..{ch.phase_count} (one per entry of 'phases' in {FILE})"
                        if ch.phase_count > 1
                        else f"phases/{d.name}: no phases declared in {FILE}: expected no phases/ directory",
                    )
                )
    return out


_TEST_DEF = re.compile(r"^\s*(?:async\s+)?def\s+(test_\w+)", re.MULTILINE)
PIVOT_WINDOW = (0.55, 0.65)  # seed 000: "target the 55-65% time mark for pivots"


def judge_test_names(ch: Challenge) -> set[str]:
    names: set[str] = set()
    for phase in range(1, ch.phase_count + 1):
        for p in files_under(ch.tests_root(phase)):
            if p.suffix == ".py" and is_plain_file(p):
                names |= set(_TEST_DEF.findall(p.read_text("utf-8", "replace")))
    return names


def categories(ch: Challenge) -> list[Finding]:
    """judge.categories globs that match no judge-side test name (likely a typo)."""
    names = judge_test_names(ch)
    if not names:
        return []  # not Python tests: names are only known after a run
    return [
        warning(
            "judge_config",
            f"{FILE}: key 'judge.categories': glob {glob!r} matches no judge-side test: expected a pattern on test names like 'test_edge_*'",
        )
        for glob in ch.manifest.judge.categories
        if not any(fnmatch.fnmatchcase(n, glob) for n in names)
    ]


def pivots(ch: Challenge) -> list[Finding]:
    out: list[Finding] = []
    if ch.phase_count < 2:
        return out
    lo, hi = PIVOT_WINDOW
    for i, (phase, mark) in enumerate(zip(ch.manifest.phases, ch.reveal_at)):
        if phase.pivot != "none" and not lo <= mark <= hi:
            out.append(
                info(
                    "phases",
                    f"{FILE}: key 'phases[{i}].reveal_at': a {phase.pivot} pivot at {mark:.0%} of the time: seed 000 targets {lo:.0%}-{hi:.0%}",
                )
            )
    return out


def agents(ch: Challenge) -> list[Finding]:
    missing = [a for a in BENCHMARK_AGENTS if a not in ch.agent_names]
    if not missing:
        return []
    return [
        info(
            "agents",
            f"agents/: no {', '.join(a + '.yaml' for a in missing)}: gate 3 (calibrate) needs the four benchmark agents",
        )
    ]


def gate_findings(ch: Challenge) -> list[Finding]:
    out: list[Finding] = []
    checks = (
        completeness,
        repetition,
        briefing,
        starter_and_solution,
        tests,
        isolation,
        deliverables,
        phases,
        categories,
        pivots,
        agents,
    )
    for check in checks:
        out += check(ch)
    return out


def examine(path: str | Path) -> tuple[Challenge | None, list[Finding]]:
    """Gates 1 and 2 of seed 003: the challenge (when its manifest parsed) and every
    finding. Never raises."""
    challenge: Challenge | None = None
    try:
        challenge, findings = load_findings(path)
        if challenge is not None:
            findings = findings + gate_findings(challenge)
        return challenge, findings
    except ChallengeError as exc:  # pragma: no cover — _load collects, but stay total
        return challenge, exc.findings
    except Exception as exc:  # noqa: BLE001 — validation never raises
        return challenge, [error("internal", f"{path}: validation stopped: {type(exc).__name__}: {exc}")]


def validate(path: str | Path) -> list[Finding]:
    """Gates 1 and 2 of seed 003 on a package: every finding, never raises."""
    return examine(path)[1]
