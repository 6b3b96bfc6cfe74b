"""The MCP tree: the official ``mcp`` Python SDK and its wheels (``locks/mcp.txt``, every
wheel pinned with its hash), built like an agent tree (``arena.adapters.ensure_mcp_tree``)
and mounted read-only at ``/opt/gauntlet/agents/mcp`` for every agent that uses the
Gauntlet MCP server (``gauntlet-agent mcp``, arena/agents/gauntlet_mcp.py): Claude Code and
Codex (their adapters register the server) and agent files with ``mcp: true``.

One tree of its own rather than the SDK in each agent's tree: the agents' images and trees
stay as they are (no rebuild), a command agent in the challenge's image gets MCP by a mount,
and the tree is built once (cached by content hash, about 9 MB of wheels).
"""

from __future__ import annotations

from arena.adapters.base import Adapter

MCP_ENV = "GAUNTLET_MCP_LIB"  # where `gauntlet-agent mcp` finds the SDK (client.py's MCP_LIB by default)

MCP_TREE = Adapter(
    name="mcp",
    package="mcp",
    version="2.3.0",
    launchers=(),
    cli="",
    import_name="mcp",
)
MCP_ROOT = MCP_TREE.root  # /opt/gauntlet/agents/mcp
MCP_LIB = f"{MCP_ROOT}/lib"
# Built by ``arena.adapters.ensure_mcp_tree`` (this module imports nothing of build.py, which
# reads MCP_TREE: no circle).
