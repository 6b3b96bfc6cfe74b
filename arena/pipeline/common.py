"""Helpers shared by the pipeline's stages: reading a package's files without following
links, naming them relative to the package, and the default time scale of its runs."""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

from arena.challenge.loader import Challenge

FILE = "challenge.yaml"
SKIP_DIRS = {"__pycache__", ".pytest_cache", ".git", ".mypy_cache", ".ruff_cache"}


def imported(ch: Challenge) -> str | None:
    """The source task format ("harbor", "terminal-bench") of a package made by
    ``challenge import``, else None. Gate 1's generation fields (seed 003's Architect output:
    difficulty profile, expected failure modes, two deliverables) and gate 2's briefing length
    describe a generated challenge; an imported task carries only what its format has, so
    their absence is an ``info`` note there, not a finding (docs/challenges.md)."""
    lineage = ch.manifest.extensions.get("x-import")
    return str(lineage.get("task_format") or "task") if isinstance(lineage, dict) else None


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


def is_plain_file(p: Path) -> bool:
    """A regular file, not a link (links are never followed when reading a package)."""
    return p.is_file() and not p.is_symlink()


def digest(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


def rel(ch: Challenge, p: Path) -> str:
    return p.relative_to(ch.root).as_posix()


def default_time_scale(ch: Challenge) -> float:
    """About a minute of real time for the whole time limit (judge runs stay short
    against it: 2 s of judging is ~3% of the attempt). Calibration's and ``validate
    --run``'s default (here, below both: no import circle)."""
    return max(1.0, ch.manifest.time_limit_s / 60.0)
