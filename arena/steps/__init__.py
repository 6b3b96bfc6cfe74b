"""Steps: what an agent does, parsed by the arena from the agent's own output (CONTRACT
§11, docs/INTERFACES.md "Steps"): one ``agent.step`` event per step, ``{"step": "text" |
"command" | "edit" | "read" | "tool" | "error", "text": one line, "detail": optional}``.

One parser per adapter (``parser_for``), one parser object per attempt (they keep state
across lines: JSON events in pieces, a model turn over many lines). Steps describe what
the agent *says* it does; they are never evidence for judging (the observed
``command.run``, ``file.read``, ``file.changed`` events are). No Textual here.
"""

from __future__ import annotations

from typing import Callable

from arena.steps.aider import AiderParser
from arena.steps.base import DETAIL_CAP, KINDS, TEXT_CAP, Step, StepParser
from arena.steps.claude_code import ClaudeCodeParser
from arena.steps.codex import CodexParser
from arena.steps.mini_swe_agent import MiniSweAgentParser
from arena.steps.openhands import OpenHandsParser

PARSERS: dict[str, Callable[[], StepParser]] = {
    "claude-code": ClaudeCodeParser,
    "codex": CodexParser,
    "openhands": OpenHandsParser,
    "mini-swe-agent": MiniSweAgentParser,
    "aider": AiderParser,
}


def parser_for(adapter: str | None) -> StepParser:
    """A new parser for one attempt of an agent of this adapter; agent files (adapter
    ``command``) and unknown adapters get the plain parser (a text step per line)."""
    return PARSERS.get(adapter or "", StepParser)()


__all__ = ["DETAIL_CAP", "KINDS", "PARSERS", "TEXT_CAP", "Step", "StepParser", "parser_for"]
