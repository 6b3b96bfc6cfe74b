"""The hang watchdog of one attempt: when an agent is ended as hung (issue 34).

A **real agent** (an agent file's process: a built-in adapter, a command) first starts up:
from its first instant until its first sign of life (a model call begins, a line of its
own output, an observed read or change of a workspace file, a call of ``gauntlet-agent``)
no idle limit applies. An observed command is not a sign of life: every adapter's
launcher runs a few (the relay, ``readlink``, ``dirname``, ``cat`` of its task, aider's
``git version``, claude-code's MCP server) within its first two seconds, measured, long
before the agent itself does anything (docs/gateway.md). Start-up is bounded by the agent's start-up limit, in real seconds
(its agent file's ``startup_limit_s``, else its adapter's, docs/gateway.md): silent that
long, it is ended as hung. After start-up its idle limit (the manifest's hang limit)
counts real seconds whatever the time scale, and CPU time used by its sandbox's processes
counts as activity (read every ``CPU_POLL_S`` real seconds, arena/sandbox/cpu.py): an
agent importing its packages or running a silent build is not hung.

Scripted agents and people have no start-up: their idle limit counts attempt time, as
before. Time inside a hold (a model call in flight, judging) never counts toward a hang.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Protocol

from arena import events as ev

if TYPE_CHECKING:
    from arena.attempt.host import AttemptHost

    class Watched(AttemptHost, Protocol):
        """core.Attempt as the watchdog reads it: the host plus its activity book-keeping."""

        _holds: int
        _released: asyncio.Event
        _last_activity: float

        @property
        def hang_limit_s(self) -> float: ...


CPU_POLL_S = 2.0  # real seconds between reads of the sandbox's CPU time
CPU_ACTIVE_S = 0.02  # CPU seconds used since the last read that count as activity (1 % of a core)


class Liveness:
    def __init__(self, attempt: Watched) -> None:
        self.a = attempt
        self.alive = asyncio.Event()  # the first sign of life: start-up is over
        self.startup_s: float | None = None  # attempt time start-up took

    # -- what the attempt tells it ---------------------------------------------------
    def seen(self, kind: str, data: dict[str, Any] | None = None) -> None:
        """An activity event (``core.ACTIVITY``) or a model call beginning. Neither the
        arena's own notes (``agent.output`` on stream ``arena``) nor an observed command
        (launchers run several as they start) is the agent's sign of life."""
        if self.alive.is_set() or not self.a.ready or kind == ev.COMMAND_RUN:
            return
        if kind == ev.AGENT_OUTPUT and (data or {}).get("stream") == "arena":
            return
        self.startup_s = self.a.clock.elapsed()
        self.alive.set()

    @property
    def startup_limit_s(self) -> float | None:
        """A real agent's start-up limit (real seconds); None for agents without start-up."""
        f = getattr(self.a.agent, "file", None)
        return None if f is None else float(f.startup_limit)

    # -- the watchdog ------------------------------------------------------------------
    async def watch(self) -> None:
        limit = self.startup_limit_s
        if limit is not None and not await self._startup(limit):
            return
        await self._idle(real=limit is not None)

    async def _startup(self, limit: float) -> bool:
        """Wait for the first sign of life; False once the agent is ended as hung."""
        a, source = self.a, self.a.clock.source
        end = source.now() + limit
        while not self.alive.is_set():
            if a.over or a.clock.stage() != "running":
                return False
            if source.now() >= end:
                self._hung(
                    f"no model call, output or observed activity in its first {limit:.0f} real seconds "
                    f"(start-up limit {limit:.0f}s)",
                    startup_limit_s=limit,
                )
                return False
            await _first(self.alive.wait(), source.sleep_until(end))
        a._last_activity = max(a._last_activity, a.clock.elapsed())
        return True

    async def _idle(self, real: bool) -> None:
        # A real agent's idle limit is in real seconds whatever the time scale (its Python
        # imports and its model answer at real speed); a scripted agent's is attempt time.
        a = self.a
        scaled = real and a.clock.scale != 1.0
        limit = a.hang_limit_s * (a.clock.scale if scaled else 1.0)
        read = self._cpu_reader() if real else None
        poll = CPU_POLL_S * a.clock.scale
        last_cpu = await read() if read is not None else None
        next_poll = a.clock.elapsed() + poll
        while a.clock.stage() == "running":
            if a._holds:
                a._released.clear()
                await a._released.wait()
                continue
            deadline = min(a._last_activity + limit, a.clock.cutoff_s)
            if last_cpu is not None:
                deadline = min(deadline, next_poll)
            await a.clock.sleep_until(deadline + 1e-6)
            if a._holds or a.clock.stage() != "running":
                continue
            if read is not None and last_cpu is not None and a.clock.elapsed() >= next_poll:
                cpu = await read()
                if cpu is not None:
                    if cpu - last_cpu >= CPU_ACTIVE_S:  # its processes are working: not hung
                        a._last_activity = max(a._last_activity, a.clock.elapsed())
                    last_cpu = cpu
                next_poll = a.clock.elapsed() + poll
            idle = a.clock.elapsed() - a._last_activity
            if idle > limit:
                if scaled:
                    detail = f"no activity for {idle / a.clock.scale:.0f} real seconds (limit {a.hang_limit_s:.0f}s)"
                else:
                    detail = f"no activity for {idle:.0f}s (limit {limit:.0f}s)"
                self._hung(detail)
                return

    def _cpu_reader(self) -> Callable[[], Awaitable[float | None]] | None:
        from arena.sandbox.cpu import cpu_meter  # noqa: PLC0415

        meter = cpu_meter(self.a.sandbox)
        if meter is None:
            return None

        async def read() -> float | None:
            try:
                return await asyncio.to_thread(meter)
            except Exception:  # noqa: BLE001 — an unreadable meter is no reading
                return None

        return read

    def _hung(self, detail: str, **extra: float) -> None:
        self.a.publish(ev.AGENT_HUNG, {"detail": detail, **extra})
        self.a.finish("finished", "agent hung")


async def _first(*aws: Awaitable[Any]) -> None:
    """Wait until the first of ``aws`` is done; cancel the others."""
    futs = [asyncio.ensure_future(x) for x in aws]
    try:
        await asyncio.wait(futs, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for f in futs:
            if not f.done():
                f.cancel()
                with contextlib.suppress(BaseException):
                    await f
