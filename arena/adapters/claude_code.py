"""Claude Code (the ``claude`` CLI bundled in PyPI's ``claude-agent-sdk`` wheel) run with
``claude -p``, unattended (launchers/gauntlet-claude).

It speaks the Anthropic Messages API (``POST /v1/messages?beta=true``, streamed) to
``ANTHROPIC_BASE_URL`` (the gateway) with ``ANTHROPIC_API_KEY`` (the attempt's token).
As root it refuses ``--dangerously-skip-permissions``, so the workspace tools are allowed
by name (``--allowedTools``). Its ``stream-json`` events are the agent's output; the
commands its Bash tool runs are observed like any agent's. Only ``anthropic/...`` models.
The Gauntlet MCP server is its one MCP server (``--mcp-config``, ``mcp``): it submits
through ``mcp__gauntlet__submit`` or ``gauntlet-agent submit``, as it chooses.
"""

from __future__ import annotations

from arena.adapters.base import Adapter, check_model
from arena.errors import UsageError


class ClaudeCode(Adapter):
    def command(self, model: str, task_file: str, workspace: str, root: str | None = None) -> list[str]:
        provider, name = check_model(model)
        if provider != "anthropic":
            raise UsageError(
                f"--model {model!r}: the claude-code adapter speaks the Anthropic API: use anthropic/MODEL"
            )
        return [f"{root or self.root}/bin/{self.cli}", task_file, workspace, name]


ADAPTER = ClaudeCode(
    name="claude-code",
    package="claude-agent-sdk",
    version="0.2.189",
    launchers=("gauntlet-claude",),
    cli="gauntlet-claude",
    import_name="claude_agent_sdk",
    mcp=True,
    api="Anthropic Messages, streamed (anthropic/... only)",
    providers=("anthropic",),
    startup_limit_s=120.0,  # docs/gateway.md: start-up limits
    extra_env={
        "DISABLE_TELEMETRY": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "BASH_DEFAULT_TIMEOUT_MS": "900000",  # a submit blocks until judged
        "BASH_MAX_TIMEOUT_MS": "900000",
        "MCP_TIMEOUT": "60000",  # the MCP server's start (Python importing the SDK)
        "MCP_TOOL_TIMEOUT": "900000",  # an MCP submit blocks until judged
        "ENABLE_TOOL_SEARCH": "false",  # the MCP tools offered to the model, not deferred behind ToolSearch
    },
)
