"""Agent files (CONTRACT §3): a command run on the host or inside the agent's sandbox.

```yaml
name: my-agent
command: ["my-agent", "--task", "{briefing}"]   # {workspace} {briefing} {socket} expand
where: host                                        # host | sandbox
```

On the host the process runs in the workspace, in its own process group, and dies
with the arena (PR_SET_PDEATHSIG); its output is captured line by line as
``agent.output``. In the sandbox it runs through ``Sandbox.exec``, whose ``on_output``
records its output line by line as it is written. Its exit is ``agent.exited``; a non-zero exit is the agent's
own failure, never an infrastructure error.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import signal
from pathlib import Path
from typing import Any

from arena.agents.base import AgentContext, AgentOutcome
from arena.agents import hostrun
from arena.agents.agent_file import AgentFile, load_agent_file
from arena.agents.endreason import EndReader, reader_for
from arena import events as ev
from arena.steps import parser_for

OUTPUT_CAP = 1 << 20  # bytes of agent output recorded per attempt
LINE_CAP = 4096
NO_TIMEOUT = float("inf")  # a sandboxed agent's exec: ended by its attempt, never by a timer
__all__ = ["AgentFile", "CommandAgent", "load_agent_file", "expand", "kill_leftover", "describe"]


def expand(command: list[str], *, workspace: str, briefing: str, socket: str) -> list[str]:
    return [
        c.replace("{workspace}", workspace).replace("{briefing}", briefing).replace("{socket}", socket) for c in command
    ]


def _die_with_parent() -> None:  # runs in the child between fork and exec
    os.setsid()
    with contextlib.suppress(Exception):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


class CommandAgent:
    restartable = False  # an external program's state cannot be replayed
    observed = True  # its programs and reads are observed (arena/observe), not declared

    def __init__(self, spec: str, file: AgentFile) -> None:
        self.spec = spec
        self.file = file
        self.identity = file.identity  # name, adapter, model: what the store and the leaderboard show
        self.needs_sandbox = file.where == "sandbox"
        self.wants_mcp = file.mcp  # the MCP tree is mounted, `gauntlet-agent mcp` works (realagent.py)
        self.extra_binds: list[tuple[Path, str]] = []  # read-only (host path, target) for a host run: the MCP tree
        self.pid: int | None = None
        self._recorded = 0
        self._steps = parser_for(file.adapter)  # the agent's output as agent.step events (arena/steps)
        self._end: EndReader | None = reader_for(file.adapter)  # the agent's own end reason

    def _emit_output(self, ctx: AgentContext, stream: str, text: str) -> None:
        if self._end is not None:
            self._end.feed(stream, text)  # whole lines, past the recording cap too
        now = getattr(ctx, "elapsed", lambda: None)()  # the attempt clock (the text-step rate)
        steps = self._steps.feed(stream, text, now)  # the whole line, past the cap too
        if self._recorded < OUTPUT_CAP:
            line = text[:LINE_CAP]
            self._recorded += len(line)
            if self._recorded >= OUTPUT_CAP:
                line += "\n[agent output cap reached: further output not recorded]"
            ctx.publish(ev.AGENT_OUTPUT, {"stream": stream, "text": line})
        for step in steps:  # after the raw line, which stays stored
            ctx.publish(ev.AGENT_STEP, step.data())

    def _last_steps(self, ctx: AgentContext) -> None:
        """The steps still pending when the agent's output ended (a tool never answered)."""
        for step in self._steps.finish():
            ctx.publish(ev.AGENT_STEP, step.data())

    async def run(self, ctx: AgentContext) -> AgentOutcome:
        if self.file.where == "sandbox":
            return await self._run_sandboxed(ctx)
        return await self._run_host(ctx)

    # -- what an adapter changes (arena/agents/adapter.py) -------------------------------
    def command_argv(self, *, workspace: str, briefing: str, socket: str, host: bool) -> list[str]:
        return expand(self.file.command, workspace=workspace, briefing=briefing, socket=socket)

    def host_binds(self) -> list[tuple[Path, str]]:
        return list(self.extra_binds)

    async def _run_host(self, ctx: AgentContext) -> AgentOutcome:
        agent_dir = Path(ctx.env["GAUNTLET_SOCKET"]).parent
        seen = hostrun.view(ctx.workspace, agent_dir)
        env = {k: seen.path(v, ctx.workspace, agent_dir) for k, v in ctx.env.items()}
        env["PATH"] = ":".join(seen.path(p, ctx.workspace, agent_dir) for p in env["PATH"].split(":"))
        argv = self.command_argv(
            workspace=env["GAUNTLET_WORKSPACE"],
            briefing=env["GAUNTLET_BRIEFING"],
            socket=env["GAUNTLET_SOCKET"],
            host=True,
        )
        hp = hostrun.plan(
            argv,
            workspace=ctx.workspace,
            agent_dir=agent_dir,
            hide=list(getattr(ctx, "host_hidden", [])),
            env=env,
            binds=self.host_binds(),
            uid=getattr(ctx, "host_uid", None),  # the attempt's own (issue 26)
        )
        try:
            proc = await asyncio.create_subprocess_exec(
                *hp.argv,
                cwd=ctx.workspace,
                env=hp.env,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                preexec_fn=_die_with_parent,
                pass_fds=hp.fds,
            )
        except OSError as exc:
            ctx.publish(ev.AGENT_EXITED, {"exit_code": None, "detail": f"cannot start {argv[0]}: {exc}"})
            return AgentOutcome(None, f"cannot start {argv[0]}: {exc}", own_failure=True)
        finally:
            for fd in hp.fds:
                os.close(fd)
        self.pid = proc.pid
        ctx.publish(
            ev.AGENT_STARTED,
            {"pid": proc.pid, "detail": f"{self.file.name} on the host, unsandboxed ({'; '.join(hp.isolation)})"},
        )
        observing = getattr(ctx, "observe_host", None)
        cm = observing(proc.pid) if observing is not None else contextlib.nullcontext()
        try:
            async with cm:
                await asyncio.gather(self._pump(ctx, proc.stdout, "stdout"), self._pump(ctx, proc.stderr, "stderr"))
                code = await proc.wait()
        except asyncio.CancelledError:
            await self._kill(proc)
            raise
        return self._exited(ctx, code)

    async def _pump(self, ctx: AgentContext, stream: asyncio.StreamReader | None, name: str) -> None:
        if stream is None:
            return
        while True:
            try:
                line = await stream.readline()
            except ValueError:  # a line over the reader's limit: take what is there
                line = await stream.read(65536)
            if not line:
                return
            self._emit_output(ctx, name, line.decode("utf-8", "replace").rstrip("\n"))

    async def _kill(self, proc: asyncio.subprocess.Process) -> None:
        if proc.returncode is not None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(proc.wait(), 5)

    def _exited(self, ctx: AgentContext, code: int | None) -> AgentOutcome:
        self._last_steps(ctx)
        own = code not in (0,)
        detail = (
            "exited normally"
            if code == 0
            else (f"killed by signal {-code}" if code is not None and code < 0 else f"exited with code {code}")
        )
        data: dict[str, Any] = {"exit_code": code, "detail": detail}
        end = self._end.end(code) if self._end is not None else None
        if end is not None:  # what the agent itself said about its end (endreason.py)
            detail = data["detail"] = end.detail(self.file.adapter, code)
            data["end_reason"], own = end.reason, own or end.failed
        ctx.publish(ev.AGENT_EXITED, data)
        return AgentOutcome(code, detail, own_failure=own)

    async def _run_sandboxed(self, ctx: AgentContext) -> AgentOutcome:
        senv: dict[str, str] = ctx.sandbox_env
        argv = self.command_argv(
            workspace=senv["GAUNTLET_WORKSPACE"],
            briefing=senv["GAUNTLET_BRIEFING"],
            socket=senv["GAUNTLET_SOCKET"],
            host=False,
        )
        wrap = getattr(ctx, "wrap_sandbox_argv", None)
        if wrap is not None:
            argv = wrap(argv)  # the model gateway's relay in front of the agent
        ctx.publish(ev.AGENT_STARTED, {"detail": f"{self.file.name} in the sandbox"})
        if ctx.sandbox is None:  # needs_sandbox: the attempt made one before the agent ran
            raise RuntimeError("sandboxed agent without an agent sandbox")
        # No timeout of its own (issue 34): the attempt's clock ends the agent (grace end, a
        # hang, a usage limit) by cancelling this run, which kills the process tree. A timeout
        # computed here, in real seconds, would not follow a clock that slows while judging.
        res = await ctx.sandbox.exec(
            argv, env=senv, timeout=NO_TIMEOUT, on_output=lambda stream, line: self._emit_output(ctx, stream, line)
        )
        if res.timed_out:  # not asked for: the backend stopped it
            self._last_steps(ctx)
            ctx.publish(ev.AGENT_EXITED, {"exit_code": None, "detail": "stopped by its sandbox"})
            return AgentOutcome(None, "stopped by its sandbox")
        return self._exited(ctx, res.exit_code)


def kill_leftover(pid: int, attempt: str) -> bool:
    """Kill a host agent process group left by a crashed arena, if ``pid`` is still
    that attempt's agent (checked through its environment). True if killed."""
    try:
        env = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    except OSError:
        return False
    if f"GAUNTLET_ATTEMPT={attempt}".encode() not in env:
        return False
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
        return True
    return False


def describe(agent: object) -> dict[str, Any]:
    f = getattr(agent, "file", None)
    if not f:
        return {}
    out = {"name": f.name, "where": f.where}
    if f.adapter != "command":
        out["adapter"] = f.adapter
    if f.model:
        out["model"] = f.model
    return out
