"""Seed 003 stage 2, the Scenario Builder, offline: a complete package from a spec and its
template, deterministic, no model. Starter (planted bug, red herrings, logs, fixtures),
briefing, static/hidden tests, the adversarial test template, the reference solution,
the manifest with its judge configuration, and the four benchmark agents with overlays."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path
from typing import Any

import yaml

from arena.formats import WEIGHT_CLASSES
from arena.pipeline.generate.architect import sub
from arena.pipeline.generate.render import overlay_state, path, render, starter_state
from arena.pipeline.generate.templates import Template
from arena.pipeline.generate.texts import briefing, fixtures, log_lines

AGENT_ORDER = ("naive", "standard", "elite", "reference")


def manifest(template: Template, spec: dict[str, Any]) -> dict[str, Any]:
    v = spec["variables"]
    cid = f"{template.id}-{v['domain']}-{v['identifier_seed'][:6]}"
    out = {
        "schema": "gauntlet.challenge/v1",
        "id": cid,
        "title": spec["title"],
        "hook": spec["hook"],
        "category": spec["category"],
        "format": spec["format"],
        "weight_class": WEIGHT_CLASSES[spec["weight_class"] - 1],
        "time_limit": template.data["time_limit"],
        "iterations": template.data["iterations"],
        "difficulty_profile": spec["difficulty_profile"],
        "deliverables": spec["deliverables"],
        "expected_failure_modes": spec["expected_failure_modes"],
        "variables": {k: v[k] for k in ("framework", "domain", "bug_type", "codebase_size", "red_herring_count")},
        "anti_repetition_fingerprint": spec["anti_repetition_fingerprint"],
        "sandbox": {"image": "gauntlet-base", "cpus": 1, "memory": "512m", "pids": 128, "network": False},
        "judge": {
            "command": "python -m pytest -q -p no:cacheprovider --junitxml={report} {tests}",
            "timeout": str(template.data.get("judge_timeout", "60s")),
            "categories": dict(template.data["judge_categories"]),
        },
        "x-template-id": template.id,
        "x-spec-seed": spec["seed"],
    }
    if template.data.get("phases"):  # a Marathon's phases 2.. (files under files/phases/<n>/)
        out["phases"] = sub(template.data["phases"], v["domain_vocabulary"])
    return out


def _write(p: Path, text: str) -> None:
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")


def _module_files(template: Template, spec: dict[str, Any]) -> list[tuple[str, str]]:
    """(rel, text) of files under starter/ that the agents and solution re-render."""
    return [(rel, text) for rel, text in template.files() if rel.startswith("starter/") and "/test_" not in "/" + rel]


def _agents(out: Path, template: Template, spec: dict[str, Any], notes: dict[str, str]) -> None:
    vocab = spec["variables"]["domain_vocabulary"]
    for name in AGENT_ORDER:
        steps: list[Any] = []
        n = 0
        for step in template.data["agents"][name]:
            if isinstance(step, dict) and isinstance(step.get("overlay"), dict):
                n += 1
                plan = step["overlay"]
                state = overlay_state(template, spec, plan)
                d = out / "agents" / name / str(n)
                for rel, text in _module_files(template, spec):
                    if rel.endswith(".py"):
                        _write(d / path(rel, spec).removeprefix("starter/"), render(text, template, spec, state, rel))
                if plan.get("notes", "none") != "none":
                    _write(d / "NOTES.md", notes[str(plan["notes"])])
                steps.append({"overlay": f"agents/{name}/{n}"})
            elif isinstance(step, dict):
                steps.append(
                    {
                        k: (str(x).replace("${module}", vocab["module"]) if isinstance(x, str) else x)
                        for k, x in step.items()
                    }
                )
            else:
                steps.append(step)
        head = f"# {name}: generated from template {template.id} (seed {spec['seed']}); overlays in agents/{name}/\n"
        _write(out / "agents" / f"{name}.yaml", head + yaml.safe_dump({"steps": steps}, sort_keys=False))


def build(template: Template, doc: dict[str, Any], out: Path) -> Path:
    """Write the package to ``out`` (replaced if present); returns it."""
    spec = doc["challenge_spec"]
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    rng = random.Random(f"gauntlet-builder:{spec['variables']['identifier_seed']}")
    vocab = spec["variables"]["domain_vocabulary"]
    starter, fixed = starter_state(template, spec), {s: "fix" for s in template.data["sites"]}
    notes = {k: render(str(t), template, spec, fixed, f"notes.{k}") for k, t in template.data["notes"].items()}
    for rel, text in template.files():
        target = path(rel, spec)
        _write(out / target, render(text, template, spec, starter, rel))
    for rel, text in _module_files(template, spec):
        if rel.endswith(".py"):
            _write(
                out / "solution" / path(rel, spec).removeprefix("starter/"), render(text, template, spec, fixed, rel)
            )
    _write(out / "solution" / "NOTES.md", notes["full"])
    _write(out / "starter" / "logs" / f"{vocab['service']}.log", "\n".join(log_lines(spec, rng)) + "\n")
    _write(out / "starter" / "fixtures" / f"{vocab['nouns']}.json", json.dumps(fixtures(spec, rng), indent=2) + "\n")
    _write(out / "briefing.md", briefing(template, spec))
    _write(out / "challenge.yaml", yaml.safe_dump(manifest(template, spec), sort_keys=False, width=100))
    _agents(out, template, spec, notes)
    return out
