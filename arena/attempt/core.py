"""One attempt: a challenge, an agent, a sandbox, the clock, every event published.

Lifecycle: ``run()`` prepares the workspace (a copy of the starter under the shared
workspaces root), the agent directory (socket, briefing, ``gauntlet-agent``), the
agent's sandbox when it needs one, registers with the shared watcher, publishes
``attempt.started`` and then runs four tasks until one of them ends the attempt:
the clock (warnings, Marathon reveals, cutoff, grace end), the agent, the hang
watchdog and the sandbox health check. Submissions go through ``SubmissionDesk``.
At the end every in-flight judgement is finished, the agent is stopped, the sandbox
closed, ``attempt.finished`` names the scored (last valid) submission, and the store
is flushed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any, AsyncIterator

from arena import clock as clk
from arena.agents.base import Agent
from arena.agents.bounds import Bounds
from arena.agents.server import AgentServer
from arena.attempt import runner_lock
from arena.attempt.liveness import Liveness
from arena.attempt.phases import PhaseState
from arena.attempt.realagent import AgentSupport
from arena.attempt.protocol import ProtocolHandler
from arena.attempt.shared import Shared
from arena.attempt.starter import judge_starter
from arena.attempt.started import started_data
from arena.attempt.submit import SubmissionDesk
from arena.clock import AttemptClock, RealTime, TimeSource
from arena.formats import rules_for
from arena.sandbox.base import Limits, Mount, SandboxError
from arena import events as ev

if TYPE_CHECKING:
    from arena.agents.agent_file import AgentFile
    from arena.attempt.records import ResumeState
    from arena.challenge import Challenge
    from arena.observe import SandboxObservation
    from arena.sandbox.base import Sandbox

log = logging.getLogger(__name__)
ACTIVITY = frozenset(
    {ev.AGENT_OUTPUT, ev.FILE_CHANGED, ev.PROTOCOL_CALL, ev.COMMAND_RUN, ev.FILE_READ, ev.AGENT_MESSAGE}
)
# agent-driven kinds: stored at most at the attempt's event rate (arena/agents/bounds.py)
BOUNDED = ACTIVITY | {ev.FEEDBACK_READ, ev.AGENT_STEP}  # steps: parsed from the agent's output
HEALTH_INTERVAL_S = 1.0  # real seconds between sandbox health checks


def new_attempt_id() -> str:
    return "a-" + secrets.token_hex(4)


class Attempt:
    def __init__(
        self,
        challenge: Challenge,
        agent: Agent,
        shared: Shared,
        *,
        time_source: TimeSource | None = None,
        time_scale: float = 1.0,
        attempt_id: str | None = None,
        resume: ResumeState | None = None,
    ) -> None:
        self.challenge = challenge
        self.manifest = challenge.manifest
        self.rules = rules_for(self.manifest.format)
        self.agent = agent
        self.shared = shared
        self.id = attempt_id or new_attempt_id()
        self.run_id: str | None = None  # the `runs` row this attempt belongs to, if any
        self.contestant: str | None = None  # a plan entry's display name (``name:``), if any
        self.resume = resume
        self.time_scale = float(time_scale)
        self.source: TimeSource = time_source or RealTime()
        self.deadline: float | None = None  # see end_by
        self.ends_within_s: float | None = None
        self.workspace = shared.workspaces / self.id
        self.events: list[ev.Event] = []
        self.phases = PhaseState(self)
        self.desk = SubmissionDesk(self)
        self.protocol = ProtocolHandler(self)
        self.sandbox: Sandbox | None = None
        self.host_uid: int | None = None  # a host agent's own uid, as root with bwrap (hostrun.py)
        self._host_sid = ""  # its reservation
        self.status: str | None = None
        self.reason = ""
        self._done = asyncio.Event()
        self._last_activity = 0.0
        self._holds = 0
        self.io_busy = 0
        self.ready = False  # set once set up and running (tests wait for it)
        self.ended_s: float | None = None  # attempt time of the first finish() once running
        self._closed = False  # attempt.finished published
        self._released = asyncio.Event()
        self._server: AgentServer | None = None
        self.clock: AttemptClock  # set by _make_clock, below
        self.support = AgentSupport(self)  # gateway, adapter needs, observation
        self.liveness = Liveness(self)  # the hang watchdog: start-up, idle limit, CPU (liveness.py)
        self._make_clock()
        self.bounds = Bounds(
            now=lambda: self.clock.elapsed(), on_hit=lambda name, data: self.publish(ev.BOUND_REACHED, data)
        )

    def _make_clock(self) -> None:
        """(Re)start the clock: called again when the attempt really starts running."""
        resume = self.resume
        self.clock = AttemptClock(
            self.source,
            self.rules,
            self.manifest.time_limit_s,
            scale=self.time_scale,
            reveal_at=self.phases.reveal_fractions(),
            elapsed_at_start=resume.elapsed_s if resume else 0.0,
            deadline=self.deadline,
        )

    def end_by(self, wall_s: float) -> None:
        """Promise (before ``run``) that the clock reaches its grace end within ``wall_s``
        seconds of the time source from now, whatever judging costs: real-speed judging
        is then repaid by a faster clock afterwards (``AttemptClock.unscaled``). The demo
        keeps its stated time this way; recorded as ``ends_within_s`` in attempt.started."""
        if not wall_s > 0:
            raise ValueError(f"end_by: expected a positive number of seconds, got {wall_s}")
        self.ends_within_s = float(wall_s)
        self.deadline = self.source.now() + self.ends_within_s
        self._make_clock()

    # -- what the agent runner sees (arena.agents.base.AgentContext) ---------------
    attempt_id = property(lambda self: self.id)

    def elapsed(self) -> float:
        return self.clock.elapsed()

    def wall_seconds_left(self) -> float:
        return max(0.0, (self.clock.grace_end_s - self.clock.elapsed()) / self.clock.scale)

    async def sleep_until(self, attempt_t: float) -> None:
        await self.clock.sleep_until(attempt_t)

    async def request(self, req: dict[str, Any]) -> dict[str, Any]:
        return await self.protocol.handle(req)

    async def scan(self) -> None:
        async with self.hold(io=True):  # our own I/O: never counted toward a hang
            await self.shared.watcher.scan(self.id)

    @contextlib.asynccontextmanager
    async def hold(self, io: bool = False) -> AsyncIterator[None]:
        """Time inside is never counted toward a hang (declared waits, judging).
        ``io``: real work is in progress (a command, a judgement): ``io_busy`` tells
        a test stepping ManualTime to let it finish first."""
        self.hold_begin(io)
        try:
            yield
        finally:
            self.hold_end(io)

    def hold_begin(self, io: bool = False) -> None:
        """``hold()`` opened by a callback (a model call in flight: realagent.py)."""
        self._holds += 1
        self.io_busy += io

    def hold_end(self, io: bool = False) -> None:
        self._holds -= 1
        self.io_busy -= io
        self._last_activity = max(self._last_activity, self.clock.elapsed())
        self._released.set()

    def publish(self, kind: str, data: dict[str, Any] | None = None, t: float | None = None) -> ev.Event:
        at = self.clock.elapsed() if t is None else t
        data = data or {}
        if kind in ACTIVITY:
            self._last_activity = max(self._last_activity, at)
            self.liveness.seen(kind, data)  # a sign of life ends a real agent's start-up
        if kind in BOUNDED:  # over a bound: counted (one bound.reached event), not stored
            kept = True
            if kind == ev.AGENT_OUTPUT and isinstance(data.get("text"), str):
                text = self.bounds.output(data["text"])
                kept = text is not None
                data = {**data, "text": text}
            if not kept or not self.bounds.event():
                return ev.Event(attempt=self.id, t=at, kind=kind, data=data)
        e = self.shared.bus.publish(self.id, at, kind, data)
        self.events.append(e)
        return e

    @property
    def agent_dir(self) -> Path:
        return self.shared.agent_dir(self.id)

    @property
    def env(self) -> dict[str, str]:
        """A host agent's variables (its environment is otherwise cleared: hostrun.py)."""
        d = self.agent_dir
        return {
            **self.support.host_env,
            "GAUNTLET_SOCKET": str(d / "agent.sock"),
            "GAUNTLET_WORKSPACE": str(self.workspace),
            "GAUNTLET_BRIEFING": str(d / "briefing.md"),
            "GAUNTLET_ATTEMPT": self.id,
            "PATH": f"{d / 'bin'}:/usr/local/bin:/usr/bin:/bin",
        }

    @property
    def sandbox_env(self) -> dict[str, str]:
        return {
            "HOME": "/tmp",
            **self.support.sandbox_env,
            "GAUNTLET_SOCKET": "/gauntlet/agent.sock",
            "GAUNTLET_WORKSPACE": "/workspace",
            "GAUNTLET_BRIEFING": "/gauntlet/briefing.md",
            "GAUNTLET_ATTEMPT": self.id,
            "PATH": "/gauntlet/bin:/usr/local/bin:/usr/bin:/bin",
        }

    # real agents (arena/attempt/realagent.py), as the agent runner sees them
    def wrap_sandbox_argv(self, argv: list[str]) -> list[str]:
        return self.support.wrap_sandbox_argv(argv)

    @property
    def host_hidden(self) -> list[Path]:
        return self.support.host_hidden()

    def observe_host(self, pid: int) -> contextlib.AbstractAsyncContextManager[SandboxObservation]:
        return self.support.observe_host(pid)

    # -- ending --------------------------------------------------------------------
    def finish(self, status: str, reason: str) -> None:
        """Ask the attempt to end (first caller wins)."""
        if not self._done.is_set():
            self.status, self.reason = status, reason
            self.ended_s = self.clock.elapsed() if self.ready else None
            self._record_due_marks()
            self._done.set()

    def _record_due_marks(self) -> None:
        """A warning whose instant has come when the attempt ends is on the record even if
        the clock's task had not run yet (an agent ending on the very instant of its 80 %
        mark). Phase reveals are not: a phase does not open as the attempt closes."""
        if not self.ready:
            return
        clock = self.clock
        for mark in clock.due():
            if mark.kind != clk.REVEAL:
                self.publish(mark.kind, {"remaining_s": round(max(0.0, clock.cutoff_s - mark.t), 3)}, t=mark.t)

    async def commit(self) -> bool:
        """Wait until everything published so far is committed to the store. False (and
        the attempt ends as an infrastructure error) if the store cannot commit it."""
        try:
            await self.shared.store.flush()
            return True
        except Exception as exc:  # noqa: BLE001 - StoreWriteError, sqlite errors
            if not self.over:
                self.infra("store", f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}")
            return False

    def infra(self, source: str, detail: str) -> None:
        self.publish(ev.INFRA_ERROR, {"source": source, "detail": detail})
        self.finish("infra_error", f"{source}: {detail}")

    @property
    def over(self) -> bool:
        return self._done.is_set()

    # -- running ---------------------------------------------------------------------
    async def run(self) -> str:
        """Run to the end; returns the final status."""
        tasks: list[asyncio.Task] = []
        self._make_clock()
        try:
            await self._setup()
            self.shared.warm_judge(self.challenge, list(range(1, self.phases.current + 1)))
            await judge_starter(self)  # what the work is measured against (scoring/context.py)
            # The clock starts when the agent does: setting up (copying, a sandbox) is
            # not the agent's time.
            self._make_clock()
            if self.resume:
                self.clock.skip_past(self.resume.elapsed_s)
            self._last_activity = self.clock.elapsed()
            if not self.over:
                tasks = [
                    asyncio.create_task(c, name=f"{self.id}:{n}")
                    for n, c in (
                        ("clock", self.clock.run(self._on_mark)),
                        ("agent", self._agent_main()),
                        ("hang", self._watchdog()),
                        ("health", self._health()),
                    )
                ]
                await self._done.wait()
        except asyncio.CancelledError:  # the operator stopped the arena (Ctrl-C, quit)
            self.finish("interrupted", "stopped by the operator")
            raise
        except SandboxError as exc:
            self.infra("sandbox", str(exc) or type(exc).__name__)
        except Exception as exc:  # never leave an attempt open on a bug of ours
            log.exception("attempt %s failed", self.id)
            self.infra("agent-runner", f"{type(exc).__name__}: {exc}")
        finally:
            for t in tasks:
                t.cancel()
            for t in tasks:
                with contextlib.suppress(BaseException):
                    await t
            await self._teardown()
        return self.status or "finished"

    async def _setup(self) -> None:
        if not self.workspace.exists():
            shutil.copytree(
                self.challenge.starter_dir,
                self.workspace,
                symlinks=True,
                ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
            )
        (self.agent_dir / "briefing.md").write_text(self.phases.briefing_text())
        self._server = AgentServer(self.agent_dir / "agent.sock", self.protocol.handle, bounds=self.bounds)
        await self._server.start()
        if self.resume:
            self.shared.bus.start_seq(self.id, self.resume.last_seq)
            self.desk.restore(self.resume)
            self.phases.restore(self.resume)
            self.publish(
                ev.ATTEMPT_RESUMED, {"elapsed_s": round(self.resume.elapsed_s, 3), "runner_pid": runner_lock.held_pid()}
            )
        else:
            self.publish(ev.ATTEMPT_STARTED, self.started_data(), t=0.0)
        await self.support.setup()  # before the clock starts: images, trees, the grant
        agent_file = getattr(self.agent, "file", None)  # agent-file runners only
        if agent_file is not None and agent_file.where == "host":
            from arena.agents import hostrun  # noqa: PLC0415

            if hostrun.view(self.workspace, self.agent_dir).isolated:  # else it runs as the arena's uid
                uid, self._host_sid = await asyncio.to_thread(hostrun.reserve_uid)
                self.host_uid = uid
                hostrun.give_workspace(self.workspace, uid)
        if self.agent.needs_sandbox:
            m = self.manifest.sandbox
            limits = Limits(
                cpus=m.cpus,
                memory_mb=int(m.memory_mb),
                pids=m.pids,
                wall_s=max(60.0, self.wall_seconds_left()),
                network=m.network,
                runtime=getattr(m, "runtime", None),
            )
            self.sandbox = await self.shared.backend.create(
                self.workspace,
                limits,
                mounts=[Mount(self.agent_dir, "/gauntlet", True), *self.support.mounts],
                image=self.support.image or m.image,
            )
        self._allow_agent_uid(agent_file)
        # The workspace as the agent gets it is the watcher's baseline: the local sandbox moves
        # it into its quota tmpfs, and a scan in between saw the starter deleted and created
        # again (under load: "edits" before the first test run, issue 38).
        await self.shared.watcher.register(self.id, self.workspace, self._on_file_change, on_bound=self.bounds.hit)

    def _allow_agent_uid(self, agent_file: "AgentFile | None") -> None:
        """Give the attempt's sockets (agent.sock, the gateway's) to the uid its agent runs
        as, mode 0600: no other uid on the host speaks for this attempt (issue 26)."""
        uid: int | None = None
        if self.sandbox is not None:
            uid = getattr(self.sandbox, "uid", None)
        elif agent_file is not None and agent_file.where == "host":
            uid = self.host_uid if self.host_uid is not None else os.geteuid()
        if uid is None:
            return
        if self._server is not None:
            self._server.allow_uid(uid)
        self.support.allow_uid(uid)

    def started_data(self) -> dict[str, Any]:
        """What ``attempt.started`` says of this attempt (``arena.attempt.started``)."""
        return started_data(self)

    @property
    def hang_limit_s(self) -> float:
        return float(getattr(self.manifest, "hang_limit_s", 60.0))

    def _on_file_change(self, change: dict[str, Any]) -> None:
        if not self._closed:  # changes up to the end are logged, none after
            self.publish(ev.FILE_CHANGED, change)

    async def _on_mark(self, mark: clk.Mark) -> None:
        if mark.kind == clk.REVEAL:
            self.phases.check(t=mark.t)
            return
        self.publish(mark.kind, {"remaining_s": round(max(0.0, self.clock.cutoff_s - mark.t), 3)}, t=mark.t)
        if mark.kind == clk.GRACE_END:
            self.finish("finished", "time limit reached")

    async def _agent_main(self) -> None:
        self.ready = True  # the agent's first instant is now (tests step the clock after)
        try:
            async with self.support.observing():
                outcome = await self.agent.run(self)
        except SandboxError as exc:
            self.infra("sandbox", str(exc) or type(exc).__name__)
            return
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.exception("agent runner of %s failed", self.id)
            self.infra("agent-runner", f"{type(exc).__name__}: {exc}")
            return
        await self.desk.idle()
        if outcome.own_failure:
            self.finish("finished", f"agent failed: {outcome.detail}")
        else:
            self.finish("finished", f"agent done: {outcome.detail}")

    async def _watchdog(self) -> None:
        await self.liveness.watch()  # start-up, then the idle limit (arena/attempt/liveness.py)

    async def _health(self) -> None:
        if self.sandbox is None:
            return
        while True:
            await asyncio.sleep(HEALTH_INTERVAL_S)  # infrastructure polling, not attempt logic
            try:
                alive = await self.sandbox.alive()
            except Exception as exc:  # noqa: BLE001 - any failure to ask is a dead sandbox
                alive, why = False, f"{type(exc).__name__}: {exc}"
            else:
                why = "the agent's sandbox stopped"
            if not alive:
                self.infra("sandbox", why)
                return

    async def _teardown(self) -> None:
        if self.status == "interrupted":
            self.desk.cancel()  # stopped by the operator: do not wait for judgements
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(self.desk.idle(), 600)
        with contextlib.suppress(Exception):
            await self.shared.watcher.scan(self.id)
        self.shared.watcher.unregister(self.id)
        if self._server is not None:
            await self._server.close()
        if self.sandbox is not None:
            with contextlib.suppress(Exception):
                await self.sandbox.close()
        await self.support.close()
        if self.host_uid is not None:  # the agent is gone: its leftovers are killed, the uid freed
            from arena.agents.hostrun import release_uid  # noqa: PLC0415

            with contextlib.suppress(Exception):
                await asyncio.to_thread(release_uid, self.host_uid, self._host_sid)
        self._closed = True
        self.publish(
            ev.ATTEMPT_FINISHED,
            {
                "status": self.status or "finished",
                "reason": self.reason,
                "scored_submission": self.desk.scored_submission(),
                # the instant the attempt ended; ``t`` is when its record closed, after
                # teardown (the last judgement, the final scan, the sandbox closed)
                **({"ended_s": round(self.ended_s, 3)} if self.ended_s is not None else {}),
            },
        )
        with contextlib.suppress(Exception):
            await self.shared.store.flush()
        self.shared.remove_agent_dir(self.id)
