"""Seed 003 stage 2 with a model: a real coding agent (a built-in adapter ``NAME@MODEL`` or
an agent file, ``--builder``) runs as an ordinary attempt on a *builder task* and writes
the package. The task is a small package of its own (``builder-task/`` beside the spec):
its starter holds the spec and the package guide, its briefing says what to write under
``package/``. The attempt runs in the sandbox, through the model gateway (CONTRACT §8:
metered, the agent file's ``limits:`` enforced, every call in the transcript) and into the
store like any attempt; afterwards the workspace's ``package/`` is the stage's output, the
transcript is copied beside it (``builder/<attempt>.jsonl.gz``) and the manifest names
both in ``x-builder`` (the package's lineage). Gate 2 then judges the package as it judges
the offline builder's, plus ``spec_match``: category, format and weight class as specified.
"""

from __future__ import annotations

import asyncio
import hashlib
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from arena.challenge.errors import error
from arena.formats import WEIGHT_CLASSES
from arena.pipeline import safe_copy
from arena.results import Finding

if TYPE_CHECKING:
    from arena.bus import EventBus

TASK_TIME_LIMIT = "25m"  # under stage 2's 30-minute timeout, in the standard format's range
GUIDE = """# How a Gauntlet challenge package is laid out (CONTRACT §1)

Write the package under `package/` in this directory:

- `challenge.yaml`: the manifest (schema gauntlet.challenge/v1): id, title, hook, category,
  format, weight_class, time_limit, iterations, difficulty_profile, deliverables,
  expected_failure_modes, variables, anti_repetition_fingerprint, sandbox, judge
  (command with {report} and {tests}, timeout, categories). Category, format and weight
  class as `spec.yaml` says.
- `briefing.md`: what the solver reads (the task, the deliverables, how it is judged).
- `starter/`: the solver's initial workspace, with the planted problem and its visible tests.
- `tests/static/`, `tests/hidden/`: judge-side pytest suites.
- `tests/adversarial/test_*.py`: an adversarial test *template*: `SEED`,
  `generate_cases(seed, n)` returning at least 5 cases, and one `test_*` function taking a
  case; the reference solution must pass every generated case.
- `solution/`: the reference solution (files overlaid on the starter).
- `agents/naive.yaml`, `standard.yaml`, `elite.yaml`, `reference.yaml`: the scripted
  benchmark agents calibration runs (steps; `overlay: agents/NAME/N` copies files in).
"""


class BuilderError(Exception):
    """The builder's attempt could not run (sandbox, gateway, upstream): the job stops,
    its report written; no retry is spent on a package nobody could write."""


@dataclass
class BuilderRun:
    agent: str
    attempt: str
    status: str
    reason: str
    workspace: Path
    transcript: Path | None
    usage: dict[str, Any] = field(default_factory=dict)
    refused: str | None = None  # why the workspace's package/ was not copied (a link out, too big)

    def doc(self) -> dict[str, Any]:
        return {
            "agent": self.agent, "attempt": self.attempt, "status": self.status, "reason": self.reason,
            "workspace": str(self.workspace), "transcript": str(self.transcript) if self.transcript else None,
            "usage": self.usage, "refused": self.refused,
        }  # fmt: skip

    def findings(self) -> list[Finding]:
        """Gate 2's finding for a package that was refused before it was copied."""
        return [error("package_links", self.refused)] if self.refused else []


def copy_package(workspace: Path, out: Path) -> str | None:
    """The builder's ``workspace/package/`` copied to ``out`` by ``safe_copy`` (never a link
    followed out, bounded in bytes and entries); the refusal naming the file, else None.
    A refused package leaves ``out`` absent: nothing of it is kept for gate 2 to read."""
    written = workspace / "package"
    if not written.is_symlink() and not written.is_dir():
        return None  # none written: gate 2 reports the missing package
    try:
        safe_copy.copy_tree(written, out, safe_copy.Budget(), ignore=("__pycache__", "*.pyc"), label="package")
        bad = safe_copy.links_out(out)
        if bad:
            raise safe_copy.CopyRefused(f"package/{bad[0]}: a link leading out of the package")
    except (safe_copy.CopyRefused, OSError) as e:
        shutil.rmtree(out, ignore_errors=True)
        return f"{e}: the builder's package is refused (nothing of it copied)"
    return None


def _novel(spec: dict[str, Any]) -> str:
    """Step 1.1's novel concept (``concept_source: novel``): what to invent, from which
    scaffold, and the recent patterns to avoid; empty for a template's spec."""
    nc = spec.get("novel_concept")
    if spec.get("concept_source") != "novel" or not isinstance(nc, dict):
        return ""
    avoid = "".join(f"- `{p}`\n" for p in nc.get("avoid_patterns") or []) or "- (none published in 60 days)\n"
    return (
        "\n## A novel concept\n\n"
        f"{nc.get('brief', '')}\n\n"
        f"Scaffold template: `{nc.get('scaffold_template')}` (its layout and sizes only). "
        "Patterns published in the last 60 days, to avoid:\n\n" + avoid
    )


def _briefing(spec: dict[str, Any]) -> str:
    return (
        f"# Build a challenge package: {spec['title']}\n\n"
        "You are the Scenario Builder of a challenge pipeline. `spec.yaml` in this directory is the\n"
        "challenge's structured spec; `GUIDE.md` describes the package layout. Write the complete\n"
        "package under `package/`: the manifest, the briefing, the starter with its planted problem,\n"
        "static and hidden tests, an adversarial test template generating at least five cases, the\n"
        "reference solution and the four benchmark agents (naive, standard, elite, reference).\n"
        "The reference solution must pass every judge-side test; the unmodified starter must fail\n"
        "some of them. Only `package/` is kept when you finish; submitting is not needed.\n"
    ) + _novel(spec)


def builder_task(doc: dict[str, Any], dest: Path) -> Path:
    """The builder task package at ``dest`` (replaced): a manifest, a briefing, a starter
    with ``spec.yaml`` and ``GUIDE.md``, and a judge-side check that ``package/`` exists."""
    spec = doc["challenge_spec"]
    if dest.exists():
        shutil.rmtree(dest)
    (dest / "starter").mkdir(parents=True)
    (dest / "tests" / "static").mkdir(parents=True)
    (dest / "starter" / "spec.yaml").write_text(yaml.safe_dump(doc, sort_keys=False, width=100), encoding="utf-8")
    (dest / "starter" / "GUIDE.md").write_text(GUIDE, encoding="utf-8")
    (dest / "briefing.md").write_text(_briefing(spec), encoding="utf-8")
    (dest / "tests" / "static" / "test_package.py").write_text(
        "from pathlib import Path\n\n\ndef test_package_has_a_manifest():\n"
        "    assert Path('package/challenge.yaml').is_file()\n",
        encoding="utf-8",
    )
    manifest = {
        "schema": "gauntlet.challenge/v1",
        "id": f"builder-{spec['template_id']}"[:64],
        "title": f"Builder task: {spec['title']}",
        "category": "debug-gauntlet",
        "format": "standard",
        "weight_class": "heavyweight",
        "time_limit": TASK_TIME_LIMIT,
        "iterations": 3,
        "deliverables": [{"name": "package", "kind": "tests", "weight": 1.0, "description": "package/ written"}],
        "sandbox": {"image": "gauntlet-base", "cpus": 1, "memory": "1g", "pids": 256, "network": False},
        "judge": {"command": "python -m pytest -q -p no:cacheprovider --junitxml={report} {tests}", "timeout": "60s"},
    }
    (dest / "challenge.yaml").write_text(yaml.safe_dump(manifest, sort_keys=False), encoding="utf-8")
    return dest


async def _attempt(task: Path, agent: str, store: Path, sandbox: str | None, bus: "EventBus | None") -> BuilderRun:
    from arena.attempt import Arena  # noqa: PLC0415 — the whole engine, only when running
    from arena.challenge import load_challenge  # noqa: PLC0415
    from arena.paths import transcripts_root  # noqa: PLC0415

    ch = load_challenge(task)
    arena = await Arena.open(store, sandbox=sandbox, parallel=1, bus=bus)
    try:
        a = arena.attempt(ch, agent)
        status = await arena.run_one(a)
    finally:
        await arena.close()
    from arena.gateway.transcript import transcript_path  # noqa: PLC0415

    t = transcript_path(transcripts_root(store), a.id)
    return BuilderRun(agent, a.id, status, a.reason, a.workspace, t if t.is_file() else None,
                      dict(a.support.usage or {}))  # fmt: skip


def spec_match(pkg: Path, spec: dict[str, Any]) -> list[Finding]:
    """The package's manifest keeps the spec's category, format and weight class."""
    try:
        m = yaml.safe_load((pkg / "challenge.yaml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return []  # gate 2's loader reports an unreadable or missing manifest
    if not isinstance(m, dict):
        return []
    want = {
        "category": spec["category"],
        "format": spec["format"],
        "weight_class": WEIGHT_CLASSES[spec["weight_class"] - 1],
    }
    got = dict(m)
    wc = got.get("weight_class")
    if isinstance(wc, int) and not isinstance(wc, bool) and 1 <= wc <= len(WEIGHT_CLASSES):
        got["weight_class"] = WEIGHT_CLASSES[wc - 1]  # the manifest may give the class as 1-5
    return [
        error("spec_match", f"challenge.yaml: {k} is {m.get(k)!r}: the spec says {v!r}")
        for k, v in want.items()
        if str(got.get(k)) != str(v)
    ]


def build_with_agent(
    doc: dict[str, Any], out: Path, *, agent: str, store: Path, sandbox: str | None = None,
    bus: "EventBus | None" = None,
) -> BuilderRun:  # fmt: skip
    """Run ``agent`` on the builder task; its ``package/`` becomes ``out`` (replaced; left
    absent when the agent wrote none, for gate 2 to report). Returns the attempt's record."""
    work = out.parent
    task = builder_task(doc, work / "builder-task")
    run = asyncio.run(_attempt(task, agent, store, sandbox, bus))
    if run.status not in ("finished", "interrupted"):  # the infrastructure's failure, not the package's
        raise BuilderError(f"the builder's attempt {run.attempt} ended {run.status}: {run.reason}")
    if out.exists():
        shutil.rmtree(out)
    run.refused = copy_package(run.workspace, out)
    if run.transcript is not None:
        kept = work / "builder" / run.transcript.name
        kept.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(run.transcript, kept)
        run.transcript = kept
    _stamp(out / "challenge.yaml", run)
    return run


def _stamp(manifest: Path, run: BuilderRun) -> None:
    """``x-builder`` in the manifest: who wrote the package, and the transcript's digest."""
    try:
        data = yaml.safe_load(manifest.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return
    if not isinstance(data, dict):
        return
    t = run.transcript
    data["x-builder"] = {
        "agent": run.agent,
        "attempt": run.attempt,
        "transcript": f"builder/{t.name}" if t else None,
        "transcript_sha256": hashlib.sha256(t.read_bytes()).hexdigest() if t else None,
        "model_calls": run.usage.get("calls"),
    }
    manifest.write_text(yaml.safe_dump(data, sort_keys=False, width=100), encoding="utf-8")
