"""Seed 003 gates 1 (spec completeness) and 2 (package completeness): the checks that
can be automated on a package without running an agent. Each returns findings."""
from __future__ import annotations

import fnmatch
import hashlib
import os
import re
from pathlib import Path

import yaml

from arena.challenge.errors import error, info, warning
from arena.challenge.loader import BRIEFING, SUITES, Challenge, bundled_challenges
from arena.challenge.models import DIMENSIONS
from arena.judge.results import Finding

FILE = "challenge.yaml"
MIN_BRIEFING_WORDS = 30
FINGERPRINT_THRESHOLD = 0.70  # seed 003 gate 1
BENCHMARK_AGENTS = ("naive", "standard", "elite", "reference")  # seed 003 stage 3
SKIP_DIRS = {"__pycache__", ".pytest_cache", ".git", ".mypy_cache", ".ruff_cache"}

# Seed 002 envelopes: allowed range of each dimension (0-10) per weight class.
ENVELOPES: dict[str, dict[str, tuple[int, int]]] = {
    "lightweight": dict(zip(DIMENSIONS, [(1, 3), (0, 1), (0, 0), (1, 3), (1, 2), (1, 3), (0, 2), (0, 1)])),
    "middleweight": dict(zip(DIMENSIONS, [(3, 5), (1, 4), (0, 2), (2, 5), (2, 4), (2, 5), (1, 4), (1, 3)])),
    "contender": dict(zip(DIMENSIONS, [(4, 7), (3, 7), (2, 5), (4, 7), (3, 6), (3, 7), (3, 6), (3, 6)])),
    "heavyweight": dict(zip(DIMENSIONS, [(6, 9), (5, 8), (4, 8), (5, 8), (5, 8), (5, 9), (5, 8), (5, 8)])),
    "frontier": dict(zip(DIMENSIONS, [(7, 10), (6, 10), (5, 10), (6, 10), (7, 10), (6, 10), (7, 10), (6, 10)])),
}


def files_under(d: Path) -> list[Path]:
    out: list[Path] = []
    if not d.is_dir():
        return out
    for dirpath, dirnames, filenames in os.walk(d, followlinks=False):
        dirnames[:] = sorted(n for n in dirnames if n not in SKIP_DIRS)
        out += [Path(dirpath) / n for n in sorted(filenames) if not n.endswith(".pyc")]
    return out


def is_test_file(p: Path) -> bool:
    n = p.name
    if n.endswith(".py"):
        return n.startswith("test_") or n.endswith("_test.py")
    return re.search(r"(^test|test\.|_test|Test)", n) is not None


def _plain(p: Path) -> bool:
    """A regular file, not a link (links are never followed when reading a package)."""
    return p.is_file() and not p.is_symlink()


def digest(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


def fingerprint_similarity(a: str, b: str) -> float:
    """Share of ``:``-separated fields equal at the same position."""
    fa, fb = a.split(":"), b.split(":")
    n = max(len(fa), len(fb))
    return sum(1 for x, y in zip(fa, fb) if x == y) / n if n else 0.0


def rel(ch: Challenge, p: Path) -> str:
    return p.relative_to(ch.root).as_posix()


# -- gate 1 -------------------------------------------------------------------------
def completeness(ch: Challenge) -> list[Finding]:
    m = ch.manifest
    out: list[Finding] = []
    required = {
        "hook": "a one-line hook",
        "difficulty_profile": "seed 003's eight traits",
        "expected_failure_modes": "a list of the ways agents are expected to fail",
        "variables": "the mapping of the variables this instance was built with",
        "anti_repetition_fingerprint": "a fingerprint like 'debug:sorting:off-by-one:python:small:1rh'",
    }
    for key, what in required.items():
        if not getattr(m, key):
            out.append(error("spec_completeness", f"{FILE}: key '{key}': missing or empty: expected {what} (gate 1: every field present)"))
    if len(m.deliverables) < 2:
        out.append(error("deliverables", f"{FILE}: key 'deliverables': expected at least 2 deliverables (gate 1), got {len(m.deliverables)}"))
    if m.dimensions is not None:
        env = ENVELOPES[m.weight_class]
        outside = [(d, getattr(m.dimensions, d), env[d]) for d in DIMENSIONS if not env[d][0] <= getattr(m.dimensions, d) <= env[d][1]]
        # Seed 002 tolerates one outlier dimension; two or more mean another class.
        make = warning if len(outside) > 1 else info
        for dim, value, (lo, hi) in outside:
            note = "" if len(outside) > 1 else " (one outlier dimension is tolerated)"
            out.append(make("weight_class_envelope", f"{FILE}: key 'dimensions.{dim}': expected {lo}-{hi} for a {m.weight_class} (seed 002 envelope), got {value:g}{note}"))
    if m.format == "marathon" and not m.phases:
        out.append(warning("phases", f"{FILE}: key 'phases': a marathon without phases is a long standard: expected 1-3 phases after the first"))
    if m.judge.timeout_s > m.time_limit_s:
        out.append(warning("judge_config", f"{FILE}: key 'judge.timeout': longer than the time limit: expected at most {m.time_limit_s:g}s"))
    if "{tests}" not in m.judge.command:
        out.append(warning("judge_config", f"{FILE}: key 'judge.command': no {{tests}}: expected the judge-side test directories to be passed to the command"))
    return out


def repetition(ch: Challenge, known: list[Path] | None = None) -> list[Finding]:
    fp = ch.manifest.anti_repetition_fingerprint
    if not fp:
        return []
    out: list[Finding] = []
    for other in bundled_challenges() if known is None else known:
        if other.resolve() == ch.root:
            continue
        try:
            data = yaml.safe_load((other / FILE).read_text("utf-8")) or {}
        except (OSError, yaml.YAMLError, UnicodeDecodeError):
            continue
        if not isinstance(data, dict) or data.get("id") == ch.manifest.id:
            continue
        theirs = str(data.get("anti_repetition_fingerprint") or "")
        sim = fingerprint_similarity(fp, theirs) if theirs else 0.0
        if sim > FINGERPRINT_THRESHOLD:
            out.append(warning("repetition", f"{FILE}: key 'anti_repetition_fingerprint': {sim:.0%} like '{theirs}' of {data.get('id')}: expected at most {FINGERPRINT_THRESHOLD:.0%} (gate 1)"))
    return out


# -- gate 2 -------------------------------------------------------------------------
def briefing(ch: Challenge) -> list[Finding]:
    if not (ch.root / BRIEFING).is_file():
        return []  # reported by the loader as a missing required file
    words = len(ch.briefing.split())
    if words == 0:
        return [error("briefing", f"{BRIEFING}: empty: expected the task, its deliverables and how it is judged")]
    if words < MIN_BRIEFING_WORDS:
        return [warning("briefing", f"{BRIEFING}: only {words} words: expected a briefing that states the task and deliverables (at least {MIN_BRIEFING_WORDS} words)")]
    return []


def compiles(ch: Challenge, d: Path, what: str) -> list[Finding]:
    out: list[Finding] = []
    for p in files_under(d):
        if p.suffix != ".py" or p.is_symlink():
            continue
        try:
            compile(p.read_bytes(), rel(ch, p), "exec", dont_inherit=True)
        except SyntaxError as exc:
            out.append(error(what, f"{rel(ch, p)}: line {exc.lineno}: syntax error ({exc.msg}): expected {what.replace('_', ' ')} code that at least compiles"))
        except ValueError as exc:  # NUL bytes
            out.append(error(what, f"{rel(ch, p)}: {exc}: expected Python source"))
    return out


def starter_and_solution(ch: Challenge) -> list[Finding]:
    out: list[Finding] = []
    if ch.starter_dir.is_dir() and not files_under(ch.starter_dir):
        out.append(error("starter", "starter/: empty: expected the agent's initial workspace files"))
    out += compiles(ch, ch.starter_dir, "starter")
    sol = ch.solution_dir
    if sol is None or not files_under(sol):
        out.append(error("solution", "solution/: missing or empty: expected the reference solution (files laid over starter/) to calibrate"))
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
                    out.append(warning("tests", f"{rel(ch, d)}/: missing: expected phase {phase}'s static tests (its advance threshold counts them)"))
                continue
            found = [p for p in files_under(d) if is_test_file(p)]
            if not found:
                sev = error if suite == "static" and phase == 1 else warning
                out.append(sev("tests", f"{rel(ch, d)}/: no test files: expected files named test_*.py (or *_test.*) in the {suite} suite"))
            out += compiles(ch, d, "tests")
    return out


def isolation(ch: Challenge) -> list[Finding]:
    """Judge-side tests must not be agent-visible: no copy of one in starter/."""
    starter = {digest(p): p for p in files_under(ch.starter_dir) if _plain(p) and p.stat().st_size > 0}
    out: list[Finding] = []
    roots = [ch.root / "tests"] + [ch.tests_root(n) for n in range(2, ch.phase_count + 1)]
    for base in roots:
        for p in files_under(base):
            if _plain(p) and p.relative_to(base).parts[0] in ("hidden", "adversarial"):
                twin = starter.get(digest(p)) if p.stat().st_size > 0 else None
                if twin is not None:
                    out.append(error("isolation", f"{rel(ch, p)}: the same file is agent-visible as {rel(ch, twin)}: expected judge-side hidden/adversarial tests kept out of starter/"))
    return out


def deliverables(ch: Challenge) -> list[Finding]:
    out: list[Finding] = []
    sol = ch.solution_dir
    for i, d in enumerate(ch.manifest.deliverables):
        if d.kind != "file":
            continue
        present = (ch.starter_dir / d.name).exists() or (sol is not None and (sol / d.name).exists())
        if not present:
            out.append(warning("deliverables", f"{FILE}: key 'deliverables[{i}].name': {d.name} is in neither solution/ nor starter/: expected the reference solution to deliver it"))
    return out


def phases(ch: Challenge) -> list[Finding]:
    out: list[Finding] = []
    for n in range(2, ch.phase_count + 1):
        if not (ch.root / "phases" / str(n) / BRIEFING).is_file():
            out.append(warning("phases", f"phases/{n}/{BRIEFING}: missing: expected the briefing revealed when phase {n} opens"))
    pdir = ch.root / "phases"
    if pdir.is_dir():
        for d in sorted(pdir.iterdir()):
            if not (d.name.isdigit() and 2 <= int(d.name) <= ch.phase_count):
                out.append(error("phases", f"phases/{d.name}: not a declared phase: expected phases/2..{ch.phase_count} (one per entry of 'phases' in {FILE})" if ch.phase_count > 1 else f"phases/{d.name}: no phases declared in {FILE}: expected no phases/ directory"))
    return out


_TEST_DEF = re.compile(r"^\s*(?:async\s+)?def\s+(test_\w+)", re.MULTILINE)
PIVOT_WINDOW = (0.55, 0.65)  # seed 000: "target the 55-65% time mark for pivots"


def judge_test_names(ch: Challenge) -> set[str]:
    names: set[str] = set()
    for phase in range(1, ch.phase_count + 1):
        for p in files_under(ch.tests_root(phase)):
            if p.suffix == ".py" and _plain(p):
                names |= set(_TEST_DEF.findall(p.read_text("utf-8", "replace")))
    return names


def categories(ch: Challenge) -> list[Finding]:
    """judge.categories globs that match no judge-side test name (likely a typo)."""
    names = judge_test_names(ch)
    if not names:
        return []  # not Python tests: names are only known after a run
    return [
        warning("judge_config", f"{FILE}: key 'judge.categories': glob {glob!r} matches no judge-side test: expected a pattern on test names like 'test_edge_*'")
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
            out.append(info("phases", f"{FILE}: key 'phases[{i}].reveal_at': a {phase.pivot} pivot at {mark:.0%} of the time: seed 000 targets {lo:.0%}-{hi:.0%}"))
    return out


def agents(ch: Challenge) -> list[Finding]:
    missing = [a for a in BENCHMARK_AGENTS if a not in ch.agent_names]
    if not missing:
        return []
    return [info("agents", f"agents/: no {', '.join(a + '.yaml' for a in missing)}: gate 3 (calibrate) needs the four benchmark agents")]


def gate_findings(ch: Challenge) -> list[Finding]:
    out: list[Finding] = []
    checks = (completeness, repetition, briefing, starter_and_solution, tests, isolation, deliverables, phases,
              categories, pivots, agents)
    for check in checks:
        out += check(ch)
    return out
