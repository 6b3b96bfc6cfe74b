"""A built-in adapter (CONTRACT §8) run as an agent: a real agent package from PyPI
(``arena/adapters``) started inside the sandbox with a model behind the gateway.

Before the clock starts (``prepare``) the adapter's tree (local backend: bind-mounted
read-only) or image (Docker: gauntlet-base plus the tree) is made ready, once per content
hash, and its task text (the briefing plus how to submit) is written to the agent
directory. The attempt adds the gateway's per-attempt URL and token to the environment and
the relay in front of the argv; everything else is a ``CommandAgent``.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from arena.adapters import build_agent_image, ensure_agent_tree, get_adapter
from arena.agents import hostrun
from arena.agents.command import AgentFile, CommandAgent
from arena.gateway.limits import UsageLimits
from arena.sandbox.base import Mount

TASK_FILE = "task.md"


@dataclass
class SandboxNeeds:
    """What an agent needs of the sandbox the attempt creates for it."""

    mounts: list[Mount] = field(default_factory=list)
    image: str | None = None  # None: the manifest's image
    env: dict[str, str] = field(default_factory=dict)


class AdapterAgent(CommandAgent):
    def __init__(self, spec: str, file: AgentFile) -> None:
        super().__init__(spec, file)
        self.adapter = get_adapter(file.adapter)
        self.wants_mcp = file.mcp or self.adapter.mcp  # claude-code and codex register the MCP server
        self.model: str = file.model or ""
        self.limits = UsageLimits.parse(file.limits, f"agent {file.name}: limits")
        self._tree: Path | None = None

    async def prepare(
        self, backend: str, agent_dir: Path, briefing: str, log: Callable[[str], None], *, workspace_host: Path
    ) -> SandboxNeeds:
        """Ready the tree or image (before the attempt's clock starts) and the task file."""
        workspace = "/workspace" if self.needs_sandbox else hostrun.view(workspace_host, agent_dir).workspace
        (agent_dir / TASK_FILE).write_text(self.adapter.task_text(briefing, workspace=workspace))
        needs = SandboxNeeds(env=self.adapter.env(self.model))
        # litellm builds an SSL context even for a plain-HTTP gateway; the local sandbox has no
        # /etc/ssl (Debian's certifi points there), so name the tree's own bundle.
        needs.env.setdefault("SSL_CERT_FILE", f"{self.adapter.root}/lib/certifi/cacert.pem")
        if self.needs_sandbox and backend == "docker":
            needs.image = await asyncio.to_thread(build_agent_image, self.adapter.name, False, log)
        else:
            self._tree = await asyncio.to_thread(ensure_agent_tree, self.adapter.name, log)
            if self.needs_sandbox:
                needs.mounts.append(Mount(self._tree, self.adapter.root, True))
        return needs

    def command_argv(self, *, workspace: str, briefing: str, socket: str, host: bool) -> list[str]:
        task = str(Path(briefing).parent / TASK_FILE)
        return self.adapter.command(self.model, task, workspace)

    def host_binds(self) -> list[tuple[Path, str]]:
        return [*([(self._tree, self.adapter.root)] if self._tree is not None else []), *self.extra_binds]
