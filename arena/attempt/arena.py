"""An arena: many attempts at once sharing one bus, one store, one judge pool, one
sandbox backend and one workspace watcher, with at most ``parallel`` running.

    arena = await Arena.open(store_path, sandbox="local", parallel=8)
    try:
        resumed = await arena.recover()          # attempts a crash left running
        a = arena.attempt(challenge, "scripted:elite", time_scale=60)
        await arena.run_all([a, *resumed])
    finally:
        await arena.close()
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING, Awaitable, Callable, Iterable

from arena.agents.factory import make_agent
from arena.attempt import control
from arena.attempt import recover as rec
from arena.attempt.core import Attempt, new_attempt_id
from arena.attempt.shared import Shared
from arena.bus import EventBus
from arena.clock import TimeSource
from arena import events as ev
from arena.telemetry.watch import WorkspaceWatcher

if TYPE_CHECKING:
    from arena.challenge import Challenge
    from arena.judge import Judge
    from arena.sandbox.base import Backend
    from store import Store

log = logging.getLogger(__name__)


class Arena:
    def __init__(
        self, shared: Shared, *, parallel: int = 4, time_source: TimeSource | None = None, own_store: bool = False
    ) -> None:
        if parallel < 1:
            raise ValueError("parallel must be at least 1")
        self.shared = shared
        self.parallel = parallel
        self.time_source = time_source
        self._sem = asyncio.Semaphore(parallel)
        self._own_store = own_store
        self._watch_task: asyncio.Task | None = None
        self._unsub = shared.bus.subscribe(shared.store.append)
        self.attempts: list[Attempt] = []
        # "Run this attempt elsewhere": an async callable (attempt) -> status that runs it
        # on another machine and publishes its events here (arena.cluster). None: locally.
        self.place: Callable[[Attempt], Awaitable[str]] | None = None
        self.control: control.ControlServer | None = None  # this process's control channel (open)

    @classmethod
    async def open(
        cls,
        store_path: Path,
        *,
        sandbox: str | None = None,
        parallel: int = 4,
        judge_pool: int | None = None,
        time_source: TimeSource | None = None,
        store: Store | None = None,
        backend: Backend | None = None,
        judge: Judge | None = None,
        bus: EventBus | None = None,
        watch_interval: float | None = 0.25,
    ) -> "Arena":
        """Open the shared parts (anything not passed in is created). ``watch_interval``
        None: the watcher is not polled in the background (tests call ``scan``)."""
        from arena import paths
        from arena.agents.bounds import raise_nofile

        raise_nofile()  # many sockets and pipes; each attempt is bounded on its own
        store_path = Path(store_path)
        own = store is None
        if store is None:
            from store import Store

            store = await Store.open(store_path)
            await store.start_writer()  # before the first telemetry group, not during it
        if backend is None:
            from arena.sandbox import get_backend

            backend = get_backend(sandbox)
        if judge is None:
            from arena.judge import Judge

            judge = Judge(backend, judge_pool or max(1, min(parallel, os.cpu_count() or 2)))
        watcher = WorkspaceWatcher(paths.workspaces_root(store_path), interval=watch_interval or 0.25)
        shared = Shared(bus or EventBus(), store, judge, backend, watcher, store_path)
        arena = cls(shared, parallel=parallel, time_source=time_source, own_store=own)
        if watch_interval is not None:
            arena._watch_task = asyncio.create_task(watcher.run(), name="workspace-watcher")
        arena.control = await control.acquire(store_path)  # stop from another process (serve)
        return arena

    @property
    def bus(self) -> EventBus:
        return self.shared.bus

    @property
    def store(self) -> Store:
        return self.shared.store

    def attempt(
        self,
        challenge: Challenge,
        agent_spec: str,
        *,
        time_scale: float = 1.0,
        attempt_id: str | None = None,
        contestant: str | None = None,
    ) -> Attempt:
        """A new attempt (not started). Raises ``UsageError`` for a bad agent name.
        ``contestant``: a display name (a plan entry's ``name:``); by default the one an
        ``arena.attempt.plan.NamedSpec`` carries. Recorded on ``attempt.started``."""
        agent = make_agent(agent_spec, challenge)
        a = Attempt(
            challenge,
            agent,
            self.shared,
            time_source=self.time_source,
            time_scale=time_scale,
            attempt_id=attempt_id or new_attempt_id(),
        )
        a.contestant = contestant if contestant is not None else getattr(agent_spec, "contestant", None)
        self.attempts.append(a)
        return a

    def widen(self, n: int) -> None:
        """Allow ``n`` more attempts at once (resumed attempts must not take the slots
        of the ones just asked for)."""
        for _ in range(max(0, n)):
            self._sem.release()
        self.parallel += max(0, n)

    async def run_one(self, attempt: Attempt) -> str:
        """Run one attempt (locally, or placed elsewhere); while it runs, the control
        channel can stop it: it ends ``interrupted`` as the TUI's stop key ends it."""
        placed: asyncio.Future[str] | None = None
        asked = False

        def stop() -> str | None:
            nonlocal asked
            if self.place is None:
                if attempt.over:
                    return "it is already over"
                attempt.finish("interrupted", control.STOPPED)
                return None
            if placed is None:
                return "it has not been placed on a node yet"
            if placed.done():
                return "it is already over"
            asked = True
            placed.cancel()  # the node ends it interrupted; its last events come home
            return None

        if self.control is not None:
            self.control.register(attempt.id, stop)
        try:
            async with self._sem:
                if self.place is None:
                    return await attempt.run()
                placed = asyncio.ensure_future(self.place(attempt))
                try:
                    return await placed
                except asyncio.CancelledError:
                    task = asyncio.current_task()
                    if asked and task is not None and not task.cancelling():
                        return "interrupted"  # the channel's stop, not this task's
                    raise
        finally:
            if self.control is not None:
                self.control.unregister(attempt.id)

    async def run_all(self, attempts: Iterable[Attempt]) -> list[str]:
        return list(await asyncio.gather(*(self.run_one(a) for a in attempts)))

    # -- crash recovery ------------------------------------------------------------
    async def recover(self) -> list[Attempt]:
        """Find attempts left ``running``: return the resumable ones as attempts to
        run; close the others as ``interrupted`` (scored on their last valid
        submission). Leftover agent processes and stale sandboxes are removed."""
        from arena.challenge import load_challenge

        rec.cleanup_stale_sandboxes(docker=getattr(self.shared.backend, "name", "") == "docker")
        self.shared.sweep_stale_agent_dirs()
        resumed: list[Attempt] = []
        for row in await self.store.running_attempts():
            aid: str = row if isinstance(row, str) else (row.get("attempt") or row["id"])
            events = list(await self.store.events(aid))
            state = rec.state_from_events(events, self.shared.snapshots)
            state.attempt = aid
            if state.finished or rec.owned_by_live_runner(state):
                continue  # already closed, or live in another arena process
            rec.kill_leftovers(state)
            ok, why = rec.can_resume(state, self.shared.workspaces / aid)
            if ok:
                try:
                    challenge = load_challenge(Path(state.started["challenge_path"]))
                    skip = state.answered_submits
                    agent = make_agent(
                        state.started.get("agent_spec") or state.started["agent"],
                        challenge,
                        resume_after_submissions=skip,
                    )
                except Exception as exc:  # noqa: BLE001 - then it is closed instead
                    ok, why = False, f"cannot restart: {exc}"
            if ok:
                a = Attempt(
                    challenge,
                    agent,
                    self.shared,
                    time_source=self.time_source,
                    time_scale=float(state.started.get("time_scale") or 1.0),
                    attempt_id=aid,
                    resume=state,
                )
                self.attempts.append(a)
                resumed.append(a)
            else:
                await self._close_interrupted(aid, state, why)
        return resumed

    async def _close_interrupted(self, aid: str, state: rec.ResumeState, why: str) -> None:
        self.bus.start_seq(aid, state.last_seq)
        self.bus.publish(
            aid,
            state.elapsed_s,
            ev.ATTEMPT_FINISHED,
            {
                "status": "interrupted",
                "reason": f"the arena stopped mid-attempt; not resumed: {why}",
                "scored_submission": state.scored_submission,
            },
        )
        await self.store.flush()
        setter = getattr(self.store, "set_status", None)
        if setter is not None:
            with contextlib.suppress(Exception):
                await setter(aid, "interrupted")
        self.shared.remove_agent_dir(aid)

    async def close(self) -> None:
        if self._watch_task is not None:
            self._watch_task.cancel()
            with contextlib.suppress(BaseException):
                await self._watch_task
        with contextlib.suppress(Exception):
            await self.store.flush()
        judge_close = getattr(self.shared.judge, "aclose", None)  # pooled sandboxes (judge)
        if judge_close is not None:
            with contextlib.suppress(Exception):
                await judge_close()
        await self.shared.close_gateway()
        if "arena.observe" in sys.modules:  # only if an attempt was observed
            from arena.observe import close_shared_observer  # noqa: PLC0415

            with contextlib.suppress(Exception):
                await close_shared_observer()
        self._unsub()
        control_server, self.control = self.control, None
        await control.release(control_server)
        if self._own_store:
            closer = getattr(self.store, "close", None)
            if closer is not None:
                await closer()
