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
- Docker (``run_own_container``): a container of its own whose main process (PID 1, no
  docker-init) is the command, its output sent to files in ``/judge-out``: when the
  command exits the container stops and the kernel kills every other process at once
  (no pooled container, no ``docker exec`` whose reaping wrapper the run could kill);
- ``end_processes(sandbox)``: after the exec and before a result file is read, every
  process of the run is ended (Docker: the container is killed; local: its cgroup swept);
- ``check_marks(...)``: a pytest of the run that started and never reported (``os._exit``,
  a signal) voids the run's results: every test failed and an integrity error
  ``judge.verifier_cut``.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Callable

from arena.judge.in_sandbox import verifier_guard
from arena.judge.run import command as cmd
from arena.judge.run.scratch import make_out_dir, release_out_dir
from arena.judge.verdict.junit import RawCase
from arena.judge.verdict.snapshot import Snapshot, materialize
from arena.results import Finding
from arena.sandbox import docker_launch, registry
from arena.sandbox.base import ExecResult, Mount, SandboxError
from arena.sandbox.handover import made_in_thread

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


# Docker: the verifier is the container's PID 1; its output goes to files (no log driver).
_MAIN = 'sh -c "$1" >"$2/.verifier-stdout" 2>"$2/.verifier-stderr"; exit $?'


def _capped(path: Path, cap: int) -> tuple[bytes, bool]:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return b"", False
    try:
        data = os.read(fd, cap + 1)
    finally:
        os.close(fd)
    return data[:cap], len(data) > cap


async def run_own_container(
    backend, spec, snapshot: Snapshot, jdir: Path, argv: list[str], work_root: Path | None, verdict: Callable
) -> None:
    """Docker: run ``argv`` (``sh -c TEXT``) as PID 1 of a fresh container on a copy of
    ``snapshot``; ``verdict(out_dir, ExecResult)`` once the container has stopped (every
    process of the run ended), before the container and the directory are removed."""
    root = work_root or registry.STATE_ROOT
    root.mkdir(parents=True, exist_ok=True)
    run_dir = Path(tempfile.mkdtemp(prefix=f"{registry.owner_tag()}-judge-", dir=root))
    out, state = run_dir / "out", {"mounted": False}

    def cleanup() -> None:  # also run by the sandbox registry on SIGTERM/SIGHUP/exit
        release_out_dir(out, state["mounted"])
        shutil.rmtree(run_dir, ignore_errors=True)

    registry.register(run_dir.name, cleanup)
    sandbox = None
    try:
        state["mounted"] = make_out_dir(out)
        materialize(snapshot, run_dir / "ws")
        run_dir.chmod(0o755)
        ws = (run_dir / "ws").resolve()
        mounts = [Mount(jdir, cmd.JUDGE_ROOT, readonly=True), Mount(out, cmd.OUT_DIR, readonly=False)]
        main = ["sh", "-c", _MAIN, "sh", argv[-1], cmd.OUT_DIR]
        env = {**cmd.judge_env(), **guard_env()}
        t0 = time.monotonic()
        sandbox = await made_in_thread(
            lambda: backend.create_sync(ws, spec.limits, mounts, spec.image, True, None, (), main=(main, env))
        )
        rc = await asyncio.to_thread(docker_launch._wait, sandbox, spec.timeout_s)
        if rc is None:  # the timeout: the container (PID 1 and all) is killed
            docker_launch._kill(sandbox)
            await asyncio.to_thread(docker_launch._wait, sandbox, 20)
        await end_processes(sandbox)
        cap = spec.limits.output_bytes
        stdout, t1 = _capped(out / ".verifier-stdout", cap)
        stderr, t2 = _capped(out / ".verifier-stderr", cap)
        res = ExecResult(
            exit_code=rc,
            stdout=stdout,
            stderr=stderr,
            timed_out=rc is None,
            truncated=t1 or t2,
            duration_s=time.monotonic() - t0,
        )
        verdict(out, res)
    finally:
        if sandbox is not None:
            try:
                await sandbox.close()
            except Exception:  # noqa: BLE001 - the registry removes it at exit
                pass
        registry.unregister(run_dir.name)
        cleanup()
