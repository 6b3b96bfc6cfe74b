"""Claude Code (the ``claude`` CLI bundled in PyPI's ``claude-agent-sdk`` wheel) run with
``claude -p``, unattended (launchers/gauntlet-claude).

It speaks the Anthropic Messages API (``POST /v1/messages?beta=true``, streamed) to
``ANTHROPIC_BASE_URL`` (the gateway) with ``ANTHROPIC_API_KEY`` (the attempt's token).
As root it refuses ``--dangerously-skip-permissions``, so the workspace tools are allowed
by name (``--allowedTools``). Its ``stream-json`` events are the agent's output; the
commands its Bash tool runs are observed like any agent's. Only ``anthropic/...`` models.
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
    extra_env={
        "DISABLE_TELEMETRY": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "BASH_DEFAULT_TIMEOUT_MS": "900000",  # a submit blocks until judged
        "BASH_MAX_TIMEOUT_MS": "900000",
    },
)
