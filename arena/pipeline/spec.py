"""Seed 003 stage 1 (Challenge Architect), quality gate 1: spec completeness — every
manifest field present, the weight class's dimension envelope, the anti-repetition
fingerprint against the known catalogue. Each check returns findings."""

from __future__ import annotations

from pathlib import Path

import yaml

from arena.challenge.errors import error, info, warning
from arena.challenge.loader import Challenge, bundled_challenges
from arena.challenge.models import DIMENSIONS
from arena.results import Finding
from arena.pipeline.common import FILE, imported

FINGERPRINT_THRESHOLD = 0.70  # seed 003 gate 1

# Seed 002 envelopes: allowed range of each dimension (0-10) per weight class.
ENVELOPES: dict[str, dict[str, tuple[int, int]]] = {
    "lightweight": dict(zip(DIMENSIONS, [(1, 3), (0, 1), (0, 0), (1, 3), (1, 2), (1, 3), (0, 2), (0, 1)])),
    "middleweight": dict(zip(DIMENSIONS, [(3, 5), (1, 4), (0, 2), (2, 5), (2, 4), (2, 5), (1, 4), (1, 3)])),
    "contender": dict(zip(DIMENSIONS, [(4, 7), (3, 7), (2, 5), (4, 7), (3, 6), (3, 7), (3, 6), (3, 6)])),
    "heavyweight": dict(zip(DIMENSIONS, [(6, 9), (5, 8), (4, 8), (5, 8), (5, 8), (5, 9), (5, 8), (5, 8)])),
    "frontier": dict(zip(DIMENSIONS, [(7, 10), (6, 10), (5, 10), (6, 10), (7, 10), (6, 10), (7, 10), (6, 10)])),
}


def fingerprint_similarity(a: str, b: str) -> float:
    """Share of ``:``-separated fields equal at the same position."""
    fa, fb = a.split(":"), b.split(":")
    n = max(len(fa), len(fb))
    return sum(1 for x, y in zip(fa, fb) if x == y) / n if n else 0.0


# -- gate 1 -------------------------------------------------------------------------
def completeness(ch: Challenge) -> list[Finding]:
    m = ch.manifest
    out: list[Finding] = []
    source = imported(ch)
    required = {
        "hook": "a one-line hook",
        "difficulty_profile": "seed 003's eight traits",
        "expected_failure_modes": "a list of the ways agents are expected to fail",
        "variables": "the mapping of the variables this instance was built with",
        "anti_repetition_fingerprint": "a fingerprint like 'debug:sorting:off-by-one:python:small:1rh'",
    }
    for key, what in required.items():
        if not getattr(m, key):
            out.append(
                (info if source else error)(
                    "spec_completeness",
                    f"{FILE}: key '{key}': missing or empty: expected {what} (gate 1: every field present)"
                    + (f"; an imported {source} task has none" if source else ""),
                )
            )
    if len(m.deliverables) < 2 and source:
        out.append(info("deliverables", f"{FILE}: key 'deliverables': one, the imported {source} task's own verdict"))
    elif len(m.deliverables) < 2:
        out.append(
            error(
                "deliverables",
                f"{FILE}: key 'deliverables': expected at least 2 deliverables (gate 1), got {len(m.deliverables)}",
            )
        )
    if m.dimensions is not None:
        env = ENVELOPES[m.weight_class]
        outside = [
            (d, getattr(m.dimensions, d), env[d])
            for d in DIMENSIONS
            if not env[d][0] <= getattr(m.dimensions, d) <= env[d][1]
        ]
        # Seed 002 tolerates one outlier dimension; two or more mean another class.
        make = warning if len(outside) > 1 else info
        for dim, value, (lo, hi) in outside:
            note = "" if len(outside) > 1 else " (one outlier dimension is tolerated)"
            out.append(
                make(
                    "weight_class_envelope",
                    f"{FILE}: key 'dimensions.{dim}': expected {lo}-{hi} for a {m.weight_class} (seed 002 envelope), got {value:g}{note}",
                )
            )
    if m.format == "marathon" and not m.phases:
        out.append(
            warning(
                "phases",
                f"{FILE}: key 'phases': a marathon without phases is a long standard: expected 1-3 phases after the first",
            )
        )
    if m.judge.timeout_s > m.time_limit_s:
        out.append(
            warning(
                "judge_config",
                f"{FILE}: key 'judge.timeout': longer than the time limit: expected at most {m.time_limit_s:g}s",
            )
        )
    if "{tests}" not in m.judge.command and not (source and "/judge/tests/" in m.judge.command):
        out.append(
            warning(
                "judge_config",
                f"{FILE}: key 'judge.command': no {{tests}}: expected the judge-side test directories to be passed to the command",
            )
        )
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
            out.append(
                warning(
                    "repetition",
                    f"{FILE}: key 'anti_repetition_fingerprint': {sim:.0%} like '{theirs}' of {data.get('id')}: expected at most {FINGERPRINT_THRESHOLD:.0%} (gate 1)",
                )
            )
    return out
