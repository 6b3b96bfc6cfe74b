"""Starting live attempts from the TUI through the real runner (``arena.attempt``).

``LiveRun.open`` opens an ``Arena`` on the adapter's bus; ``start`` creates attempts
and runs them as tasks of the app's own event loop. Each attempt's clock
(``Attempt.clock.elapsed``) and a ``LiveHandle`` (stop, submit, workspace) are attached
to the adapter so screens can read live time and act on the attempt.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gauntlet_tui.engine import EngineAdapter, attempt_elapsed


HOST_SHELL_WARNING = (
    "this attempt has no sandbox: the shell runs on the HOST, unconfined, as you, in the workspace directory"
)


class ShellUnavailable(RuntimeError):
    """No shell can be opened for the attempt right now (the message says why)."""


@dataclass(frozen=True)
class ShellCommand:
    argv: list[str]
    cwd: Path  # host directory the launcher starts in
    env: dict[str, str]  # environment of the launched host process
    where: str  # "in the attempt's local sandbox" / "on the host"
    shown_cwd: str  # the directory the shell starts in, as the shell sees it
    sandboxed: bool
    warning: str | None = None


@dataclass
class LiveHandle:
    attempt: Any  # arena.attempt.Attempt

    @property
    def workspace(self) -> Path:
        return self.attempt.workspace

    @property
    def env(self) -> dict[str, str]:
        """GAUNTLET_SOCKET, GAUNTLET_WORKSPACE, ... so `gauntlet agent ...` works in the shell."""
        return dict(self.attempt.env)

    def shell_command(self) -> ShellCommand:
        """The shell for ``--agent human``: inside the attempt's own sandbox
        (``Sandbox.shell_argv`` with the in-sandbox agent environment), or — only when the
        attempt has no sandbox at all — ``$SHELL`` on the host, with a warning.
        Raises ``ShellUnavailable`` while the sandbox is being created or once it is closed."""
        a = self.attempt
        sb = a.sandbox
        if sb is not None:
            if getattr(sb, "closed", False) or a.over:
                raise ShellUnavailable("the attempt is over: its sandbox is closed")
            argv = sb.shell_argv(dict(a.sandbox_env))
            return ShellCommand(
                argv, a.workspace, dict(os.environ), f"in the attempt's {sb.backend} sandbox", "/workspace", True
            )
        if getattr(a.agent, "needs_sandbox", False) and not a.over:
            raise ShellUnavailable("the attempt's sandbox is not ready yet: try again in a moment")
        argv = [os.environ.get("SHELL") or "/bin/sh"]
        return ShellCommand(
            argv, a.workspace, {**os.environ, **self.env}, "on the host", str(a.workspace), False, HOST_SHELL_WARNING
        )

    def shell_session(self) -> contextlib.AbstractAsyncContextManager[None]:
        """Held while the person's shell is open: the attempt's hang watchdog does not
        count that time (the commands typed are not seen, only file edits are), and it
        counts afresh from the moment the shell exits."""
        return self.attempt.hold()

    def attention(self) -> contextlib.AbstractAsyncContextManager[None]:
        """Held while the TUI has input focus (a person is there): not counted as a hang."""
        return self.attempt.hold()

    def hang_left(self) -> float | None:
        """Attempt seconds until the hang watchdog ends the attempt; None while held."""
        a = self.attempt
        if getattr(a, "_holds", 0) or a.over:
            return None
        return max(0.0, a.hang_limit_s - (a.clock.elapsed() - getattr(a, "_last_activity", 0.0)))

    async def stop(self) -> None:
        self.attempt.finish("interrupted", "stopped by the operator")

    async def submit(self) -> dict[str, Any]:
        return await self.attempt.request({"op": "submit"})


@dataclass
class RemoteHandle:
    """A live attempt running on a cluster node (``--cluster``). Its local ``Attempt`` only
    describes it (nothing runs here), so the screens get no shell, submit or hang
    countdown; ``stop`` cancels the task that placed it: the node ends it ``interrupted``
    and its last events come home (arena.cluster.driver)."""

    attempt: Any  # arena.attempt.Attempt (not run here)
    task: "asyncio.Future[Any]"  # Arena.run_one(attempt) -> ClusterPlacer.place

    async def stop(self) -> None:
        if not self.task.done():
            self.task.cancel()


@dataclass(frozen=True)
class AttemptSpec:
    challenge: str | Path  # a directory or a bundled id
    agent: str
    time_scale: float = 1.0
    linger: bool = False  # after its script, the agent waits for the clock to end it (demo)
    ends_within_s: float | None = None  # its clock's grace end this many seconds after start (demo)


def linger(agent: Any) -> None:
    """Make ``agent`` keep working (a declared wait, not a hang) once its own run has
    returned, until the attempt's clock ends it: the demo's cards reach the cutoff."""
    run = agent.run

    async def run_then_wait(ctx: Any) -> Any:
        outcome = await run(ctx)
        async with ctx.hold():
            await ctx.sleep_until(ctx.clock.grace_end_s + 1.0)
        return outcome

    agent.run = run_then_wait


class LiveRun:
    def __init__(self, adapter: EngineAdapter, arena: Any) -> None:
        self.adapter = adapter
        self.arena = arena
        self.tasks: list[asyncio.Task] = []
        self.run_id: str | None = None  # the current heat (a `runs` row): CONTRACT §11
        self._heat_lock = asyncio.Lock()

    async def begin_heat(self, kind: str, args: dict | None = None) -> str:
        """Start a new heat: the attempts started from now on carry its id (a demo round)."""
        await self.end_heat()
        self.run_id = await self.arena.store.create_run(kind, args or {})
        return self.run_id

    async def end_heat(self) -> None:
        """The current heat is over (its attempts have ended); the next start opens another."""
        if self.run_id is not None:
            run_id, self.run_id = self.run_id, None
            await self.arena.store.finish_run(run_id)

    async def _heat(self) -> str:
        """The current heat, created on first use (attempts started from the TUI's screens)."""
        async with self._heat_lock:
            if self.run_id is None:
                self.run_id = await self.arena.store.create_run("tui", {})
            return self.run_id

    async def _run_in_heat(self, attempt: Any, heat: str | None) -> Any:
        attempt.run_id = heat or await self._heat()
        return await self.arena.run_one(attempt)

    @classmethod
    async def open(
        cls,
        adapter: EngineAdapter,
        store_path: Path,
        *,
        sandbox: str | None = None,
        parallel: int = 8,
        time_source: Any = None,
    ) -> "LiveRun":
        from arena.attempt import Arena

        arena = await Arena.open(
            Path(store_path), sandbox=sandbox, parallel=parallel, bus=adapter.bus, time_source=time_source
        )
        return cls(adapter, arena)

    async def prepare(self, app: Any, specs: list[AttemptSpec]) -> bool:
        """Images and warm sandboxes for these attempts, before any of them starts."""
        from arena.challenge import load_challenge, resolve_challenge

        items = [(load_challenge(resolve_challenge(s.challenge)), s.agent) for s in specs]
        return await app.prepare(self.arena, items)

    def start(self, spec: AttemptSpec) -> str:
        """Create and start one attempt; returns its id. Raises for a bad challenge/agent."""
        from arena.challenge import load_challenge, resolve_challenge

        challenge = load_challenge(resolve_challenge(spec.challenge))
        attempt = self.arena.attempt(challenge, spec.agent, time_scale=spec.time_scale)
        if spec.ends_within_s is not None:
            attempt.end_by(spec.ends_within_s)
        if spec.linger:
            linger(attempt.agent)
        self.adapter.attach_clock(attempt.id, attempt_elapsed(attempt))
        self.adapter.attach_handle(attempt.id, LiveHandle(attempt))
        self.tasks.append(asyncio.create_task(self._run_in_heat(attempt, self.run_id), name=f"live:{attempt.id}"))
        return attempt.id

    async def wait(self) -> None:
        if self.tasks:
            await asyncio.gather(*self.tasks, return_exceptions=True)

    async def close(self) -> None:
        for task in self.tasks:
            if not task.done():
                for handle in (self.adapter.handle(a) for a in list(self.adapter.views)):
                    if handle is not None:
                        with contextlib.suppress(Exception):
                            await handle.stop()
                break
        await self.wait()
        with contextlib.suppress(Exception):
            await self.end_heat()
        await self.arena.close()
