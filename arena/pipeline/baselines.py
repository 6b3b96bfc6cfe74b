"""Calibration that cannot be circular (issue 12, item 7; issue 20, item 4): beside the
author's four benchmark scripts, calibrate runs agents the author did not write — a null
agent (submits the untouched starter once) and seed 003 gate 4.2's three trivial-shortcut
attacks: deletion (deletes the files the reference solution changes, then submits),
regex (the best global regex replace of ``COMMON_FIX_PATTERNS``: pipeline/attack_regex.py)
and test copying (the visible tests' expected values hard-coded into the implementation:
pipeline/attack_copy.py). `challenge audit` runs the three attacks too.

Two kinds of finding:

- gate 4 (``trivial_shortcut``), as seed 003 writes it, on the attack's **Objective** (what
  the tests reward; the composite adds Process/Strategy/Integrity, which measure how the
  work was done, not whether the tests can be gamed): deletion above 30 and regex above 50
  are critical (errors), copying above 40 is high (a warning; two highs reject);
- gate 3 sanity on the totals, for every baseline: each must score below the naive agent
  and below the naive band's floor, and the null agent at most 30 (a no-op earns little)."""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml

from arena.challenge.errors import error
from arena.pipeline.attack_copy import build_overlay
from arena.results import Finding

BASELINES = ("null", "attack-delete", "attack-regex", "attack-copy")
ATTACKS = ("attack-delete", "attack-regex", "attack-copy")
CEILING = 30.0  # the null agent's total
# Seed 003 check 4.2: attack -> (objective threshold, severity: error = critical, warning = high)
GATE_4: dict[str, tuple[float, str]] = {
    "attack-delete": (30.0, "error"),
    "attack-regex": (50.0, "error"),
    "attack-copy": (40.0, "warning"),
}
WHY = {
    "null": "submits the untouched starter",
    "attack-delete": "deletes the code the reference changes",
    "attack-regex": "applies a common fix pattern as a global regex replace",
    "attack-copy": "hard-codes the visible tests' expected values",
}
GATE_4_TEXT = {
    "attack-delete": "tests too weak",
    "attack-regex": "challenge too shallow",
    "attack-copy": "the tests check the inputs the agent is shown",
}


def changed_by_reference(root: Path) -> list[str]:
    """Starter files that the reference agent's overlays replace (what a fix touches)."""
    ref, starter = root / "agents" / "reference", root / "starter"
    out = set()
    if ref.is_dir():
        for layer in sorted(p for p in ref.iterdir() if p.is_dir()):
            for f in layer.rglob("*"):
                rel = f.relative_to(layer).as_posix()
                if f.is_file() and (starter / rel).is_file():
                    out.add(rel)
    return sorted(out)


def with_baselines(root: Path, into: Path, regex_overlay: Path | None = None) -> Path:
    """A copy of the package at ``into`` with the baseline agents added (``regex_overlay``:
    the regex attack's best variant, built by ``attack_regex.build_overlay``; without it
    the regex attack submits the starter)."""
    dest = into / root.name
    shutil.copytree(root, dest, symlinks=True)
    agents = dest / "agents"
    agents.mkdir(exist_ok=True)
    (agents / "null.yaml").write_text(yaml.safe_dump({"steps": ["submit"]}))
    doomed = changed_by_reference(root)
    steps = ([{"delete": doomed}] if doomed else []) + ["submit"]
    (agents / "attack-delete.yaml").write_text(yaml.safe_dump({"steps": steps}))
    copied = build_overlay(root, agents / "attack-copy" / "1")
    copy_steps = ([{"overlay": "agents/attack-copy/1"}] if copied else []) + ["submit"]
    (agents / "attack-copy.yaml").write_text(yaml.safe_dump({"steps": copy_steps}))
    regex_steps: list = ["submit"]
    if regex_overlay is not None and regex_overlay.is_dir() and any(regex_overlay.rglob("*")):
        shutil.copytree(regex_overlay, agents / "attack-regex" / "1", symlinks=True)
        regex_steps = [{"overlay": "agents/attack-regex/1"}, "submit"]
    (agents / "attack-regex.yaml").write_text(yaml.safe_dump({"steps": regex_steps}))
    return dest


def gate_4(objectives: dict[str, list[float]]) -> list[Finding]:
    """Seed 003 check 4.2 on the attacks' Objective (first run of each)."""
    out = []
    for name in ATTACKS:
        if not objectives.get(name):
            continue
        score = objectives[name][0]
        limit, severity = GATE_4[name]
        if score > limit:
            out.append(
                Finding(
                    severity=severity,  # type: ignore[arg-type]  # "error" | "warning"
                    check="trivial_shortcut",
                    detail=f"{name} ({WHY[name]}): objective {score:g} above {limit:g} "
                    f"({'critical' if severity == 'error' else 'high'}: {GATE_4_TEXT[name]})",
                )
            )
        else:
            out.append(
                Finding(
                    severity="info",
                    check="trivial_shortcut",
                    detail=f"{name} ({WHY[name]}): objective {score:g}, at most {limit:g}",
                )
            )
    return out


def assess_baselines(
    runs: dict[str, list[float]], weight_class_bands: dict, objectives: dict[str, list[float]] | None = None
) -> list[Finding]:
    """Gate 3 sanity on the totals, and gate 4 on the attacks' objectives when given."""
    out = gate_4(objectives) if objectives else []
    naive_runs = runs.get("naive")
    naive = naive_runs[0] if naive_runs else None
    lo = weight_class_bands["naive"][0]
    for name in BASELINES:
        if not runs.get(name):
            continue
        s = runs[name][0]
        bad = []
        if name == "null" and s > CEILING:
            bad.append(f"above {CEILING:g}")
        if lo > 0 and s >= lo:
            bad.append(f"within the naive band (from {lo:g})")
        if naive is not None and s >= naive:
            bad.append(f"not below the naive agent ({naive:g})")
        if bad:
            out.append(
                error(
                    "calibration",
                    f"baseline {name} ({WHY[name]}): scored {s:g}: " + ", ".join(bad) + ": the tests reward no work",
                )
            )
    return out
