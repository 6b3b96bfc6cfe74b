"""What ``attempt.started`` says of an attempt (docs/INTERFACES.md): the challenge and its
rules as they apply, the agent and its model, the clock's scale, the phases, the package's
facts (publish ties calibration attempts to them), where it runs and which heat it is in."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from arena.agents.base import identity_of
from arena.attempt import runner_lock
from arena.attempt.host import AttemptHost
from arena.challenge.content import package_facts

if TYPE_CHECKING:
    from arena.attempt.phases import PhaseState
    from arena.attempt.realagent import AgentSupport


class _Starting(AttemptHost, Protocol):
    """``core.Attempt`` as its start is told: the host plus what the start records."""

    time_scale: float
    ends_within_s: float | None
    run_id: str | None
    contestant: str | None
    phases: PhaseState
    support: AgentSupport

    @property
    def hang_limit_s(self) -> float: ...


def started_data(a: _Starting) -> dict[str, Any]:
    """The data of the attempt's ``attempt.started`` event."""
    m = a.manifest
    return {
        "challenge": m.id,
        "title": m.title,
        "agent": identity_of(a.agent),  # the agent file's name, adapter, model (issue 20)
        "format": m.format,
        "weight_class": m.weight_class,
        "time_limit_s": m.time_limit_s,
        "budget": m.iterations,
        "budget_scope": getattr(m, "budget", "global"),
        "grace_s": a.rules.grace_s,
        "time_scale": a.time_scale,
        **({"ends_within_s": a.ends_within_s} if a.ends_within_s is not None else {}),
        "sandbox": getattr(a.shared.backend, "name", None),
        "phases": a.phases.describe(),
        "deliverables": [
            {
                "name": d.name,
                "kind": d.kind,
                "weight": d.weight,
                **({"check": d.check} if getattr(d, "check", "") else {}),
            }
            for d in m.deliverables
        ],
        "category": m.category,
        "hang_limit_s": a.hang_limit_s,
        "challenge_path": str(Path(a.challenge.root).resolve()),
        **package_facts(Path(a.challenge.root)),  # issue 20: publish ties calibration attempts to it
        "agent_spec": a.agent.spec,
        "workspace": str(a.workspace),
        "runner_pid": runner_lock.held_pid(),
        **({"run": a.run_id, "heat": a.run_id} if a.run_id else {}),  # a heat is one run
        **({"contestant": a.contestant} if a.contestant else {}),  # a plan entry's name:
        **a.support.started_data(),
    }
