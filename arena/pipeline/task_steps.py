"""Multi-step Harbor tasks (``[[steps]]`` in task.toml) as Marathon phases, both ways.

Harbor 0.25's model (``models/task/config.py`` ``StepConfig``, ``paths.py``,
``trial/multi_step.py``, ``verifier/verifier.py``, ``agents/oracle.py``): step ``k`` has
``steps/<name>/instruction.md``; its verifier runs ``steps/<name>/tests/test.sh`` (else the
task's ``tests/test.sh``) over the task's ``tests/`` with the step's ``tests/`` laid on top;
its oracle runs ``steps/<name>/solution/solve.sh`` (else the task's ``solution/``); its
timeouts are ``[steps.agent] timeout_sec`` (else the task's) and ``[steps.verifier]
timeout_sec`` (600 by default, as Harbor's ``VerifierConfig``); ``min_reward`` stops the
trial when the step's reward is below it. All steps share one environment.

As a Marathon: step 1 is phase 1 (``briefing.md``, ``tests/static/``), step ``k`` is phase
``k`` (``phases/<k>/briefing.md``, ``phases/<k>/tests/static/``, the merged tests with the
step's script); the time limit is the sum of the steps' agent timeouts and phase ``k``
reveals when steps ``1..k-1``'s share of it has passed (``reveal_at``); phase ``k`` also
opens early when phase ``k-1`` passes ``advance_threshold`` = step ``k-1``'s ``min_reward``
(1.0 when unset: the step's tests pass); the reference runs each step's solution then
submits. One judge command runs the step script of every open phase, each with its own
verifier directory and timeout, and writes a CTRF report whose tests carry the phase's
judge path (so each reward is that phase's test, scored per phase).
"""

from __future__ import annotations

import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import yaml

from arena.formats import FORMATS
from arena.pipeline import safe_copy
from arena.pipeline.safe_copy import Budget

if TYPE_CHECKING:
    from arena.pipeline.task_model import HarborTask

MAX_STEPS = 4  # a Marathon: phase 1 + at most 3 phases (arena/challenge/models.py)
HARBOR_VERIFIER_DEFAULT_S = 600.0  # harbor VerifierConfig.timeout_sec


@dataclass
class Step:
    name: str
    instruction: str
    test_dirs: list[Path]  # laid over one another in order: the task's tests/, the step's tests/
    test_script: Path
    solution_dir: Path | None
    agent_timeout_s: float | None
    verifier_timeout_s: float
    min_reward: float | dict[str, float] | None


def read_steps(src: Path, cfg: HarborTask) -> list[Step]:
    from arena.pipeline.task_model import ImportError_, _need, _text

    steps = cfg.steps or []
    if not 2 <= len(steps) <= MAX_STEPS:
        raise ImportError_(
            f"task.toml: key 'steps': {len(steps)} step(s): expected 2-{MAX_STEPS} (a Marathon has phase 1"
            " and at most 3 more), or no [[steps]] for a one-step task"
        )
    names = [s.name for s in steps]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ImportError_(f"task.toml: key 'steps': repeated step name(s) {', '.join(dupes)}: expected distinct names")
    out = []
    shared_tests = src / "tests"
    for i, s in enumerate(steps):
        d = src / "steps" / s.name
        if "/" in s.name or s.name in (".", "..") or not d.is_dir():
            raise ImportError_(
                f"steps/{s.name}: step directory missing: expected steps/{s.name}/ (task.toml steps[{i}])"
            )
        if (d / "workdir" / "setup.sh").is_file():
            raise ImportError_(
                f"steps/{s.name}/workdir/setup.sh: a step setup script is not imported: a Gauntlet phase runs"
                " nothing in the workspace when it opens"
            )
        if i > 0 and (d / "workdir").is_dir():
            raise ImportError_(
                f"steps/{s.name}/workdir: files staged before a later step are not imported: a Gauntlet phase"
                " cannot add files to the workspace (only step 1's workdir/ joins the starter)"
            )
        own = d / "tests" / "test.sh"
        script = own if own.is_file() else shared_tests / "test.sh"
        if not script.is_file():
            raise ImportError_(
                f"steps/{s.name}/tests/test.sh: required file missing: expected the step's verifier script"
                " (or the task's tests/test.sh)"
            )
        sol = d / "solution" if (d / "solution" / "solve.sh").is_file() else None
        if sol is None and (src / "solution" / "solve.sh").is_file():
            sol = src / "solution"  # Harbor's oracle falls back to the task's solution
        out.append(
            Step(
                name=s.name,
                instruction=_text(_need(d / "instruction.md", src, f"step {s.name}'s instruction (markdown)"), src),
                test_dirs=[p for p in (shared_tests, d / "tests") if p.is_dir()],
                test_script=script,
                solution_dir=sol,
                agent_timeout_s=s.agent.timeout_sec if s.agent.timeout_sec is not None else cfg.agent.timeout_sec,
                verifier_timeout_s=s.verifier.timeout_sec,
                min_reward=s.min_reward,
            )
        )
    return out


def _fractions(steps: list[Step]) -> tuple[float, list[float]]:
    """The steps' total agent time and each later phase's reveal mark (a share of it)."""
    lo = FORMATS["marathon"].time_range_s[0]
    known = [s.agent_timeout_s for s in steps if s.agent_timeout_s]
    fill = sum(known) / len(known) if known else lo / len(steps)
    times = [float(s.agent_timeout_s or fill) for s in steps]
    total = sum(times)
    marks, acc = [], 0.0
    for t in times[:-1]:
        acc += t
        marks.append(round(acc / total, 4))
    return total, marks


def _threshold(m: float | dict[str, float] | None, notes: list[str], name: str) -> float:
    if m is None:
        return 1.0
    if isinstance(m, dict):
        notes.append(f"step {name}: min_reward per key ({', '.join(m)}): the next phase opens when all pass")
        return 1.0
    return min(max(float(m), 0.01), 1.0)


STEPS_SCRIPT = "gauntlet-steps.sh"  # in phase 1's tests/static/: the judge command of every step


def _steps_script(steps: list[Step]) -> str:
    """sh REPORT DIR...: each open phase's step script over the workspace (its own verifier
    directory and timeout), every reward a CTRF test whose filePath is the phase's judge path."""
    cases = " ".join(
        f"{i}) name={shlex.quote(s.name)}; t={int(max(s.verifier_timeout_s, 1))};;" for i, s in enumerate(steps, 1)
    )
    return (
        "#!/bin/sh\n# written by gauntlet challenge import (arena/pipeline/task_steps.py): one Harbor step per\n"
        "# open Marathon phase; usage: gauntlet-steps.sh REPORT /judge/tests/<phase>/static ...\n"
        'R="$1"; shift; W="$GAUNTLET_JUDGE_WORKSPACE"; O="$GAUNTLET_JUDGE_OUT"; L="$O/ctrf.lines"; : > "$L"\n'
        "T=; command -v timeout >/dev/null 2>&1 && T=timeout\n"
        f"A={shlex.quote(_AWK)}\n"
        'for d in "$@"; do\n'
        '  case "$d" in */static) ;; *) continue ;; esac\n'
        '  n=$(basename "$(dirname "$d")"); name="step-$n"; t=600\n'
        f'  case "$n" in {cases} esac\n'
        '  v="$O/steps/$n"; mkdir -p "$v"; rm -f "$v/reward.txt" "$v/reward.json"\n'
        '  (cd "$W" && GAUNTLET_TASK_WORKDIR="$W" GAUNTLET_TASK_TESTS="$d" GAUNTLET_TASK_VERIFIER="$v" TEST_DIR="$d" \\\n'
        '    ${T:+$T "$t"} bash "$d/test.sh") > "$v/test-output.txt" 2>&1\n'
        '  rc=$?; f="$v/reward.json"; j=1; [ -f "$f" ] || { f="$v/reward.txt"; j=; }\n'
        '  m=; [ -f "$f" ] || { f=/dev/null; m=1; }\n'
        '  awk -v step="$name" -v file="$d/test.sh" -v rc="$rc" -v json="$j" -v miss="$m" "$A" "$f" >> "$L"\n'
        "done\n"
        "{ printf '{\"results\":{\"tests\":['; sed '1s/^,//' \"$L\" | tr -d '\\n'; printf ']}}\\n'; } > \"$R\"\n"
    )


_AWK = r"""
function esc(x) { gsub(/\\/, "\\\\", x); gsub(/"/, "\\\"", x); return x }
function out(name, v) {
  printf ",{\"name\":\"%s\",\"suite\":\"%s\",\"filePath\":\"%s\",\"status\":\"%s\"", esc(name), esc(step), file, (v >= 1 ? "passed" : "failed")
  if (v < 1) { r = sprintf("%.4g", v); if (r !~ /[.en]/) r = r ".0"; printf ",\"message\":\"reward %s of 1.0\"", r }
  print "}"
}
function bad(msg) {
  printf ",{\"name\":\"reward\",\"suite\":\"%s\",\"filePath\":\"%s\",\"status\":\"failed\",\"message\":\"%s (exit code %s)\"}\n", esc(step), file, esc(msg), rc
}
BEGIN { RS = "\001" }
{ s = s $0 }
END {
  gsub(/[\r\n\t]/, " ", s); n = 0
  if (miss) bad("the step test script wrote no reward file")
  else if (json && s !~ /^ *-?[0-9.eE+]+ *$/) {
    while (match(s, /"[^"]*" *: *-?[0-9.eE+]+/)) {
      kv = substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH)
      k = kv; sub(/" *:.*/, "", k); sub(/^"/, "", k); v = kv; sub(/.*: */, "", v); out(k, v + 0); n++
    }
    if (!n) bad("reward.json: expected a number or {name: number}")
  } else {
    split(s, a, " ")
    if (a[1] ~ /^-?[0-9.eE+]+$/) out("reward", a[1] + 0); else bad("the reward file is not a number")
  }
}
"""


def write_steps(task, steps: list[Step], out: Path, notes: list[str], budget: Budget | None = None) -> dict:
    """The phases, tests, reference and judge of a multi-step task's package (under ``out``);
    the manifest keys they set. Copies go through ``safe_copy`` (no link followed out, bounded)."""
    from arena.pipeline.task_model import SOLUTION_DIR, TESTS_IN_JUDGE, _text, rewrite_paths

    budget = budget or Budget()

    total, marks = _fractions(steps)
    lo, hi = FORMATS["marathon"].time_range_s
    limit = min(max(total, lo), hi)
    if limit != total:
        notes.append(
            f"the steps' agent timeouts sum to {total:g}s, outside marathon's {lo:g}-{hi:g}s: time limit set to"
            f" the nearest (the phases keep their shares)"
        )
    phases = []
    for k, s in enumerate(steps, 1):
        root = out if k == 1 else out / "phases" / str(k)
        if k > 1:
            root.mkdir(parents=True, exist_ok=True)
            (root / "briefing.md").write_text(s.instruction if s.instruction.endswith("\n") else s.instruction + "\n")
            phases.append(
                {
                    "id": _phase_id(s.name, k),
                    "reveal_at": marks[k - 2],
                    "advance_threshold": _threshold(steps[k - 2].min_reward, notes, steps[k - 2].name),
                }
            )
        static = root / "tests" / "static"
        static.mkdir(parents=True, exist_ok=True)
        for d in s.test_dirs:
            safe_copy.copy_tree(d, static, budget, label=d.relative_to(task.source).as_posix())
        for sh in static.rglob("*.sh"):  # the step's /tests, /logs/verifier are its own (one judge run, all steps)
            if not sh.is_symlink():  # a kept link's target is rewritten as itself
                sh.write_text(rewrite_paths(sh.read_text(encoding="utf-8"), task.workdir))
        safe_copy.write_text(static / "test.sh", rewrite_paths(_text(s.test_script, task.source), task.workdir))
        if s.solution_dir is not None:
            layer = out / "agents" / "reference" / str(k) / SOLUTION_DIR
            safe_copy.copy_tree(s.solution_dir, layer, budget, label=s.solution_dir.relative_to(task.source).as_posix())
            solve = layer / "solve.sh"
            safe_copy.write_text(solve, rewrite_paths(_text(s.solution_dir / "solve.sh", task.source), task.workdir))
    (out / "tests" / "static" / STEPS_SCRIPT).write_text(_steps_script(steps))
    ref = None
    if all(s.solution_dir is not None for s in steps):
        cmd = (
            f'cd "$GAUNTLET_WORKSPACE" 2>/dev/null || true; GAUNTLET_TASK_WORKDIR="$PWD" '
            f'GAUNTLET_TASK_SOLUTION="$PWD/{SOLUTION_DIR}" bash {SOLUTION_DIR}/solve.sh; rm -rf {SOLUTION_DIR}'
        )
        script: list = []
        for k in range(1, len(steps) + 1):
            script += [{"overlay": f"agents/reference/{k}"}, {"run": cmd}, "submit"]
        ref = yaml.safe_dump({"steps": script}, sort_keys=False)
    else:
        missing = [s.name for s in steps if s.solution_dir is None]
        notes.append(f"step(s) {', '.join(missing)} have no solution script: no reference agent")
    return {
        "format": "marathon",
        "time_limit_s": limit,
        "phases": phases,
        "judge_command": f"sh {TESTS_IN_JUDGE}/{STEPS_SCRIPT} {{report}} {{tests}}",
        "judge_timeout_s": sum(max(s.verifier_timeout_s, 1) for s in steps),
        "results": {"format": "ctrf", "path": "ctrf.json"},
        "reference": ref,
        "lineage": [
            {
                "name": s.name,
                "agent_timeout_s": s.agent_timeout_s,
                "verifier_timeout_s": s.verifier_timeout_s,
                "min_reward": s.min_reward,
            }
            for s in steps
        ],
    }


def apply_steps(manifest: dict, marathon: dict) -> float:
    """The manifest keys of ``write_steps``'s result set on ``manifest``; the time limit."""
    limit = float(marathon["time_limit_s"])
    manifest["time_limit"] = f"{int(limit)}s"
    manifest["phases"] = marathon["phases"]
    manifest["judge"].update(
        command=marathon["judge_command"],
        timeout=f"{int(marathon['judge_timeout_s'])}s",
        results=marathon["results"],
    )
    manifest["x-import"]["steps"] = marathon["lineage"]
    return limit


def _phase_id(name: str, k: int) -> str:
    import re

    s = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return (s or f"phase-{k}")[:48]


# -- export: a Marathon as a multi-step Harbor task ---------------------------------
def step_names(ch, lineage: dict) -> list[str]:
    """One Harbor step per phase: the imported task's own step names, else ``phase-1`` and
    the phases' ids."""
    own = [str(s.get("name")) for s in lineage.get("steps") or [] if isinstance(s, dict)]
    if len(own) == ch.phase_count:
        return own
    return ["phase-1", *[p.id for p in ch.manifest.phases]]


def steps_toml(ch, lineage: dict) -> list[str]:
    """The ``[[steps]]`` tables of ``ch``'s phases (timeouts from the reveal marks' shares of
    the time limit, ``min_reward`` from the next phase's advance threshold)."""
    m = ch.manifest
    own = {str(s.get("name")): s for s in lineage.get("steps") or [] if isinstance(s, dict)}
    marks = [0.0, *ch.reveal_at, 1.0]
    lines: list[str] = []
    names = step_names(ch, lineage)
    for k, name in enumerate(names, 1):
        mine = own.get(name, {})
        agent = mine.get("agent_timeout_s") or round((marks[k] - marks[k - 1]) * m.time_limit_s, 1)
        verifier = mine.get("verifier_timeout_s") or float(m.judge.timeout_s)
        lines += ["", "[[steps]]", f'name = "{name}"']
        gate = mine.get("min_reward") if mine else (ch.advance_thresholds[k - 1] if k < len(names) else None)
        if isinstance(gate, dict):
            lines.append("min_reward = { " + ", ".join(f'"{key}" = {float(v)!r}' for key, v in gate.items()) + " }")
        elif gate is not None:
            lines.append(f"min_reward = {float(gate)!r}")
        lines += [
            f"agent = {{ timeout_sec = {float(agent)!r} }}",
            f"verifier = {{ timeout_sec = {float(verifier)!r} }}",
        ]
    return lines


def export_steps(ch, out: Path, lineage: dict, workdir: str, pytest_sh: str) -> None:
    """``steps/<name>/`` of every phase: its briefing as ``instruction.md``, its judge-side
    tests (an imported task's step script, else pytest over the phase's suites) and its
    reference (an imported step's ``solve.sh``, else the phase's reference overlay)."""
    from arena.pipeline.task_model import SOLUTION_DIR, ImportError_

    imported = bool(lineage) and ch.manifest.judge.results is not None
    if (
        ch.manifest.judge.results is not None
        and ch.manifest.judge.results.format != "ctrf"
        or (imported and not (ch.root / "tests" / "static" / STEPS_SCRIPT).is_file())
    ):
        raise ImportError_(
            "challenge.yaml: key 'judge.results': a Marathon is exported to Harbor steps when it is judged by"
            " pytest or is an imported multi-step task"
        )
    for k, name in enumerate(step_names(ch, lineage), 1):
        d = out / "steps" / name
        d.mkdir(parents=True)
        text = ch.briefing if k == 1 else ch.phase_briefing(k) or ""
        (d / "instruction.md").write_text(text)
        tests = d / "tests"
        suites = ch.test_dirs(k)
        if imported:
            shutil.copytree(suites["static"][0], tests, ignore=shutil.ignore_patterns(STEPS_SCRIPT))
        else:
            for suite, roots in suites.items():
                for root in roots:
                    shutil.copytree(root, tests / suite)
            tests.mkdir(exist_ok=True)
            (tests / "test.sh").write_text(pytest_sh.format(suites=" ".join(f"/tests/{s}" for s in sorted(suites))))
        ref = ch.root / "agents" / "reference" / str(k)
        sol = d / "solution"
        if (ref / SOLUTION_DIR / "solve.sh").is_file():
            shutil.copytree(ref / SOLUTION_DIR, sol)
        elif ref.is_dir():
            shutil.copytree(ref, sol / "files")
            (sol / "solve.sh").write_text(f"#!/bin/bash\ncp -r /solution/files/. {workdir}/\n")
        elif k == ch.phase_count and ch.solution_dir is not None:
            shutil.copytree(ch.solution_dir, sol / "files")
            (sol / "solve.sh").write_text(f"#!/bin/bash\ncp -r /solution/files/. {workdir}/\n")
