"""What an agent runner needs from its attempt, and how agents are named.

An agent is named ``scripted:<name>``, ``human``, or a path to an agent file
(CONTRACT §3). ``make_agent`` turns the name into a runner. A runner's ``run(ctx)``
returns when the agent is done (script replayed, process exited); the attempt
cancels it at grace end, on a hang, or on an infrastructure fault.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, AsyncIterator, Protocol


if TYPE_CHECKING:
    from arena.sandbox.base import Sandbox


@dataclass
class AgentOutcome:
    exit_code: int | None = None  # None: no process (scripted, human) or killed
    detail: str = ""
    own_failure: bool = False  # crashed by itself (not infra, not stopped by us)


class AgentContext(Protocol):
    """The attempt, as seen by its agent runner."""

    @property
    def attempt_id(self) -> str: ...

    workspace: Path

    @property
    def env(self) -> dict[str, str]:
        """GAUNTLET_* and PATH for the agent's host processes."""
        ...

    @property
    def sandbox_env(self) -> dict[str, str]:
        """The same, as seen from inside the agent's sandbox."""
        ...

    @property
    def sandbox(self) -> Sandbox | None:
        """The agent's sandbox, or None (a host agent, scripted, human)."""
        ...

    def elapsed(self) -> float: ...

    def wall_seconds_left(self) -> float: ...

    def publish(self, kind: str, data: dict[str, Any]) -> object: ...

    async def request(self, req: dict[str, Any]) -> dict[str, Any]: ...

    async def sleep_until(self, attempt_t: float) -> None: ...

    def hold(self, io: bool = False) -> contextlib.AbstractAsyncContextManager[None]: ...

    async def scan(self) -> None: ...


class Agent(Protocol):
    spec: str  # as named on the command line
    identity: str  # who it is (an agent file's name, adapter and model): recorded as "agent"
    restartable: bool  # can be started again on resume
    needs_sandbox: bool

    async def run(self, ctx: AgentContext) -> AgentOutcome: ...


@contextlib.asynccontextmanager
async def nothing() -> AsyncIterator[None]:
    yield


def identity_of(agent: object) -> str:
    """The agent's identity (``Agent.identity``), its spec for runners that have none."""
    return str(getattr(agent, "identity", None) or getattr(agent, "spec", ""))
