"""Seed 003 gate 4 (integrity audit), the parts that can be checked on a package:
answer leakage into agent-visible files, the trivial shortcut (the unmodified starter
already passes; run through the judge by ``runs``), and repetition. Ambiguity and bias
need a model reading the briefing and are not checked."""

from __future__ import annotations

import re
from pathlib import Path

from arena.challenge.errors import error, warning
from arena.pipeline.common import files_under
from arena.pipeline.package import isolation
from arena.pipeline.spec import repetition
from arena.challenge.loader import Challenge
from arena.results import Finding

MIN_LEAK_LINE = 12  # shorter added lines (``x += 1``) match too much by chance
MIN_TEST_NAME = 8
_TEST_DEF = re.compile(r"^\s*(?:async\s+)?def\s+(test_\w+)", re.MULTILINE)


def _text(p: Path) -> str | None:
    if p.is_symlink():
        return None  # never follow links out of the package
    try:
        data = p.read_bytes()
    except OSError:
        return None
    if b"\x00" in data:
        return None
    return data.decode("utf-8", "replace")


def visible_texts(ch: Challenge) -> dict[str, str]:
    """Everything the agent can read: starter files and the briefings (phase ones once revealed)."""
    out: dict[str, str] = {}
    for p in files_under(ch.starter_dir):
        if not p.is_symlink():
            t = _text(p)
            if t is not None:
                out[p.relative_to(ch.root).as_posix()] = t
    out["briefing.md"] = ch.briefing
    for n in range(2, ch.phase_count + 1):
        b = ch.phase_briefing(n)
        if b:
            out[f"phases/{n}/briefing.md"] = b
    return out


def solution_lines(ch: Challenge) -> list[tuple[str, str]]:
    """(solution file, line) for lines the solution brings that appear nowhere in starter/."""
    sol = ch.solution_dir
    if sol is None:
        return []
    starter_lines: set[str] = set()
    for p in files_under(ch.starter_dir):
        t = _text(p)
        if t is not None:
            starter_lines |= {ln.strip() for ln in t.splitlines()}
    out: list[tuple[str, str]] = []
    for p in files_under(sol):
        t = _text(p)
        if t is None:
            continue
        for ln in t.splitlines():
            s = ln.strip()
            if len(s) >= MIN_LEAK_LINE and s not in starter_lines and re.search(r"\w", s):
                out.append((p.relative_to(ch.root).as_posix(), s))
    return out


def answer_leakage(ch: Challenge) -> list[Finding]:
    texts = visible_texts(ch)
    out: list[Finding] = []
    seen: set[tuple[str, str]] = set()
    for sol_file, line in solution_lines(ch):
        for where, text in texts.items():
            if line in text and (where, line) not in seen:
                seen.add((where, line))
                out.append(
                    error(
                        "answer_leakage",
                        f"{where}: contains {line[:80]!r} from {sol_file}: expected the reference solution's code kept out of agent-visible files",
                    )
                )
    for phase in range(1, ch.phase_count + 1):
        for suite in ("hidden", "adversarial"):
            for p in files_under(ch.tests_root(phase) / suite):
                t = _text(p) if p.suffix == ".py" else None
                for name in sorted(set(_TEST_DEF.findall(t or ""))):
                    if len(name) < MIN_TEST_NAME:
                        continue
                    pattern = re.compile(rf"\b{re.escape(name)}\b")
                    for where, text in texts.items():
                        if pattern.search(text):
                            out.append(
                                warning(
                                    "answer_leakage",
                                    f"{where}: names the {suite} test {name} ({p.relative_to(ch.root).as_posix()}): expected {suite} test specifics withheld",
                                )
                            )
    return out


def verdict(findings: list[Finding]) -> str:
    """Seed 003 gate 4: any critical (error) or 2+ high (warning) rejects; one high flags."""
    errors = sum(f.severity == "error" for f in findings)
    warnings = sum(f.severity == "warning" for f in findings)
    if errors or warnings >= 2:
        return "reject"
    return "pass_with_flags" if warnings else "pass_clean"


def exposed_tests(ch: Challenge) -> list[Finding]:
    """Check 4.5: judge-side test files the agent could read (a copy in starter/)."""
    return [Finding(severity=f.severity, check="exploit", detail=f.detail) for f in isolation(ch)]


def static_audit(ch: Challenge) -> list[Finding]:
    return answer_leakage(ch) + exposed_tests(ch) + repetition(ch)


__all__ = ["answer_leakage", "exposed_tests", "static_audit", "verdict", "visible_texts"]
