"""The human agent: the operator. The attempt keeps an agent sandbox open for them
(``needs_sandbox``): the TUI opens an interactive shell inside it (``Sandbox.shell_argv``,
cwd ``/workspace``, the in-sandbox agent environment) and submits on a key through the
same protocol; headless, the attempt just waits for protocol calls (``gauntlet agent ...``
with ``GAUNTLET_SOCKET`` set) until time is up."""

from __future__ import annotations

import asyncio

from arena.agents.base import AgentContext, AgentOutcome


class HumanAgent:
    spec = "human"
    identity = "human"
    restartable = True  # a person can carry on after a restart
    needs_sandbox = True  # the person's shell runs with the challenge's limits
    observed = True  # the shell's programs and reads are observed like an agent's

    async def run(self, ctx: AgentContext) -> AgentOutcome:
        await asyncio.Event().wait()  # until the attempt ends it
        return AgentOutcome(detail="operator")  # pragma: no cover
