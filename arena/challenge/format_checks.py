"""Findings for a manifest that disagrees with its format's rules (``arena.formats``).

These are findings, not crashes: the message names the key and the format's range.
"""

from __future__ import annotations

from arena.challenge.errors import error
from arena.challenge.models import Manifest
from arena.challenge.units import format_duration
from arena.formats import FORMATS
from arena.results import Finding

FILE = "challenge.yaml"


def effective_reveal_at(manifest: Manifest) -> list[float]:
    """Reveal fraction of phases 2, 3, 4: the manifest's ``reveal_at`` or the format's mark."""
    marks = FORMATS[manifest.format].reveal_marks
    out: list[float] = []
    for i, phase in enumerate(manifest.phases):
        if phase.reveal_at is not None:
            out.append(phase.reveal_at)
        elif i < len(marks):
            out.append(marks[i])
        else:
            out.append(marks[-1] if marks else 1.0)
    return out


def effective_thresholds(manifest: Manifest) -> list[float]:
    """Threshold that opens phases 2, 3, 4: the share of the previous phase's static tests
    passed. A phase entry's ``advance_threshold`` is read like its ``reveal_at``: a
    condition for opening that phase; the format's default where it is not set."""
    default = FORMATS[manifest.format].advance_threshold
    return [p.advance_threshold if p.advance_threshold is not None else default for p in manifest.phases]


def format_findings(manifest: Manifest) -> list[Finding]:
    rules = FORMATS[manifest.format]
    fmt = manifest.format
    findings: list[Finding] = []
    lo, hi = rules.time_range_s
    if not lo <= manifest.time_limit_s <= hi:
        findings.append(
            error(
                "format_rules",
                f"{FILE}: key 'time_limit': expected a time in {format_duration(lo)}-{format_duration(hi)} "
                f"for a {fmt}, got {format_duration(manifest.time_limit_s)}",
            )
        )
    blo, bhi = rules.budget_range
    if not blo <= manifest.iterations <= bhi:
        findings.append(
            error(
                "format_rules",
                f"{FILE}: key 'iterations': expected an integer in {blo}-{bhi} for a {fmt}, got {manifest.iterations}",
            )
        )
    if manifest.phases and not rules.reveal_marks:
        findings.append(
            error(
                "format_rules",
                f"{FILE}: key 'phases': phases are for marathons only: expected no phases for a {fmt}",
            )
        )
    if manifest.phases and rules.reveal_marks:
        marks = effective_reveal_at(manifest)
        for i in range(1, len(marks)):
            if marks[i] <= marks[i - 1]:
                findings.append(
                    error(
                        "format_rules",
                        f"{FILE}: key 'phases[{i}].reveal_at': expected reveal marks increasing "
                        f"phase after phase, got {marks[i]:g} after {marks[i - 1]:g}",
                    )
                )
        for i, mark in enumerate(marks):
            if not 0.0 < mark < rules.cutoff:
                findings.append(
                    error(
                        "format_rules",
                        f"{FILE}: key 'phases[{i}].reveal_at': expected a fraction of the time limit "
                        f"between 0 and {rules.cutoff:g} (exclusive), got {mark:g}",
                    )
                )
    return findings
