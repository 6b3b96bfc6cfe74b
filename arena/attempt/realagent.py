"""What an attempt adds for real agents (CONTRACT §8): the model gateway's grant, the
adapter's sandbox needs, observed telemetry, and the host agent's hidden paths.

``AgentSupport.setup()`` runs before the attempt's clock starts (an agent image or tree
may be built then); ``mounts``/``image``/``sandbox_env``/``host_env`` feed the sandbox and
the agent's environment; ``observing()`` wraps the agent's run; ``close()`` ends the
gateway grant and returns the usage. Scripted agents declare their own telemetry
(``declared: true``) and are not observed.
"""

from __future__ import annotations

import contextlib
import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, AsyncIterator, Protocol

from arena import events as ev
from arena import paths
from arena.sandbox.base import Mount

from arena.attempt.host import AttemptHost

if TYPE_CHECKING:
    from arena.agents.base import Agent
    from arena.attempt.phases import PhaseState
    from arena.gateway.limits import UsageLimits
    from arena.gateway.server import Grant
    from arena.observe import SandboxObservation

log = logging.getLogger(__name__)


class _Host(AttemptHost, Protocol):
    phases: PhaseState


class AgentSupport:
    def __init__(self, attempt: _Host) -> None:
        self.a = attempt
        self.grant: Grant | None = None
        self.mounts: list[Mount] = []
        self.image: str | None = None
        self.sandbox_env: dict[str, str] = {}
        self.host_env: dict[str, str] = {}
        self.obs: SandboxObservation | None = None
        self.usage: dict[str, Any] | None = None
        self._reached: dict[str, Any] | None = None  # the limit.reached event's data
        self._refused = False  # a call was refused with 429
        self._in_flight = 0  # model calls under way (each holds the hang watchdog)
        self._closed = False

    @property
    def agent(self) -> Agent:
        return self.a.agent

    @property
    def real_time_idle(self) -> bool:
        """A real agent (an agent file's process): its idle limit counts real seconds."""
        return getattr(self.agent, "file", None) is not None

    @property
    def observed(self) -> bool:
        return bool(getattr(self.agent, "observed", False))

    def model(self) -> str | None:
        f = getattr(self.agent, "file", None)
        return getattr(self.agent, "model", None) or (f.model if f is not None else None)

    async def setup(self) -> None:
        a = self.a
        prepare = getattr(self.agent, "prepare", None)
        if prepare is not None:
            backend = getattr(a.shared.backend, "name", "local")
            needs = await prepare(backend, a.agent_dir, a.phases.briefing_text(), log.info, workspace_host=a.workspace)
            self.mounts += needs.mounts
            self.image = needs.image
            self.sandbox_env.update(needs.env)
            self.host_env.update(needs.env)
        if getattr(self.agent, "wants_mcp", False):
            await self._mcp()
        model = self.model()
        if model:
            await self._grant(model)
        if self.observed and self.agent.needs_sandbox:
            from arena.observe import SandboxObservation  # noqa: PLC0415

            self.obs = SandboxObservation(state_dir=a.agent_dir)
            self.obs.on_note = lambda text: a.publish(ev.AGENT_OUTPUT, {"stream": "arena", "text": text})
            self.mounts += self.obs.mounts()
            self.sandbox_env = self.obs.merge_env(self.sandbox_env)

    async def _mcp(self) -> None:
        """The MCP tree (the ``mcp`` SDK) where ``gauntlet-agent mcp`` finds it: mounted in the
        sandbox, bound at ``hostrun.VIEW_MCP`` for an isolated host agent, else its host path."""
        import asyncio  # noqa: PLC0415

        from arena.adapters import ensure_mcp_tree  # noqa: PLC0415
        from arena.adapters.mcp_tree import MCP_ENV, MCP_LIB, MCP_ROOT  # noqa: PLC0415
        from arena.agents.hostrun import VIEW_MCP, view  # noqa: PLC0415

        a = self.a
        tree = await asyncio.to_thread(ensure_mcp_tree, log.info)
        if self.agent.needs_sandbox:
            self.mounts.append(Mount(tree, MCP_ROOT, True))
            self.sandbox_env[MCP_ENV] = MCP_LIB
        elif view(a.workspace, a.agent_dir).isolated:
            getattr(self.agent, "extra_binds").append((tree, VIEW_MCP))
            self.host_env[MCP_ENV] = f"{VIEW_MCP}/lib"
        else:
            self.host_env[MCP_ENV] = str(tree / "lib")

    def limits(self) -> UsageLimits:
        """The agent's usage limits (its own, else its file's ``limits:``)."""
        from arena.gateway.limits import UsageLimits  # noqa: PLC0415

        f = getattr(self.agent, "file", None)
        return getattr(self.agent, "limits", None) or UsageLimits.parse(
            getattr(f, "limits", None) or None, f"agent {self.a.agent.spec}: limits"
        )

    async def _grant(self, model: str) -> None:
        from arena.gateway import RELAY_PATH, RELAY_PORT, SANDBOX_RELAY_DIR, SANDBOX_SOCKET_DIR  # noqa: PLC0415

        a = self.a
        gw = await a.shared.gateway()
        host = not self.agent.needs_sandbox  # only a host agent gets a TCP listener
        self.grant = gw.register(a.id, model=model, limits=self.limits(), emit=self._on_gateway, tcp=host)
        self.mounts += [
            Mount(self.grant.socket_dir, SANDBOX_SOCKET_DIR, True),
            Mount(Path(RELAY_PATH).parent, SANDBOX_RELAY_DIR, True),
        ]
        self.sandbox_env.update(self.grant.sandbox_env(RELAY_PORT))
        if host:
            self.host_env.update(self.grant.host_env())

    def allow_uid(self, uid: int) -> None:
        """The uid the agent runs as: the gateway's socket becomes its alone."""
        allow = getattr(self.a.shared._gateway, "allow_uid", None) if self.grant is not None else None
        if allow is not None:
            allow(self.a.id, uid)

    def _on_gateway(self, kind: str, data: dict[str, Any]) -> None:
        from arena.gateway.inflight import CALL_BEGIN, CALL_END  # noqa: PLC0415

        a = self.a
        if kind == CALL_BEGIN:  # an agent waiting on its model is not hung
            self._in_flight += 1
            a.hold_begin()
            a.liveness.seen(ev.MODEL_CALL)  # its first model call ends its start-up
            return
        if kind == CALL_END:
            if self._in_flight > 0:
                self._in_flight -= 1
                a.hold_end()
            return
        if self._closed:  # nothing is recorded for the attempt once its grant is closed
            log.warning("gateway: %s for attempt %s after its end, dropped", kind, a.id)
            return
        if a.over and kind not in (ev.MODEL_CALL, ev.MODEL_TOOL_CALL):
            return
        a.publish(kind, data)
        if kind == ev.LIMIT_REACHED:
            self._reached = data
        elif kind == ev.MODEL_CALL and data.get("status") == 429:
            self._refused = True
        if self._reached is not None and self._refused:
            # the first call refused past a limit ends the attempt as at the cutoff
            r = self._reached
            a.finish("finished", f"usage limit reached: {r.get('limit')} ({r.get('used')} of {r.get('allowed')})")
        if kind == ev.INFRA_ERROR:
            a.finish("infra_error", f"gateway: {data.get('detail', 'upstream unreachable')}")

    def wrap_sandbox_argv(self, argv: list[str]) -> list[str]:
        if self.grant is None:
            return argv
        from arena.gateway import wrap_agent_argv  # noqa: PLC0415

        return wrap_agent_argv(argv)

    def host_hidden(self) -> list[Path]:
        """What a host agent must not see: the package, the store and its data directory,
        every attempt's agent directory (sockets) and the gateway's sockets."""
        a = self.a
        store = Path(a.shared.store_path).resolve()
        return [Path(a.challenge.root).resolve(), store, paths.data_dir(store), paths.sockets_root(store)]

    def started_data(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        f = getattr(self.agent, "file", None)
        if f is not None and f.where == "host":
            out["unsandboxed"] = True
        if f is not None:  # real seconds to its first sign of life (arena/attempt/liveness.py)
            out["startup_limit_s"] = f.startup_limit
        model = self.model()
        if model:
            out["model"] = model
            lim = getattr(self.agent, "limits", None)
            if lim is not None:
                out["limits"] = {k: v for k, v in vars(lim).items() if v is not None}
        if f is not None and getattr(f, "adapter", "command") != "command":
            out["adapter"] = f.adapter
        return out

    @contextlib.asynccontextmanager
    async def observing(self) -> AsyncIterator[None]:
        """Observed telemetry around a sandboxed agent's run (a no-op otherwise)."""
        a = self.a
        if self.obs is None or a.sandbox is None:
            yield
            return
        async with self.obs.observe(a.sandbox, a.workspace, self._emit_observed):
            yield

    def observe_host(self, pid: int) -> contextlib.AbstractAsyncContextManager[SandboxObservation]:
        """Observed telemetry of a host agent: its process tree from ``pid``."""
        from arena.observe import SandboxObservation  # noqa: PLC0415
        from arena.sandbox.base import ObserveTarget  # noqa: PLC0415

        own = getattr(self.a, "host_uid", None)  # the attempt's own (hostrun.reserve_uid); None: not isolated
        uid: int = os.geteuid() if own is None else own

        class _Host:  # what the observer asks of a sandbox
            id = f"host-{pid}"

            def observe_target(self) -> ObserveTarget:
                return ObserveTarget(root_pid=pid, uid=uid, backend="host")

        obs = SandboxObservation()
        obs.on_note = lambda text: self.a.publish(ev.AGENT_OUTPUT, {"stream": "arena", "text": text})
        return obs.observe(_Host(), self.a.workspace, self._emit_observed)

    def _emit_observed(self, kind: str, data: dict[str, Any]) -> None:
        if not self.a.over:
            self.a.publish(kind, data)

    async def close(self) -> None:
        if self.grant is None:
            return
        from arena.gateway import inflight  # noqa: PLC0415

        with contextlib.suppress(Exception):
            gw = await self.a.shared.gateway()
            # calls still under way end now, each recorded (cancelled, metered by the estimate)
            # before attempt.finished, never billed and stored after it
            await inflight.cancel(gw, self.a.id)
            await gw.unregister(self.a.id)
            self.usage = gw.usage(self.a.id).as_dict()
        self._closed = True
