"""Built-in adapters for real agents from PyPI (CONTRACT §8): ``mini-swe-agent``, ``aider``, ``codex``, ``claude-code``, ``openhands``.

from arena.adapters import get_adapter, ensure_agent_tree, build_agent_image
ad = get_adapter("aider")
argv = ad.command("openai/gpt-4.1-mini", "/tmp/task.md", "/workspace")
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from arena.adapters.base import AGENTS_ROOT, Adapter, check_model
from arena.adapters.registry import get_adapter, names


def ensure_agent_tree(name: str, log: Callable[[str], None] = print) -> Path:
    """The agent's tree (and the MCP tree, for an adapter that registers the MCP server)."""
    from arena.adapters.build import ensure_agent_tree as f  # noqa: PLC0415

    tree = f(name, log)
    _mcp_tree_for(name, log)
    return tree


def build_agent_image(name: str, force: bool = False, log: Callable[[str], None] = print) -> str:
    """The agent's image (and the MCP tree, mounted beside it, for an adapter that uses it)."""
    from arena.adapters.build import build_agent_image as f  # noqa: PLC0415

    ref = f(name, force=force, log=log)
    _mcp_tree_for(name, log)
    return ref


def ensure_mcp_tree(log: Callable[[str], None] = print) -> Path:
    """The MCP tree on the host (arena/adapters/mcp_tree.py; built once per content hash)."""
    from arena.adapters.build import ensure_agent_tree as f  # noqa: PLC0415
    from arena.adapters.mcp_tree import MCP_TREE  # noqa: PLC0415

    return f(MCP_TREE.name, log)


def _mcp_tree_for(name: str, log: Callable[[str], None]) -> None:
    if get_adapter(name).mcp:
        ensure_mcp_tree(log)


__all__ = [
    "AGENTS_ROOT",
    "Adapter",
    "build_agent_image",
    "check_model",
    "ensure_agent_tree",
    "ensure_mcp_tree",
    "get_adapter",
    "names",
]
