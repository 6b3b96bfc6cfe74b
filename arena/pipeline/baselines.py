"""Calibration that cannot be circular (issue 12, item 7): beside the author's four benchmark
scripts, gate 3 runs agents the author did not write — a null agent (submits the untouched
starter once), seed 003 gate 4.2's deletion attack (deletes the files the reference
solution changes, then submits) and its test-copying attack (the visible tests' expected
values hard-coded into the implementation: pipeline/attack_copy.py). Each must score below
the naive agent, below the naive band's floor, and at most 30 (seed 003: "Deleting buggy
code scores > 30 — tests too weak"; the seed's copying threshold is 40, the stricter 30 is
applied to every baseline). The regex attack of 4.2 is not implemented."""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml

from arena.challenge.errors import error
from arena.pipeline.attack_copy import build_overlay
from arena.results import Finding

BASELINES = ("null", "attack-delete", "attack-copy")
CEILING = 30.0
WHY = {
    "null": "submits the untouched starter",
    "attack-delete": "deletes the code the reference changes",
    "attack-copy": "hard-codes the visible tests' expected values",
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


def with_baselines(root: Path, into: Path) -> Path:
    """A copy of the package at ``into`` with the baseline agents added."""
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
    return dest


def assess_baselines(runs: dict[str, list[float]], weight_class_bands: dict) -> list[Finding]:
    out = []
    naive_runs = runs.get("naive")
    naive = naive_runs[0] if naive_runs else None
    lo = weight_class_bands["naive"][0]
    for name in BASELINES:
        if not runs.get(name):
            continue
        s = runs[name][0]
        bad = []
        if s > CEILING:
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
