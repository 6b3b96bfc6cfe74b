"""``AttemptHost``: the attempt as its parts see it (implemented by ``core.Attempt``).

The phase tracker, the submission desk, the protocol handler, the real-agent support and
the starter's judgement each take the attempt they serve; typed against this Protocol
(plus ``desk``/``phases`` where a part needs the others), none of them imports ``core``,
so ``core`` imports them and the package has no circle (issue 24)."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from arena import events as ev
    from arena.agents.base import Agent
    from arena.agents.bounds import Bounds
    from arena.attempt.records import ResumeState
    from arena.attempt.shared import Shared
    from arena.challenge import Challenge
    from arena.challenge.models import Manifest
    from arena.clock import AttemptClock
    from arena.formats import FormatRules
    from arena.sandbox.base import Sandbox


class SignsOfLife(Protocol):
    """What the parts tell the hang watchdog (``liveness.Liveness``, which core builds)."""

    def seen(self, kind: str, data: dict[str, Any] | None = None) -> None: ...


class AttemptHost(Protocol):
    id: str
    challenge: Challenge
    manifest: Manifest
    rules: FormatRules
    agent: Agent
    shared: Shared
    workspace: Path
    events: list[ev.Event]
    sandbox: Sandbox | None
    resume: ResumeState | None
    clock: AttemptClock
    bounds: Bounds
    io_busy: int
    ready: bool

    @property
    def liveness(self) -> SignsOfLife: ...

    @property
    def agent_dir(self) -> Path: ...

    @property
    def over(self) -> bool: ...

    def publish(self, kind: str, data: dict[str, Any] | None = None, t: float | None = None) -> ev.Event: ...

    def finish(self, status: str, reason: str) -> None: ...

    def infra(self, source: str, detail: str) -> None: ...

    def hold_begin(self, io: bool = False) -> None: ...

    def hold_end(self, io: bool = False) -> None: ...

    def hold(self, io: bool = False) -> contextlib.AbstractAsyncContextManager[None]: ...

    async def commit(self) -> bool: ...

    async def scan(self) -> None: ...

    async def sleep_until(self, attempt_t: float) -> None: ...
