"""What a built-in adapter is: how to start a real agent package non-interactively.

An adapter names a PyPI package pinned by a lock file (``locks/<name>.txt``, every wheel
with its hash), the launchers put in the agent tree's ``bin/``, and three functions the
attempt runner calls: ``command(model, task_file, workspace)`` (argv run in the sandbox),
``env(model)`` (non-secret settings only: the gateway adds ``OPENAI_BASE_URL`` /
``OPENAI_API_KEY`` and the Anthropic pair) and ``task_text(briefing)`` (what the agent is
asked to do, including how to submit and read feedback through ``gauntlet-agent``, or,
for an adapter with ``mcp`` (the agent speaks MCP and its launcher registers the Gauntlet
MCP server, ``gauntlet-agent mcp``), through that server's tools).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from arena.errors import UsageError

AGENTS_ROOT = "/opt/gauntlet/agents"  # where trees are mounted, in both backends
PROVIDERS = ("openai", "anthropic")
LOCK_DIR = Path(__file__).parent / "locks"
LAUNCHER_DIR = Path(__file__).parent / "launchers"

# Settings every adapter gets: nothing phones home, opens a browser, prompts for git
# credentials, pages output, or writes config/cache outside /tmp (HOME is /tmp).
COMMON_ENV = {
    "HOME": "/tmp",
    "XDG_CONFIG_HOME": "/tmp/.config",
    "XDG_CACHE_HOME": "/tmp/.cache",
    "XDG_DATA_HOME": "/tmp/.local/share",
    "TERM": "dumb",
    "NO_COLOR": "1",
    "PAGER": "cat",
    "GIT_PAGER": "cat",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_EDITOR": "true",
    "EDITOR": "true",
    "BROWSER": "true",
    "PYTHONUNBUFFERED": "1",
    "PYTHONDONTWRITEBYTECODE": "1",
    "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    "PIP_NO_INPUT": "1",
    "HF_HUB_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "TOKENIZERS_PARALLELISM": "false",
    "DO_NOT_TRACK": "1",
    # litellm: use the cost map bundled in the wheel, never fetch it from GitHub at import.
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "LITELLM_TELEMETRY": "False",
}

TASK_TEMPLATE = """\
{briefing}

---------------------------------------------------------------------------
How this challenge works (Gauntlet)

You work in {workspace}, inside a sandbox with no network. You are judged on what you
submit, by tests you cannot see, so submit your work and read the feedback:

- `gauntlet-agent submit` submits the current state of the workspace. It blocks until
  the submission is judged and prints the feedback document as YAML: `tests` (total,
  passed, failed, failures with names and messages), `hidden` and `adversarial` counts,
  `build`, `lint`, `notices`. Submissions are limited (see the briefing); submitting
  again within a short cooldown counts as one.
- `gauntlet-agent feedback [N]` prints the feedback of submission N again (default: the
  last one).
- `gauntlet-agent status` prints the time left and the submissions used and left.

Work in a loop: read the code, run the visible tests, fix, submit, read the feedback,
and fix what it reports. Stop when the feedback shows every test passing, or when the
status says no submissions or no time are left.
"""

MCP_HOW = """\
- The `gauntlet` MCP server's tools: `submit` submits the current state of the workspace
  and returns its feedback once judged; `feedback` (optional `n`), `status`, `briefing`,
  `message`. A refusal (no submissions left, time up) is a tool error with its reason.
  The shell commands below do the same.
"""


def check_model(model: str) -> tuple[str, str]:
    """``<provider>/<model>`` split; a UsageError naming the argument otherwise."""
    provider, sep, name = (model or "").partition("/")
    if not sep or not name or provider not in PROVIDERS:
        raise UsageError(
            f"--model {model!r}: expected PROVIDER/MODEL with PROVIDER one of "
            f"{', '.join(PROVIDERS)} (for example openai/gpt-4.1-mini)"
        )
    return provider, name


@dataclass(frozen=True)
class Adapter:
    name: str  # the built-in adapter name (--agent NAME)
    package: str  # the PyPI distribution
    version: str  # its pinned version (also in the lock file)
    launchers: tuple[str, ...]  # files of launchers/ copied into the tree's bin/
    cli: str  # which launcher runs the agent
    import_name: str  # the top-level module (for checks)
    extra_env: dict[str, str] = field(default_factory=dict)
    binaries: tuple[str, ...] = ()  # programs a wheel installs in bin/ that the tree keeps (codex)
    mcp: bool = False  # its launcher registers the Gauntlet MCP server (the MCP tree is mounted)
    runtime: str = ""  # "trixie": the tree carries its own Python 3.13 (adapters/trixie.py)
    # the provider APIs it speaks, as `gauntlet agents` shows them
    api: str = "OpenAI Chat Completions (openai/...), Anthropic Messages (anthropic/...), through LiteLLM"
    providers: tuple[str, ...] = PROVIDERS  # the model providers it can call (check_provider)
    # real seconds it may take from its start to its first sign of life (a model call, an
    # output line, an observed command or read) before it is ended as hung; docs/gateway.md
    startup_limit_s: float = 120.0

    @property
    def root(self) -> str:
        """The tree's path inside a sandbox."""
        return f"{AGENTS_ROOT}/{self.name}"

    def lock_path(self) -> Path:
        return LOCK_DIR / f"{self.name}.txt"

    def lock_text(self) -> str:
        return self.lock_path().read_text()

    def pins(self) -> dict[str, str]:
        """``{distribution: version}`` from the lock file."""
        out = {}
        for line in self.lock_text().splitlines():
            line = line.split("#", 1)[0].strip()
            if line:
                spec = line.split()[0]
                name, _, ver = spec.partition("==")
                out[name] = ver
        return out

    def check_provider(self, model: str, where: str = "--model") -> None:
        """A ``UsageError`` naming ``where`` when this adapter cannot call ``model``'s provider."""
        provider, _ = check_model(model)
        if provider not in self.providers:
            only = " or ".join(f"{p}/MODEL" for p in self.providers)
            raise UsageError(f"{where}: {model!r}: the {self.name} adapter speaks {self.api}: use {only}")

    def env(self, model: str) -> dict[str, str]:
        check_model(model)
        return {**COMMON_ENV, **self.extra_env}

    def task_text(self, briefing: str, workspace: str = "/workspace") -> str:
        text = TASK_TEMPLATE.format(briefing=briefing.rstrip(), workspace=workspace)
        if self.mcp:
            head, sep, rest = text.partition("- `gauntlet-agent submit`")
            text = head + MCP_HOW + sep + rest
        return text

    def command(self, model: str, task_file: str, workspace: str, root: str | None = None) -> list[str]:
        raise NotImplementedError
