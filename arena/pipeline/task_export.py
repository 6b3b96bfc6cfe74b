"""``gauntlet challenge export harbor PKG DIR``: a Gauntlet package written as a Harbor task.

- ``task.toml``: ``[agent] timeout_sec`` = the time limit, ``[verifier] timeout_sec`` = the
  judge timeout, ``[environment]`` cpus / memory_mb / workdir ``/app``, ``[metadata]`` the
  package's id, format, category, weight class and lineage;
- ``instruction.md`` = the briefing; ``environment/Dockerfile`` = ``FROM`` the package's
  image, the starter copied into ``/app``;
- ``tests/`` = every judge-side suite of phase 1 (``static/``, ``hidden/``, ``adversarial/``)
  and ``test.sh``: a pytest package runs them over ``/app`` and writes the share of passed
  tests to ``/logs/verifier/reward.txt`` (1 = all); a package judged by its own command
  with ``judge.results: reward`` (an imported task) keeps its script, whose paths default
  to Harbor's;
- ``solution/solve.sh``: lays ``solution/files/`` (the package's ``solution/``) over ``/app``,
  or runs the imported reference's own ``solve.sh``.

A Marathon is written as a multi-step Harbor task (``arena/pipeline/task_steps.py``): one
``[[steps]]`` entry and ``steps/<name>/`` (``instruction.md``, ``tests/``, ``solution/``) per
phase, ``multi_step_reward_strategy = "mean"`` (Gauntlet's objective is the mean over the
phases); no top-level ``instruction.md``, ``tests/`` or ``solution/`` (Harbor reads the
steps').
"""

from __future__ import annotations

import shutil
from pathlib import Path

from arena.challenge import load_challenge
from arena.pipeline.task_import import SOLUTION_DIR, ImportError_
from arena.pipeline.task_steps import export_steps, steps_toml
from arena.sandbox.image import SANDBOX_UID

_PYTEST_SH = """#!/bin/bash
# written by gauntlet challenge export: the package's judge-side tests over /app
V=/logs/verifier
mkdir -p "$V"
cd /app
PYTHONPATH=/app python3 -m pytest -q -p no:cacheprovider -rA --junitxml="$V/junit.xml" {suites}
V="$V" python3 - <<'EOF'
import os
import xml.etree.ElementTree as ET
v = os.environ["V"]
try:
    cases = list(ET.parse(v + "/junit.xml").iter("testcase"))
except Exception:
    cases = []
ok = sum(1 for c in cases if not any(ch.tag in ("failure", "error", "skipped") for ch in c))
open(v + "/reward.txt", "w").write(f"{{(ok / len(cases)) if cases else 0:g}}\\n")
EOF
"""


def _toml_value(v: object) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    return '"' + str(v).replace("\\", "\\\\").replace('"', '\\"') + '"'


def export_harbor(pkg: Path | str, out: Path | str) -> dict:
    ch = load_challenge(pkg)
    m = ch.manifest
    out = Path(out)
    if out.exists() and any(out.iterdir()):
        raise ImportError_(f"{out}: exists and is not empty: expected a new directory for the task")
    lineage = m.extensions.get("x-import") or {}
    workdir = "/app"
    meta = {"gauntlet_id": m.id, "format": m.format, "category": m.category, "weight_class": m.weight_class}
    if isinstance(m.variables.get("difficulty"), str):  # Harbor's metadata key (read back on import)
        meta["difficulty"] = m.variables["difficulty"]
    if lineage.get("task_hash"):
        meta["imported_from"] = str(lineage.get("source", ""))
        meta["task_hash"] = str(lineage["task_hash"])
    steps = ch.phase_count > 1
    toml = ['version = "1.0"', *(['multi_step_reward_strategy = "mean"'] if steps else []), "", "[metadata]"]
    toml += [f"{k} = {_toml_value(v)}" for k, v in meta.items()]
    toml += ["", "[verifier]", f"timeout_sec = {float(m.judge.timeout_s)!r}"]
    toml += ["", "[agent]", f"timeout_sec = {float(m.time_limit_s)!r}"]
    toml += [
        "",
        "[environment]",
        f"cpus = {_toml_value(m.sandbox.cpus)}",
        f"memory_mb = {int(m.sandbox.memory_mb)}",
        f'workdir = "{workdir}"',
        *(steps_toml(ch, lineage) if steps else []),
        "",
    ]
    out.mkdir(parents=True, exist_ok=True)
    (out / "task.toml").write_text("\n".join(toml))
    env = out / "environment"
    shutil.copytree(ch.starter_dir, env / "starter")
    (env / "Dockerfile").write_text(
        f"FROM {m.sandbox.image}\nUSER root\nWORKDIR {workdir}\nCOPY starter/ {workdir}/\n"
        f"RUN chown -R {SANDBOX_UID}:{SANDBOX_UID} {workdir}\nUSER {SANDBOX_UID}:{SANDBOX_UID}\n"
    )
    if steps:
        export_steps(ch, out, lineage, workdir, _PYTEST_SH)
        return {"task": str(out), "id": m.id, "solution": (out / "steps").is_dir(), "steps": ch.phase_count}
    (out / "instruction.md").write_text(ch.briefing)
    tests = out / "tests"
    tests.mkdir()
    for suite, roots in ch.test_dirs(1).items():
        for root in roots:
            if lineage and suite == "static":
                shutil.copytree(root, tests, dirs_exist_ok=True)  # an imported task's own tests/
            else:
                shutil.copytree(root, tests / suite)
    if m.judge.results is None:  # pytest over the suites
        suites = " ".join(f"/tests/{s}" for s in sorted(ch.test_dirs(1)))
        (tests / "test.sh").write_text(_PYTEST_SH.format(suites=suites))
    elif lineage.get("task_format") == "terminal-bench":  # its exit status is the reward, as imported
        (tests / "test.sh").write_text(
            "#!/bin/bash\nmkdir -p /logs/verifier\ncd /app\n"
            "if TEST_DIR=/tests bash /tests/run-tests.sh; then echo 1 > /logs/verifier/reward.txt;"
            " else echo 0 > /logs/verifier/reward.txt; fi\n"
        )
    elif m.judge.results.format != "reward" or not lineage:
        raise ImportError_(
            f"challenge.yaml: key 'judge.results.format' ({m.judge.results.format}): only pytest packages and"
            " imported reward tasks are exported to Harbor yet"
        )
    sol = out / "solution"
    ref = ch.root / "agents" / "reference" / "1" / SOLUTION_DIR
    if ch.solution_dir is not None:
        shutil.copytree(ch.solution_dir, sol / "files")
        (sol / "solve.sh").write_text(f"#!/bin/bash\ncp -r /solution/files/. {workdir}/\n")
    elif (ref / "solve.sh").is_file():
        shutil.copytree(ref, sol)
    return {"task": str(out), "id": m.id, "solution": sol.is_dir()}
