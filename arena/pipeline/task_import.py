"""``gauntlet challenge import DIR``: a Harbor or Terminal-Bench task as a Gauntlet package.

Harbor (``task.toml``, ``instruction.md``, ``environment/Dockerfile``, ``tests/test.sh``
writing ``/logs/verifier/reward.txt|json``, ``solution/solve.sh``) and Terminal-Bench
(``task.yaml`` with ``instruction``, ``Dockerfile``, ``run-tests.sh``, ``tests/``,
``solution.sh``). Neither project's own task model is imported: both packages require
Python >= 3.12 (this project runs on 3.11) and pull in large trees (litellm, supabase,
fastapi, streamlit ...); the documented fields used here are read with the pydantic
models below (their names and defaults as in harbor 0.25.0 ``models/task/config.py`` and
terminal-bench 0.2.18 ``handlers/trial_handler.py``), other keys are ignored.

The package made (a copy; the task directory is never changed):

- ``briefing.md`` = the instruction; ``starter/`` = the files the Dockerfile COPYs into
  its WORKDIR (static reading of COPY/ADD lines; the build context is ``environment/``
  for Harbor, the task directory for Terminal-Bench);
- ``tests/static/`` = the task's tests with the test script; the judge command runs it
  with ``judge.results: {format: reward}`` (Terminal-Bench: the script's exit status
  becomes the reward, as Harbor's own Terminal-Bench mapper does), ``isolation: none``;
- ``environment/Dockerfile`` (and its context), built by ``task_image.build`` with the
  gauntlet layer on top; ``sandbox.image`` names that build;
- ``agents/reference.yaml`` runs the solution script in the workspace, ``agents/noop.yaml``
  submits the untouched workspace (the oracle and the no-op baselines);
- ``x-import`` in the manifest: source path, task format, task hash (lineage).

A multi-step Harbor task (``[[steps]]``) becomes a Marathon, one phase per step:
``arena/pipeline/task_steps.py``.

The task's absolute paths are rewritten in copies of its scripts so that they run in a
Gauntlet sandbox on either backend: the WORKDIR (``/app``) becomes
``${GAUNTLET_TASK_WORKDIR:-/app}``, ``/tests`` ``${GAUNTLET_TASK_TESTS:-/tests}``,
``/logs/verifier`` ``${GAUNTLET_TASK_VERIFIER:-/logs/verifier}``, ``/solution``
``${GAUNTLET_TASK_SOLUTION:-/solution}`` (unset, the scripts still run as they did).
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import shutil
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from arena.formats import FORMATS
from arena.pipeline import safe_copy
from arena.pipeline.safe_copy import Budget, CopyRefused
from arena.pipeline.task_model import (
    SOLUTION_DIR,
    TESTS_IN_JUDGE,
    WORKDIR_EXPECTED,
    HarborTask,
    ImportError_,
    TerminalBenchTask,
    _need,
    _text,
    _validation,
    rewrite_paths,
    workdir_ok,
)
from arena.pipeline.task_steps import Step, apply_steps, read_steps, write_steps


@dataclass
class Task:
    kind: str  # harbor | terminal-bench
    source: Path
    instruction: str
    dockerfile: Path
    context: Path  # the Docker build context
    tests_dir: Path | None
    test_script: Path
    solution_script: Path | None
    solution_dir: Path | None
    agent_timeout_s: float | None
    verifier_timeout_s: float
    difficulty: str
    cpus: float | None = None
    memory_mb: int | None = None
    workdir: str = "/app"
    notes: list[str] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)  # a multi-step Harbor task's (task_steps.py)


def read_task(src: Path) -> Task:
    """The task of a Harbor or Terminal-Bench directory; ``ImportError_`` names the file and field."""
    src = Path(src)
    if not src.is_dir():
        raise ImportError_(f"{src}: no such directory: expected a Harbor or Terminal-Bench task directory")
    src = src.resolve()
    if (src / "task.toml").is_file():
        return _harbor(src)
    if (src / "task.yaml").is_file():
        return _terminal_bench(src)
    raise ImportError_(f"{src}: neither task.toml (Harbor) nor task.yaml (Terminal-Bench): expected a task directory")


def _harbor(src: Path) -> Task:
    try:
        data = tomllib.loads(_text(src / "task.toml", src))
    except tomllib.TOMLDecodeError as e:
        raise ImportError_(f"task.toml: not valid TOML ({e})") from None
    try:
        cfg = HarborTask.model_validate(data)
    except ValidationError as e:
        raise _validation(e, "task.toml") from None
    steps = read_steps(src, cfg) if cfg.steps else []
    env = src / "environment"
    if cfg.environment.docker_image and not (env / "Dockerfile").is_file():
        raise ImportError_(
            f"task.toml: key 'environment.docker_image' ({cfg.environment.docker_image}): a prebuilt image without"
            " environment/Dockerfile is not imported: expected environment/Dockerfile"
        )
    dockerfile = _need(env / "Dockerfile", src, "the task's environment (a Dockerfile)")
    tests = src / "tests"
    if steps:  # step 1's script stands in for the task's (the package's phases come from task_steps)
        script = steps[0].test_script
    else:
        script = _need(tests / "test.sh", src, "the verifier script that writes /logs/verifier/reward.txt")
    solve = src / "solution" / "solve.sh"
    meta = cfg.metadata
    if steps:
        instruction = steps[0].instruction
    else:
        instruction = _text(_need(src / "instruction.md", src, "the task's instruction (markdown)"), src)
    return Task(
        kind="harbor",
        source=src,
        instruction=instruction,
        dockerfile=dockerfile,
        context=env,
        tests_dir=tests,
        test_script=script,
        solution_script=solve if solve.is_file() else None,
        solution_dir=src / "solution" if solve.is_file() else None,
        agent_timeout_s=cfg.agent.timeout_sec,
        verifier_timeout_s=cfg.verifier.timeout_sec,
        difficulty=str(meta.get("difficulty", "medium")),
        cpus=cfg.environment.cpus,
        memory_mb=cfg.environment.memory_mb,
        workdir=cfg.environment.workdir or _dockerfile_workdir(dockerfile) or "/app",
        steps=steps,
    )


def _terminal_bench(src: Path) -> Task:
    try:
        data = yaml.safe_load(_text(src / "task.yaml", src))
    except yaml.YAMLError as e:
        raise ImportError_(f"task.yaml: not valid YAML ({e})") from None
    if not isinstance(data, dict):
        raise ImportError_("task.yaml: expected a mapping of the task's keys (instruction, difficulty ...)")
    try:
        cfg = TerminalBenchTask.model_validate(data)
    except ValidationError as e:
        raise _validation(e, "task.yaml") from None
    if not cfg.instruction.strip():
        raise ImportError_("task.yaml: key 'instruction': empty: expected the task's instruction")
    if (src / "solution.yaml").is_file() and not (src / "solution.sh").is_file():
        raise ImportError_("solution.yaml: a command-list solution is not imported: expected solution.sh")
    dockerfile = _need(src / "Dockerfile", src, "the task's environment (a Dockerfile)")
    solve = src / "solution.sh"
    return Task(
        kind="terminal-bench",
        source=src,
        instruction=cfg.instruction,
        dockerfile=dockerfile,
        context=src,
        tests_dir=src / "tests" if (src / "tests").is_dir() else None,
        test_script=_need(src / "run-tests.sh", src, "the test runner script"),
        solution_script=solve if solve.is_file() else None,
        solution_dir=None,
        agent_timeout_s=cfg.max_agent_timeout_sec,
        verifier_timeout_s=cfg.max_test_timeout_sec,
        difficulty=cfg.difficulty,
        workdir=_dockerfile_workdir(dockerfile) or "/app",
    )


# -- Dockerfile reading -----------------------------------------------------------
def dockerfile_lines(path: Path) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of a Dockerfile, continuation lines joined, comments dropped."""
    out, buf = [], ""
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not buf and (not line or line.startswith("#")):
            continue
        if line.endswith("\\"):
            buf += line[:-1] + " "
            continue
        buf += line
        parts = buf.split(None, 1)
        out.append((parts[0].upper(), parts[1] if len(parts) > 1 else ""))
        buf = ""
    return out


def _dockerfile_workdir(path: Path) -> str | None:
    wd = None
    for ins, arg in dockerfile_lines(path):
        if ins == "WORKDIR":
            wd = arg.strip().strip('"')
    if wd is not None and not workdir_ok(wd):  # pasted into the image's gauntlet layer (issue 36)
        raise ImportError_(f"{path.name}: WORKDIR {wd!r}: {WORKDIR_EXPECTED}")
    return wd


def _starter_files(task: Task, dest: Path, budget: Budget) -> list[str]:
    """Copy what the Dockerfile COPYs into its WORKDIR to ``dest``; the sources copied
    (never through a link out of the copied source: ``safe_copy``)."""
    copied: list[str] = []
    workdir = task.workdir.rstrip("/") or "/"
    cur = "/"
    for ins, arg in dockerfile_lines(task.dockerfile):
        if ins == "WORKDIR":
            cur = arg.strip().strip('"')
            continue
        if ins not in ("COPY", "ADD"):
            continue
        try:
            parts = [p for p in shlex.split(arg) if not p.startswith("--")]
        except ValueError:
            continue
        if len(parts) < 2:
            continue
        *srcs, target = parts
        target = target if target.startswith("/") else f"{cur.rstrip('/')}/{target}"
        if target.rstrip("/") != workdir and not target.startswith(workdir + "/"):
            continue
        sub = target[len(workdir) :].strip("/")
        for s in srcs:
            real = safe_copy.resolve_inside(task.context, s)
            if real is None:
                raise ImportError_(f"{task.dockerfile.name}: {ins} {s}: outside the build context")
            p = task.context / real
            label = p.relative_to(task.source).as_posix()
            if p.is_dir():
                safe_copy.copy_tree(p, dest / sub, budget, ignore=("Dockerfile",), label=label)
            elif p.is_file():
                to = (
                    dest / sub / p.name
                    if (target.endswith("/") or len(srcs) > 1 or p.is_file() and not sub)
                    else dest / sub
                )
                to.parent.mkdir(parents=True, exist_ok=True)
                safe_copy.copy_tree(p, to, budget, label=label)
            else:
                continue
            copied.append(s)
    return copied


# -- path rewriting ---------------------------------------------------------------
# -- the package ------------------------------------------------------------------
def task_hash(src: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(q for q in src.rglob("*") if q.is_file() and not q.is_symlink()):
        h.update(p.relative_to(src).as_posix().encode() + b"\0")
        h.update(hashlib.sha256(p.read_bytes()).digest())
    return h.hexdigest()


def _slug(name: str) -> str:
    s = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return (s or "task")[:56]


_WEIGHT = {"easy": "lightweight", "medium": "middleweight", "hard": "contender"}


def _format_and_time(task: Task, fmt: str | None) -> tuple[str, float, list[str]]:
    notes = []
    t = task.agent_timeout_s
    if fmt is None:
        if t is None or t <= FORMATS["sprint"].time_range_s[1]:
            fmt = "sprint"
        else:
            fmt = "standard"
    lo, hi = FORMATS[fmt].time_range_s
    limit = t if t is not None else lo
    if not lo <= limit <= hi:
        notes.append(
            f"the task's agent timeout {limit:g}s is outside {fmt}'s {lo:g}-{hi:g}s: time limit set to the nearest"
        )
        limit = min(max(limit, lo), hi)
    return fmt, limit, notes


def import_task(src: Path | str, out: Path | str, *, fmt: str | None = None, image: str | None = None) -> dict:
    """Write the package of the task at ``src`` to ``out`` (a new directory); a summary."""
    task = read_task(Path(src))
    out = Path(out)
    if out.exists() and any(out.iterdir()):
        raise ImportError_(f"{out}: exists and is not empty: expected a new directory for the package")
    real = Path(os.path.realpath(out))
    if real == task.source or task.source in real.parents:
        raise ImportError_(f"{out}: inside the task directory {task.source}: expected a package directory outside it")
    made = not out.exists()
    try:
        return _write_package(task, out, fmt, image, Budget())
    except CopyRefused as e:
        _remove_partial(out, made)
        raise ImportError_(str(e)) from None
    except ImportError_:
        _remove_partial(out, made)
        raise
    except OSError as e:  # a file that vanished or cannot be read mid-copy: named, no traceback
        _remove_partial(out, made)
        raise ImportError_(f"{e.filename or out}: {e.strerror or e}: the task could not be copied") from None


def _remove_partial(out: Path, made: bool) -> None:
    """A refused import leaves no half-written package (an empty --out given stays, empty)."""
    if made:
        shutil.rmtree(out, ignore_errors=True)
    elif out.is_dir():
        for p in out.iterdir():
            shutil.rmtree(p) if p.is_dir() and not p.is_symlink() else p.unlink()


def _write_package(task: Task, out: Path, fmt: str | None, image: str | None, budget: Budget) -> dict:
    digest = task_hash(task.source)
    ident = _slug(task.source.name)
    if task.steps and fmt not in (None, "marathon"):
        raise ImportError_(f"task.toml: key 'steps': a multi-step task imports as a marathon (its phases), not a {fmt}")
    fmt, limit, notes = _format_and_time(task, "marathon" if task.steps else fmt)
    notes = [] if task.steps else notes  # a multi-step task's time comes from its steps (task_steps.py)
    out.mkdir(parents=True, exist_ok=True)
    (out / "briefing.md").write_text(task.instruction if task.instruction.endswith("\n") else task.instruction + "\n")
    starter = out / "starter"
    starter.mkdir()
    copied = _starter_files(task, starter, budget)
    marathon = write_steps(task, task.steps, out, notes, budget) if task.steps else None
    staged = task.source / "steps" / task.steps[0].name / "workdir" if task.steps else None
    if staged is not None and (staged.is_dir() or staged.is_symlink()):  # staged before step 1
        safe_copy.copy_tree(staged, starter, budget, label=staged.relative_to(task.source).as_posix())
    # the judge side: the task's tests and its test script (paths rewritten)
    static = out / "tests" / "static"
    if task.tests_dir is not None and marathon is None:
        safe_copy.copy_tree(task.tests_dir, static, budget, label=task.tests_dir.relative_to(task.source).as_posix())
    static.mkdir(parents=True, exist_ok=True)
    script = static / task.test_script.name
    if marathon is None:
        safe_copy.write_text(script, rewrite_paths(_text(task.test_script, task.source), task.workdir))
    env = (
        f'GAUNTLET_TASK_WORKDIR="$GAUNTLET_JUDGE_WORKSPACE" GAUNTLET_TASK_TESTS={TESTS_IN_JUDGE} '
        f'GAUNTLET_TASK_VERIFIER="$GAUNTLET_JUDGE_OUT" TEST_DIR={TESTS_IN_JUDGE}'
    )
    run = f'cd "$GAUNTLET_JUDGE_WORKSPACE" && {env} bash {TESTS_IN_JUDGE}/{script.name}'
    if task.kind == "terminal-bench":  # the exit status is the verdict (as Harbor's own mapper reads it)
        run = f'{run} > "$GAUNTLET_JUDGE_OUT/test-output.txt" 2>&1; [ $? -eq 0 ] && r=1 || r=0; echo $r > {{report}}'
    # the environment and its build context, for task_image.build
    envdir = out / "environment"
    safe_copy.copy_tree(
        task.context,
        envdir,
        budget,
        ignore=("tests", "solution", "solution.sh", "run-tests.sh", "task.yaml", "task.toml", "instruction.md"),
        label=task.context.relative_to(task.source).as_posix(),
    )
    if task.dockerfile.parent != task.context or task.dockerfile.name != "Dockerfile":
        safe_copy.write_text(envdir / "Dockerfile", _text(task.dockerfile, task.source))
    # agents: the oracle runs the solution script in the workspace; the no-op submits as is
    agents = out / "agents"
    agents.mkdir(exist_ok=True)
    (agents / "noop.yaml").write_text("# submits the untouched environment\nsteps:\n  - submit\n")
    if marathon is not None:
        if marathon["reference"]:
            (agents / "reference.yaml").write_text(marathon["reference"])
    elif task.solution_script is not None:
        layer = agents / "reference" / "1" / SOLUTION_DIR
        if task.solution_dir is not None:
            safe_copy.copy_tree(task.solution_dir, layer, budget, label="solution")
        layer.mkdir(parents=True, exist_ok=True)
        safe_copy.write_text(layer / "solve.sh", rewrite_paths(_text(task.solution_script, task.source), task.workdir))
        cmd = (
            f'cd "$GAUNTLET_WORKSPACE" 2>/dev/null || true; GAUNTLET_TASK_WORKDIR="$PWD" '
            f'GAUNTLET_TASK_SOLUTION="$PWD/{SOLUTION_DIR}" bash {SOLUTION_DIR}/solve.sh; rm -rf {SOLUTION_DIR}'
        )
        (agents / "reference.yaml").write_text(
            yaml.safe_dump(
                {"steps": [{"overlay": "agents/reference/1"}, {"run": cmd}, {"submit": None}]}, sort_keys=False
            ).replace("submit: null", "submit")
        )
    else:
        notes.append("the task has no solution script: no reference agent")
    sandbox: dict[str, Any] = {"image": image or image_tag(ident, digest)}
    if task.cpus:
        sandbox["cpus"] = task.cpus
    if task.memory_mb:
        sandbox["memory"] = f"{int(task.memory_mb)}m"
    rules = FORMATS[fmt]
    manifest: dict[str, Any] = {
        "schema": "gauntlet.challenge/v1",
        "id": ident,
        "title": task.source.name,
        "hook": task.instruction.strip().splitlines()[0][:120] if task.instruction.strip() else "",
        "category": "debug-gauntlet",
        "format": fmt,
        "weight_class": _WEIGHT.get(task.difficulty.lower(), "middleweight"),
        "time_limit": f"{int(limit)}s",
        "iterations": rules.budget_range[1],
        "deliverables": [
            {"name": "tests", "kind": "tests", "weight": 1.0, "description": f"the {task.kind} task's tests pass"}
        ],
        "variables": {
            "task_format": task.kind,
            "difficulty": task.difficulty or "unknown",
            "task_hash": f"sha256:{digest}",
        },
        "anti_repetition_fingerprint": f"import:{task.kind}:{ident}:{digest[:12]}",
        "sandbox": sandbox,
        "judge": {
            "command": run,
            "timeout": f"{int(max(task.verifier_timeout_s, 1))}s",
            "isolation": "none",
            "results": {"format": "reward", "path": "reward.txt"},
        },
        "x-import": {
            "source": str(task.source),
            "task_format": task.kind,
            "task_hash": f"sha256:{digest}",
            "workdir": task.workdir,
            "starter_from": copied,
            "notes": notes,
        },
    }
    if marathon is not None:
        limit = apply_steps(manifest, marathon)
    (out / "challenge.yaml").write_text(yaml.safe_dump(manifest, sort_keys=False))
    out_links = safe_copy.links_out(out)
    if out_links:  # copies laid over one another can make a kept link lead out: refused whole
        raise ImportError_(f"{out_links[0]}: a link leading out of the package: links are kept only inside it")
    return {
        "package": str(out),
        "id": ident,
        "format": fmt,
        "time_limit_s": limit,
        "image": sandbox["image"],
        "task_format": task.kind,
        "task_hash": digest,
        "notes": notes,
    }


def image_tag(ident: str, digest: str) -> str:
    return f"gauntlet-task-{ident}:{digest[:12]}"
