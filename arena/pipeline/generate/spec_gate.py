"""Seed 003 Quality Gate 1 (spec completeness) on a structured spec, with the
anti-repetition fingerprint checked against the store's publications of the last 30 days
(a rejection). Returns findings; any error rejects the spec (retry from Step 1.1).

Seed 003's other two windows live here too, over the same store records: a novel concept
avoids the patterns of the last 60 days (Step 1.1, ``NOVEL_WINDOW_DAYS``), and Check 4.7
(repetition detection, gate 4) compares with every publication of the last 90 days at a
60% threshold (``audit_repetition``): one match flags, two reject."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from statistics import mean
from typing import Any

from arena.challenge.errors import error, warning
from arena.challenge.models import TRAITS
from arena.pipeline.spec import FINGERPRINT_THRESHOLD, fingerprint_similarity
from arena.results import Finding

REQUIRED = (
    "title", "hook", "category", "format", "weight_class", "difficulty_profile", "deliverables",
    "expected_failure_modes", "variables", "anti_repetition_fingerprint",
)  # fmt: skip
VARIABLES = (
    "framework", "domain", "bug_type", "codebase_size", "red_herring_count", "identifier_seed",
    "domain_vocabulary", "complexity_modifiers", "hint_level",
)  # fmt: skip
# Average of the eight traits per weight class (seed 003 names WEIGHT_CLASS_RANGES without
# values; these overlapping ranges are Gauntlet's reading, docs/challenges.md).
WEIGHT_CLASS_RANGES = {1: (0.15, 0.45), 2: (0.3, 0.6), 3: (0.45, 0.75), 4: (0.6, 0.9), 5: (0.7, 1.0)}
WINDOW_DAYS = 30  # gate 1: get_fingerprints(days=30), above FINGERPRINT_THRESHOLD rejects
NOVEL_WINDOW_DAYS = 60  # step 1.1: generate_novel_concept(avoid_patterns=get_recent_patterns(days=60))
AUDIT_WINDOW_DAYS = 90  # check 4.7: get_recent_packages(days=90), "broader window than Stage 1"
AUDIT_THRESHOLD = 0.60  # check 4.7: structural_similarity > 0.60 is a high (warning) finding
SPEC = "spec.yaml"


def recent_fingerprints(store: Path | None, now: datetime, days: int = WINDOW_DAYS) -> list[tuple[str, str, str]]:
    """(fingerprint, challenge id, published_at) of every publication in the store's
    published/ of the last ``days`` days (every version). Reading only."""
    from arena.pipeline.published import list_published, published_root, read_record, versions  # noqa: PLC0415
    from arena.pipeline.sealing import SealError  # noqa: PLC0415

    if store is None or not list_published(store):
        return []
    out = []
    for cdir in sorted(p for p in published_root(store).iterdir() if p.is_dir() and not p.name.startswith(".")):
        for v in versions(cdir):
            try:
                meta, life = read_record(cdir / str(v), "metadata"), read_record(cdir / str(v), "lifecycle")
                at = datetime.fromisoformat(str(life.get("published_at")).replace("Z", "+00:00"))
            except (SealError, ValueError):
                continue
            fp = meta.get("fingerprint")
            if isinstance(fp, str) and fp and now - at <= timedelta(days=days):
                out.append((fp, str(meta.get("id")), at.isoformat()))
    return out


def alike(fp: str, recent: list[tuple[str, str, str]], threshold: float) -> list[tuple[float, str, str, str]]:
    """(similarity, their fingerprint, challenge id, published_at) of every recent
    publication whose fingerprint is more than ``threshold`` like ``fp``."""
    out = []
    for theirs, cid, at in recent:
        sim = fingerprint_similarity(fp, theirs)
        if fp and sim > threshold:
            out.append((sim, theirs, cid, at))
    return out


def audit_repetition(fp: str, recent: list[tuple[str, str, str]]) -> list[Finding]:
    """Check 4.7 against the store's publications of the last 90 days (``recent``): a
    warning (seed 003's 'high') per publication more than 60% like ``fp``."""
    return [
        warning(
            "repetition",
            f"{SPEC}: key 'anti_repetition_fingerprint': {sim:.0%} like '{theirs}' of {cid} published {at} "
            f"(check 4.7: at most {AUDIT_THRESHOLD:.0%} within {AUDIT_WINDOW_DAYS} days)",
        )
        for sim, theirs, cid, at in alike(fp, recent, AUDIT_THRESHOLD)
    ]


def gate_1(doc: dict[str, Any], recent: list[tuple[str, str, str]]) -> list[Finding]:
    spec = doc.get("challenge_spec") if isinstance(doc, dict) else None
    if not isinstance(spec, dict):
        return [error("spec_completeness", f"{SPEC}: key 'challenge_spec': missing: expected the spec mapping")]
    out: list[Finding] = []
    for key in REQUIRED:
        if spec.get(key) in (None, "", [], {}):
            out.append(error("spec_completeness", f"{SPEC}: key '{key}': missing required field"))
    variables: dict[str, Any] = spec["variables"] if isinstance(spec.get("variables"), dict) else {}
    for key in VARIABLES:
        if key not in variables:
            out.append(error("spec_completeness", f"{SPEC}: key 'variables.{key}': missing required field"))
    prof: dict[str, Any] = spec["difficulty_profile"] if isinstance(spec.get("difficulty_profile"), dict) else {}
    values = []
    for dim in TRAITS:
        val = prof.get(dim)
        if not isinstance(val, (int, float)):
            out.append(
                error("difficulty_profile", f"{SPEC}: key 'difficulty_profile.{dim}': missing difficulty dimension")
            )
        elif not 0.0 <= val <= 1.0:
            out.append(error("difficulty_profile", f"{SPEC}: key 'difficulty_profile.{dim}': out of range: {val}"))
        else:
            values.append(float(val))
    wc = spec.get("weight_class")
    if isinstance(wc, int) and wc in WEIGHT_CLASS_RANGES and len(values) == len(TRAITS):
        lo, hi = WEIGHT_CLASS_RANGES[wc]
        avg = mean(values)
        if not lo <= avg <= hi:
            out.append(
                error(
                    "weight_class_range",
                    f"{SPEC}: avg difficulty {avg:.2f} outside weight class {wc} range ({lo}, {hi})",
                )
            )
    elif wc is not None and wc not in WEIGHT_CLASS_RANGES:
        out.append(error("weight_class_range", f"{SPEC}: key 'weight_class': expected 1-5, got {wc!r}"))
    fp = str(spec.get("anti_repetition_fingerprint") or "")
    for sim, theirs, cid, at in alike(fp, recent, FINGERPRINT_THRESHOLD):
        out.append(
            error(
                "repetition",
                f"{SPEC}: key 'anti_repetition_fingerprint': too similar to recent instance {cid} published {at} "
                f"({sim:.0%} match with '{theirs}', threshold {FINGERPRINT_THRESHOLD:.0%})",
            )
        )
    dels = spec.get("deliverables") if isinstance(spec.get("deliverables"), list) else []
    if dels:
        total = sum(float(d.get("weight", 0)) for d in dels if isinstance(d, dict))
        if abs(total - 1.0) > 0.01:
            out.append(error("deliverables", f"{SPEC}: key 'deliverables': weights sum to {total:g}, must be 1.0"))
        if len(dels) < 2:
            out.append(error("deliverables", f"{SPEC}: key 'deliverables': must have at least 2 deliverables"))
    return out
