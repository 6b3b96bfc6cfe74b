"""OpenHands (PyPI ``openhands-sdk`` + ``openhands-tools`` 1.58.2): OpenHands' own agent
loop (``Agent`` + ``Conversation``, what the OpenHands CLI runs), headless, with its terminal
and file-editor tools (launchers/gauntlet-openhands, openhands_run.py).

Why these packages: the ``openhands`` CLI wheel is either interactive only (1.2.x, a
prompt_toolkit TUI with no task argument) or needs Python ==3.12 (1.3 to 1.16), which no
Debian release ships; ``openhands-ai`` is the full server (Docker runtime, web UI). The SDK
needs Python >= 3.12, so the tree carries Debian trixie's Python 3.13 (``runtime="trixie"``,
arena/adapters/trixie.py). LiteLLM inside speaks Chat Completions (streamed) to the gateway
(``OPENAI_BASE_URL``, the attempt's token in ``OPENAI_API_KEY``); no settings file is
written and the conversation is not persisted. Its terminal is the subprocess one (a bash
under a pty, no tmux); its commands are observed like any agent's; it submits with
``gauntlet-agent submit`` or through the Gauntlet MCP server (registered as its MCP server
``gauntlet``, ``mcp``), and ends with its ``finish`` tool. Only ``openai/...`` models.
"""

from __future__ import annotations

from arena.adapters.base import Adapter, check_model
from arena.errors import UsageError


class OpenHands(Adapter):
    def command(self, model: str, task_file: str, workspace: str, root: str | None = None) -> list[str]:
        provider, name = check_model(model)
        if provider != "openai":
            raise UsageError(
                f"--model {model!r}: the openhands adapter speaks Chat Completions (OpenAI-compatible): use openai/MODEL"
            )
        return [f"{root or self.root}/bin/{self.cli}", task_file, workspace, name]


ADAPTER = OpenHands(
    name="openhands",
    package="openhands-sdk",
    version="1.58.2",
    launchers=("gauntlet-openhands", "python3.13", "openhands_run.py"),
    cli="gauntlet-openhands",
    import_name="openhands.sdk",
    runtime="trixie",
    mcp=True,
    api="OpenAI Chat Completions, streamed, through LiteLLM (openai/... only)",
    providers=("openai",),
    startup_limit_s=240.0,  # docs/gateway.md: start-up limits
    extra_env={"OPENHANDS_SUPPRESS_BANNER": "1", "LOG_LEVEL": "WARNING"},
)
