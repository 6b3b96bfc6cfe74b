"""The records a publication writes (seed 003 steps 5.1, 5.2, 5.4, 5.5), as plain dicts,
and the package facts they rest on: which files are sealed under which asset class, and
the hashes. Pure apart from reading the package's files."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime, timedelta, timezone
from typing import Any

from arena.challenge.content import hash_entries, package_files, package_hash, read_entries
from arena.challenge.loader import Challenge

PIPELINE_VERSION = "v2"
# Seed 003 step 5.2, as listed there.
LIFETIME = timedelta(weeks=1)
MAX_INSTANCES = 100
COOLDOWN = timedelta(hours=24)
RETIRE_IF_SOLVE_RATE_ABOVE = 0.90
RETIRE_IF_SOLVE_RATE_BELOW = 0.02
RETIRE_IF_ABANDONMENT_ABOVE = 0.70
RETIRE_AFTER_ATTEMPTS = 500
FLAG_IF_SCORE_BIMODAL = True
FLAG_IF_AVG_SCORE_DRIFTS = 10
# Seed 003 step 5.5.
SOLVE_RATE_CHECK_INTERVAL = 10
ALERT_IF_DEVIATION_FROM_EXPECTED = 0.20

# Seed 003 step 5.3 names four sensitive asset classes; everything an agent may not read
# at the start of an attempt is sealed, so a fifth class holds the rest (phase briefings,
# any other file). Only the briefing and starter/ stay in plain text.
ASSETS = ("challenge_manifest", "reference_solution", "hidden_tests", "judge_configs", "withheld")
PLAINTEXT_TOP = ("briefing.md", "starter")


def iso(t: datetime) -> str:
    return t.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def asset_class(rel: str) -> str | None:
    """The sealed asset class of a package-relative path, or None for plain text."""
    parts = rel.split("/")
    if rel == "challenge.yaml":
        return "challenge_manifest"
    if parts[0] in PLAINTEXT_TOP:
        return None
    if parts[0] in ("solution", "agents"):  # benchmark agents carry the reference's overlays
        return "reference_solution"
    tests_at = (
        1 if parts[0] == "tests" else 3 if parts[0] == "phases" and len(parts) > 3 and parts[2] == "tests" else None
    )
    if tests_at is not None and len(parts) > tests_at:
        return "hidden_tests" if parts[tests_at] in ("hidden", "adversarial") else "judge_configs"
    return "withheld"


def classify(rels: list[str]) -> tuple[list[str], dict[str, list[str]]]:
    """(plaintext paths, {asset class: sealed paths}) of a package's files."""
    plain: list[str] = []
    sealed: dict[str, list[str]] = {}
    for rel in rels:
        cls = asset_class(rel)
        if cls is None:
            plain.append(rel)
        else:
            sealed.setdefault(cls, []).append(rel)
    return plain, sealed


def sha256(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def canonical(doc: object) -> bytes:
    return json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def discriminator_traits(ch: Challenge) -> list[str]:
    """The manifest has no ``discriminator_traits`` key: an ``x-discriminator-traits`` list
    when the author gave one, else the (at most three) highest non-zero traits of the
    difficulty profile, ties by name."""
    given = ch.manifest.extensions.get("x-discriminator-traits")
    if isinstance(given, list) and all(isinstance(t, str) for t in given):
        return list(given)
    prof = ch.manifest.difficulty_profile
    if prof is None:
        return []
    items = sorted(((v, k) for k, v in prof.model_dump().items() if v > 0), key=lambda kv: (-kv[0], kv[1]))
    return [k for _, k in items[:3]]


def confidence(runs: dict[str, list[float]], flaky_agents: tuple[str, ...], flaky_runs: int) -> str:
    """``high`` when the flakiness repeats were run (gate 3 item 7 checked), else ``low``
    (a ``--quick`` calibration: one run per agent). The seed names calculate_confidence
    but never defines it."""
    return "high" if all(len(runs.get(a, [])) >= flaky_runs for a in flaky_agents) else "low"


def metadata(
    ch: Challenge,
    *,
    version: int,
    now: datetime,
    run_id: str,
    calibration: dict[str, Any],
    integrity: dict[str, Any],
    package: str,
    key: str,
    sealed: dict[str, list[str]],
) -> dict[str, Any]:
    """Step 5.1. ``id`` is the package's own id (the store is keyed by it); ``version``
    counts this id's publications from 1."""
    m = ch.manifest
    tpl = m.extensions.get("x-template-id")
    return {
        "id": m.id,
        "version": version,
        "title": m.title,
        "template_id": tpl if isinstance(tpl, str) else None,
        "created_at": iso(now),
        "pipeline_run_id": run_id,
        "category": m.category,
        "format": m.format,
        "weight_class": m.weight_class,
        "weight_class_number": m.weight_class_number,
        "difficulty_profile": m.difficulty_profile.model_dump() if m.difficulty_profile else None,
        "discriminator_traits": discriminator_traits(ch),
        "calibration_scores": {a: calibration["scores"][a] for a in ("reference", "elite", "standard", "naive")},
        "calibration_spread": calibration["spread"],
        "calibration_confidence": calibration["confidence"],
        "integrity_verdict": integrity["verdict"],
        "integrity_flags": integrity["flags"],
        "fingerprint": m.anti_repetition_fingerprint,
        "package_hash": package,
        "sealed": {"cipher": "aes-256-gcm", "key_id": key, "assets": {c: len(v) for c, v in sorted(sealed.items())}},
    }


def lifecycle(now: datetime) -> dict[str, Any]:
    """Step 5.2, with the seed's values."""
    return {
        "state": "live",
        "published_at": iso(now),
        "expires_at": iso(now + LIFETIME),
        "max_instances": MAX_INSTANCES,
        "cooldown_period_s": int(COOLDOWN.total_seconds()),
        "retire_if_solve_rate_above": RETIRE_IF_SOLVE_RATE_ABOVE,
        "retire_if_solve_rate_below": RETIRE_IF_SOLVE_RATE_BELOW,
        "retire_if_abandonment_above": RETIRE_IF_ABANDONMENT_ABOVE,
        "retire_after_attempts": RETIRE_AFTER_ATTEMPTS,
        "flag_if_score_bimodal": FLAG_IF_SCORE_BIMODAL,
        "flag_if_avg_score_drifts": FLAG_IF_AVG_SCORE_DRIFTS,
    }


def lineage(
    meta: dict[str, Any],
    *,
    spec: str,
    package: str,
    calibration: str,
    timings: dict[str, float | None],
    calibration_source: str,
    previous_version: int | None,
) -> dict[str, Any]:
    """Step 5.4. Stages this project does not have (an architect or builder generating the
    package) are null, never invented; only the stages run here are timed."""
    return {
        "challenge_id": meta["id"],
        "version": meta["version"],
        "pipeline_version": PIPELINE_VERSION,
        "pipeline_run_id": meta["pipeline_run_id"],
        "template_id": meta["template_id"],
        "parent_challenge_id": None,
        "previous_version": previous_version,
        "spec_hash": spec,
        "package_hash": package,
        "calibration_hash": calibration,
        "calibration_source": calibration_source,
        "stage_timings": timings,
        "retry_count": 0,
        "generation_cost": None,
    }


def monitors(meta: dict[str, Any], life: dict[str, Any]) -> dict[str, Any]:
    """Step 5.5: the ``monitors.json`` document (pipeline/monitors.py's ``MonitorsFile``,
    the model its reader uses too)."""
    from arena.pipeline.monitors import build  # noqa: PLC0415

    return build(meta, life, interval=SOLVE_RATE_CHECK_INTERVAL, deviation=ALERT_IF_DEVIATION_FROM_EXPECTED).dump()


__all__ = [
    "ASSETS",
    "asset_class",
    "canonical",
    "classify",
    "confidence",
    "discriminator_traits",
    "hash_entries",
    "iso",
    "lifecycle",
    "lineage",
    "metadata",
    "monitors",
    "package_files",
    "package_hash",
    "read_entries",
    "sha256",
]
