"""Observed telemetry of a sandbox (CONTRACT §8): programs run, workspace files read.

For the attempt runner::

    obs = SandboxObservation(state_dir)            # before the sandbox is created
    sandbox = await backend.create(ws, limits, mounts=[*mounts, *obs.mounts()])
    env = obs.merge_env(sandbox_env)               # PYTEST_PLUGINS, PYTHONPATH, reports
    async with obs.observe(sandbox, ws, emit):     # emit(kind, data) on the event loop
        await agent.run(...)                       # command.run / file.read as they happen

``observe(sandbox, workspace_host, emit)`` alone works too (no test counts without the
mounts). One ``ProcessObserver`` serves every attempt of the arena process
(``shared_observer()``). Without root or the kernel features nothing is observed, nothing
crashes: ``obs.notes`` holds one clear reason and ``obs.on_note(text)`` (if set) is called
once, for the runner to record as an infra note.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
from pathlib import Path
from typing import TYPE_CHECKING, Any, AsyncIterator, Callable

from arena.observe.procs import ProcessObserver

if TYPE_CHECKING:
    from arena.sandbox.base import Mount
from arena.observe.target import ObserveTarget
from arena.observe.testruns import PLUGIN, PLUGIN_DIR, command_event

__all__ = [
    "ObserveTarget",
    "ProcessObserver",
    "SandboxObservation",
    "close_shared_observer",
    "observe",
    "shared_observer",
]
PLUGIN_TARGET = "/opt/gauntlet/observe"
REPORTS_TARGET = "/opt/gauntlet/test-reports"
Emit = Callable[[str, dict[str, Any]], None]
# Per event loop: the task starting (then holding) its one observer. Every caller awaits that
# task, so a second attempt never gets an observer whose start() is still under way (it would
# stay "unavailable" for its whole life: issue 34).
_shared: dict[int, "asyncio.Task[ProcessObserver]"] = {}


async def shared_observer() -> ProcessObserver:
    """The arena process's one observer (per event loop), started on first use.

    Concurrent first uses share one start: each returns only once ``start()`` has finished.
    A caller cancelled while waiting does not cancel the start the others wait for.
    """
    loop = asyncio.get_running_loop()
    task = _shared.get(id(loop))
    stale = task is not None and (
        task.get_loop() is not loop or (task.done() and (task.cancelled() or task.exception() is not None))
    )
    if task is None or stale:  # none yet, a dead loop's id reused, or a start that raised
        task = _shared[id(loop)] = loop.create_task(ProcessObserver().start())
    return await asyncio.shield(task)


async def close_shared_observer() -> None:
    """Stop this event loop's observer process (the arena closing); the next use starts one."""
    loop = asyncio.get_running_loop()
    task = _shared.pop(id(loop), None)
    if task is None or task.get_loop() is not loop:
        return
    try:
        obs = await task  # a start under way finishes first: its process is then stopped
    except Exception:  # noqa: BLE001 — a failed start left nothing to stop
        return
    await obs.close()


class SandboxObservation:
    def __init__(self, state_dir: Path | None = None) -> None:
        self.report_dir: Path | None = None
        if state_dir is not None:
            self.report_dir = Path(state_dir) / f"test-reports-{secrets.token_hex(4)}"
            self.report_dir.mkdir(parents=True)
            os.chmod(self.report_dir, 0o777)  # written by the sandbox user, whichever uid
        self.notes: list[str] = []
        self.on_note: Callable[[str], object] | None = None

    def mounts(self) -> list[Mount]:
        from arena.sandbox.base import Mount  # noqa: PLC0415

        if self.report_dir is None:
            return []
        return [Mount(PLUGIN_DIR, PLUGIN_TARGET, readonly=True), Mount(self.report_dir, REPORTS_TARGET, readonly=False)]

    def sandbox_env_additions(self) -> dict[str, str]:
        if self.report_dir is None:
            return {}
        return {"PYTHONPATH": PLUGIN_TARGET, "PYTEST_PLUGINS": PLUGIN, "GAUNTLET_TEST_REPORTS": REPORTS_TARGET}

    def merge_env(self, env: dict[str, str]) -> dict[str, str]:
        out = dict(env)
        for k, v in self.sandbox_env_additions().items():
            sep = ":" if k == "PYTHONPATH" else ","
            out[k] = f"{out[k]}{sep}{v}" if out.get(k) else v
        return out

    def _note(self, text: str) -> None:
        self.notes.append(text)
        if self.on_note is not None:
            self.on_note(text)

    @contextlib.asynccontextmanager
    async def observe(
        self, sandbox: object, workspace_host: Path, emit: Emit, observer: ProcessObserver | None = None
    ) -> AsyncIterator["SandboxObservation"]:
        obs = observer or await shared_observer()
        target = getattr(sandbox, "observe_target", None)
        target = target() if target is not None else None
        key = f"{getattr(sandbox, 'id', 'sandbox')}-{secrets.token_hex(4)}"
        if not obs.available or target is None or (target.cgroup is None and target.root_pid is None):
            why = "; ".join(obs.notes) or "this sandbox cannot be told apart from the host"
            self._note(f"observed telemetry unavailable: {why}")
            yield self
            return
        report_dir = self.report_dir

        def on_command(rec: dict[str, Any]) -> None:
            if not rec.get("argv") and rec.get("exit_code") is None:
                return  # replaced by another exec before it could be read: a wrapper
            emit("command.run", command_event(rec, report_dir))

        def on_read(rec: dict[str, Any]) -> None:
            emit("file.read", {"path": rec["path"], "observed": True})

        if not obs.reads_available:
            self._note("workspace reads are not observed: " + "; ".join(obs.notes))
        await obs.watch(
            key, target, on_command, on_read=on_read if obs.reads_available else None, workspace=Path(workspace_host)
        )
        try:
            yield self
        finally:
            await obs.unwatch(key)


def observe(
    sandbox: object,
    workspace_host: Path,
    emit: Emit,
    *,
    observation: SandboxObservation | None = None,
    observer: ProcessObserver | None = None,
) -> contextlib.AbstractAsyncContextManager[SandboxObservation]:
    """``async with observe(sandbox, ws, emit) as obs:`` (see the module docstring)."""
    return (observation or SandboxObservation()).observe(sandbox, workspace_host, emit, observer)
