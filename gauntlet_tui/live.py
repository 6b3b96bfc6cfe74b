"""Starting live attempts from the TUI through the real runner (``arena.attempt``).

``LiveRun.open`` opens an ``Arena`` on the adapter's bus; ``start`` creates attempts
and runs them as tasks of the app's own event loop. Each attempt's clock
(``Attempt.clock.elapsed``) and a ``LiveHandle`` (stop, submit, workspace) are attached
to the adapter so screens can read live time and act on the attempt.
"""
from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gauntlet_tui.engine import EngineAdapter


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

    async def stop(self) -> None:
        self.attempt.finish("interrupted", "stopped by the operator")

    async def submit(self) -> dict[str, Any]:
        return await self.attempt.request({"op": "submit"})


@dataclass(frozen=True)
class AttemptSpec:
    challenge: str | Path  # a directory or a bundled id
    agent: str
    time_scale: float = 1.0


class LiveRun:
    def __init__(self, adapter: EngineAdapter, arena: Any) -> None:
        self.adapter = adapter
        self.arena = arena
        self.tasks: list[asyncio.Task] = []

    @classmethod
    async def open(cls, adapter: EngineAdapter, store_path: Path, *, sandbox: str | None = None,
                   parallel: int = 8, time_source: Any = None) -> "LiveRun":
        from arena.attempt import Arena

        arena = await Arena.open(Path(store_path), sandbox=sandbox, parallel=parallel,
                                 bus=adapter.bus, time_source=time_source)
        return cls(adapter, arena)

    def start(self, spec: AttemptSpec) -> str:
        """Create and start one attempt; returns its id. Raises for a bad challenge/agent."""
        from arena.challenge import load_challenge, resolve_challenge

        challenge = load_challenge(resolve_challenge(spec.challenge))
        attempt = self.arena.attempt(challenge, spec.agent, time_scale=spec.time_scale)
        self.adapter.attach_clock(attempt.id, lambda a=attempt: a.clock.elapsed())
        self.adapter.attach_handle(attempt.id, LiveHandle(attempt))
        self.tasks.append(asyncio.create_task(self.arena.run_one(attempt), name=f"live:{attempt.id}"))
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
        await self.arena.close()
