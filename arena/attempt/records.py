"""What an attempt accepted and what a recovery restores: ``Accepted`` (one submission as
the desk holds it) and ``ResumeState`` (an attempt rebuilt from its stored events). The
lowest room of ``arena.attempt``: ``submit``, ``recover``, ``phases`` and ``core`` import
it, so no two of them import each other (issue 24)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from arena.judge.verdict.snapshot import Snapshot
    from arena.results import JudgeResult


@dataclass
class Accepted:
    number: int
    at: float
    hash: str
    snapshot: Snapshot | None  # None: re-opened after a crash and no longer stored
    counted: bool = True  # False once replaced (Sprint double-submit) or not judged
    result: JudgeResult | None = None
    score: float | None = None
    feedback: dict[str, Any] | None = None
    infra: bool = False
    held: dict[str, Any] | None = None  # a Sprint feedback document waiting out its window
    replacement: bool = False  # it replaced another (so nothing can replace it)
    phase: int = 1  # the Marathon phase open when it was received (phase-scoped budgets)

    @property
    def valid(self) -> bool:
        return self.counted and self.result is not None and not self.infra


@dataclass
class ResumeState:
    attempt: str
    started: dict[str, Any]
    elapsed_s: float
    last_seq: int
    received: int = 0
    accepted: list[Accepted] = field(default_factory=list)
    phase: int = 1
    answered_submits: int = 0  # submit calls that got a reply (feedback or refusal)
    agent_pids: list[int] = field(default_factory=list)
    runner_pid: int | None = None  # the process that ran it last
    finished: bool = False

    @property
    def scored_submission(self) -> int | None:
        valid = [s for s in self.accepted if s.valid]
        return valid[-1].number if valid else None
