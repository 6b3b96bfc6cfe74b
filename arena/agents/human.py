"""The human agent: the operator. The TUI opens a shell in the workspace and submits
on a key through the same protocol; headless, the attempt just waits for protocol
calls (``gauntlet agent ...`` with ``GAUNTLET_SOCKET`` set) until time is up."""
from __future__ import annotations

import asyncio

from arena.agents.base import AgentContext, AgentOutcome


class HumanAgent:
    spec = "human"
    restartable = True  # a person can carry on after a restart
    needs_sandbox = False

    async def run(self, ctx: AgentContext) -> AgentOutcome:
        await asyncio.Event().wait()  # until the attempt ends it
        return AgentOutcome(detail="operator")  # pragma: no cover
