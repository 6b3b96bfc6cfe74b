"""``make_agent(spec, challenge)``: the runner for an agent name (scripted:NAME, human, a
built-in adapter, an agent file). The one place that knows every kind of runner, so that
``base`` (the protocol they share) imports none of them."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from arena.errors import UsageError

if TYPE_CHECKING:
    from arena.agents.base import Agent
    from arena.challenge import Challenge


def make_agent(spec: str, challenge: Challenge, *, resume_after_submissions: int = 0) -> Agent:
    """The runner for an agent name. Bad names raise ``UsageError`` naming the problem."""
    from arena.agents.adapter import AdapterAgent  # noqa: PLC0415 — each kind only when asked for
    from arena.agents.agent_file import adapter_names, from_spec
    from arena.agents.command import CommandAgent, load_agent_file
    from arena.agents.human import HumanAgent
    from arena.agents.scripted import ScriptedAgentRunner

    spec = spec.strip()
    if spec.startswith("scripted:"):
        name = spec.split(":", 1)[1]
        if not name:
            raise UsageError("--agent scripted:NAME: expected a scripted agent name after 'scripted:'")
        try:
            script = challenge.scripted_agent(name)
        except Exception as exc:  # ChallengeError, KeyError, FileNotFoundError ...
            raise UsageError(f"--agent {spec}: {_one_line(exc)}") from None
        return ScriptedAgentRunner(spec, script, challenge.root, skip_submissions=resume_after_submissions)
    if spec == "human":
        return HumanAgent()
    adapter_file = from_spec(spec)  # NAME@PROVIDER/MODEL of a built-in adapter
    if adapter_file is not None:
        return AdapterAgent(spec, adapter_file)
    path = Path(spec)
    if not path.exists():
        raise UsageError(
            f"--agent {spec}: expected scripted:<name>, human, a built-in adapter "
            f"({', '.join(adapter_names())}, with --model), or the path of an agent file (no such file)"
        )
    file = load_agent_file(path)
    return AdapterAgent(spec, file) if file.adapter != "command" else CommandAgent(spec, file)


def _one_line(exc: BaseException) -> str:
    findings = getattr(exc, "findings", None)
    if findings:
        return "; ".join(getattr(f, "detail", str(f)) for f in findings)
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


__all__ = ["make_agent"]
