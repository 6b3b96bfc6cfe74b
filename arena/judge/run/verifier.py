"""A verifier the judge runs as written (a judge command that is not pytest: an imported
Harbor/Terminal-Bench task's ``test.sh``), made as hard to forge as it can be.

Such a run is one exec in a fresh judge sandbox on a copy of the snapshot (nothing of the
agent's sandbox runs there), with ``/judge-out`` made empty by the judge for that run.
Around it:

- ``guard_env()``: the run's environment names the guard (``in_sandbox/verifier_guard.py``)
  through ``PYTHONUSERBASE``: each pytest of the run leaves a start mark and, once it has
  reported, ends every process started since it began, then leaves an end mark;
- local backend: the command is PID 1 of the sandbox's pid namespace (nothing inside can
  signal it), so its end is the end of every process of the run;
- ``end_processes(sandbox)``: after the exec and before a result file is read, every
  process of the run is ended (Docker: the container is killed; local: its cgroup swept);
- ``check_marks(...)``: a pytest of the run that started and never reported (``os._exit``,
  a signal) voids the run's results: every test failed and an integrity error
  ``judge.verifier_cut``.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from arena.judge.in_sandbox import verifier_guard
from arena.judge.run import command as cmd
from arena.judge.verdict.junit import RawCase
from arena.results import Finding
from arena.sandbox.base import SandboxError

MARKS_DIR = ".verifier"  # under /judge-out
MAX_MARKS = 4096
CUT_MESSAGE = "the verifier's pytest ended before it reported (os._exit or a signal): its result is not believed"


def guard_env() -> dict[str, str]:
    return {
        "PYTHONUSERBASE": f"{cmd.CONFIG_DIR}/verifier",
        verifier_guard.MARKS_ENV: f"{cmd.OUT_DIR}/{MARKS_DIR}",
    }


async def end_processes(sandbox) -> None:
    """Every process of the run ended (``SandboxError`` when that cannot be made sure)."""
    if getattr(sandbox, "backend", "") == "docker":
        api, cid = sandbox.api, sandbox.container.id

        def stop() -> None:
            try:
                api.kill(cid)
            except Exception:  # noqa: BLE001 - already stopped: checked below
                pass
            api.wait(cid, timeout=20)
            if api.inspect_container(cid)["State"]["Running"]:
                raise RuntimeError("still running")

        try:
            await asyncio.to_thread(stop)
        except Exception as e:  # noqa: BLE001
            raise SandboxError(f"the verifier's processes could not be ended: {e}") from None
        return
    sweep = getattr(sandbox, "_sweep", None)
    if sweep is not None:
        await asyncio.to_thread(sweep)


def cut_runs(out: Path) -> int:
    """How many pytest runs of the verifier left a start mark and no end mark."""
    starts, ends = set(), set()
    try:
        with os.scandir(out / MARKS_DIR) as it:
            for n, e in enumerate(it):
                if n >= MAX_MARKS:
                    break
                stem, dot, kind = e.name.rpartition(".")
                if dot and kind == "start":
                    starts.add(stem)
                elif dot and kind == "end":
                    ends.add(stem)
    except OSError:  # no pytest ran under the guard (or the directory is not one)
        return 0
    return len(starts - ends)


def check_marks(out: Path, res, cases: list[RawCase] | None, result) -> list[RawCase] | None:
    """``cases`` as the verdict should believe them (every one failed after a cut run)."""
    cut = cut_runs(out)
    if not cut:
        return cases
    if not res.timed_out and not res.truncated:  # not the sandbox's own kill
        result.integrity.append(
            Finding(
                severity="error",
                check="judge.verifier_cut",
                detail=f"{cut} pytest run(s) of the verifier ended before reporting (os._exit or a signal):"
                " the run's result is not believed",
            )
        )
    if cases is None:
        return None
    for c in cases:
        c.outcome = "failed"
        c.message = CUT_MESSAGE
    return cases
