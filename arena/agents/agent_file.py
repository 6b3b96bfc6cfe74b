"""Agent files (CONTRACT §3, §8): a command, or a built-in adapter with a model and limits.

```yaml
name: my-agent
command: ["my-agent", "--task", "{briefing}"]   # {workspace} {briefing} {socket} expand
where: host                                        # host | sandbox
mcp: true                                          # optional: the Gauntlet MCP server's SDK is provided
```

```yaml
name: mini-swe-agent-4.1
adapter: mini-swe-agent          # built-in adapters: mini-swe-agent | aider; default: command
model: openai/gpt-4.1-mini       # <provider>/<model>
where: sandbox                   # the default for adapters
limits: {tokens: 400000, calls: 150, cost_usd: 5.0}
startup_limit_s: 180             # optional: real seconds to its first sign of life (docs/gateway.md)
```

``mcp: true`` makes ``gauntlet-agent mcp`` (the Gauntlet MCP server, stdio: tools
``status``, ``briefing``, ``submit``, ``feedback``, ``message``) startable by the agent:
the MCP tree (the ``mcp`` SDK) is mounted for it. The claude-code and codex adapters
register the server themselves.

An adapter name on the command line (``--agent mini-swe-agent --model openai/x``) is the
same file without the file: its spec is ``NAME@PROVIDER/MODEL`` (so a plan can name it as
``mini-swe-agent@openai/gpt-4.1-mini``, and each model is a contestant of its own).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import yaml

from arena.errors import UsageError

KEYS = ("name", "command", "where", "timeout", "adapter", "model", "limits", "mcp", "startup_limit_s")
DEFAULT_STARTUP_LIMIT_S = 120.0  # an agent file's start-up limit when neither it nor its adapter sets one


@dataclass(frozen=True)
class AgentFile:
    name: str
    command: list[str]
    where: str  # host | sandbox
    adapter: str = "command"  # command | a built-in adapter name
    model: str | None = None  # <provider>/<model>
    limits: dict[str, Any] = field(default_factory=dict)  # raw; parsed by the gateway
    mcp: bool = False  # the agent may start the Gauntlet MCP server (`gauntlet-agent mcp`)
    startup_limit_s: float | None = None  # None: its adapter's, else DEFAULT_STARTUP_LIMIT_S

    @property
    def startup_limit(self) -> float:
        """Real seconds from its start to its first sign of life (docs/gateway.md)."""
        if self.startup_limit_s is not None:
            return self.startup_limit_s
        if self.adapter != "command":
            from arena.adapters import get_adapter  # noqa: PLC0415

            return get_adapter(self.adapter).startup_limit_s
        return DEFAULT_STARTUP_LIMIT_S

    @property
    def identity(self) -> str:
        """Who this agent is (issue 20): its ``name``, adapter and model, never the file's
        path, so a copy of the file is the same agent (cooldown, leaderboard)."""
        return identity_label(self.name, self.adapter, self.model)


def identity_label(name: str, adapter: str = "command", model: str | None = None) -> str:
    """``name`` alone for a command agent without a model; otherwise ``name (adapter, model)``
    (a built-in adapter named on the command line is already ``ADAPTER@MODEL``: kept as is)."""
    parts = [p for p in (adapter if adapter != "command" else "", model or "") if p]
    if not parts or name == f"{adapter}@{model}":
        return name
    return f"{name} ({', '.join(parts)})"


def agent_identity(spec: str) -> str:
    """The identity of the agent named ``spec`` on the command line or in a plan: scripted
    agents, ``human`` and adapter specs are their own identity; an agent file's is read from
    the file (a bad file raises ``UsageError`` naming its key, as running it would)."""
    spec = spec.strip()
    if spec.startswith("scripted:") or spec == "human":
        return spec
    adapter_file = from_spec(spec)
    if adapter_file is not None:
        return adapter_file.identity
    path = Path(spec)
    return load_agent_file(path).identity if path.is_file() else spec


def model_of(spec: str) -> str | None:
    """The model an agent named ``spec`` calls (a built-in adapter's, an agent file's
    ``model:``), None for scripted agents, ``human`` and command agents without a model.
    A bad spec raises ``UsageError`` as running it would."""
    spec = spec.strip()
    if spec.startswith("scripted:") or spec == "human":
        return None
    adapter_file = from_spec(spec)
    if adapter_file is not None:
        return adapter_file.model
    path = Path(spec)
    return load_agent_file(path).model if path.is_file() else None


def require_real_time(spec: str, scale: float, key: str) -> None:
    """CONTRACT §11: an agent that calls a model runs at time scale 1 (model latency is
    real time: a sped-up clock charges every second of it ``scale`` times). ``key`` names
    where the scale came from (``--time-scale``, a plan's ``time_scale``)."""
    if scale == 1:
        return
    model = model_of(spec)
    if model is not None:
        raise UsageError(
            f"{key} {scale:g}: agent {spec} calls a model ({model}) and runs at time scale 1 only: "
            "its model's latency is real time, so a sped-up clock would charge every second of it "
            f"{scale:g} times; use a time scale of 1 (scripted agents may keep a sped-up clock)"
        )


def adapter_names() -> list[str]:
    from arena.adapters import names  # noqa: PLC0415

    return names()


def check_model(model: str, where: str) -> str:
    from arena.adapters import check_model as check  # noqa: PLC0415

    try:
        check(model)
    except UsageError:
        raise UsageError(
            f"{where}: expected PROVIDER/MODEL with PROVIDER one of openai, anthropic "
            f"(for example openai/gpt-4.1-mini), got {model!r}"
        ) from None
    return model


def check_limits(limits: Mapping[str, Any] | None, where: str) -> dict[str, Any]:
    from arena.gateway.limits import UsageLimits  # noqa: PLC0415

    UsageLimits.parse(limits, where)  # raises UsageError naming the key
    return dict(limits or {})


def from_spec(spec: str) -> AgentFile | None:
    """``NAME@PROVIDER/MODEL`` or a bare adapter ``NAME``: the adapter's agent file.
    None when ``spec`` is not an adapter name."""
    name, _, model = spec.partition("@")
    if name not in adapter_names():
        return None
    if not model:
        raise UsageError(
            f"--agent {name}: a built-in adapter needs a model: add --model "
            "PROVIDER/MODEL (for example --model openai/gpt-4.1-mini)"
        )
    check_model(model, f"--agent {spec}")
    _check_adapter_provider(name, model, f"--agent {spec}")
    return AgentFile(spec, [], "sandbox", adapter=name, model=model)


def _check_adapter_provider(adapter: str, model: str, where: str) -> None:
    from arena.adapters import get_adapter  # noqa: PLC0415

    get_adapter(adapter).check_provider(model, where)


def _startup_limit(v: object, where: str) -> float | None:
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not (0 < v < 86_400):
        raise UsageError(
            f"{where}: key 'startup_limit_s': expected a number of real seconds > 0 (and under a day), got {v!r}"
        )
    return float(v)


def load_agent_file(path: Path) -> AgentFile:
    where_ = f"agent file {path}"
    try:
        data = yaml.safe_load(Path(path).read_text())
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise UsageError(f"{where_}: cannot read it as YAML: {str(exc).splitlines()[0]}") from None
    if not isinstance(data, dict):
        raise UsageError(f"{where_}: expected a mapping with keys name, command, where")
    unknown = sorted(str(k) for k in data if k not in KEYS and not str(k).startswith("x-"))
    if unknown:
        raise UsageError(f"{where_}: unknown key {unknown[0]!r}: expected one of {', '.join(KEYS)}")
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise UsageError(f"{where_}: key 'name': expected a non-empty string")
    adapter = data.get("adapter", "command")
    choices = ["command", *adapter_names()]
    if adapter not in choices:
        raise UsageError(f"{where_}: key 'adapter': expected one of {', '.join(choices)}, got {adapter!r}")
    cmd = data.get("command")
    if adapter != "command":
        if cmd is not None:
            raise UsageError(f"{where_}: key 'command': not used with adapter {adapter!r}: remove it")
        cmd = []
    else:
        if isinstance(cmd, str):
            cmd = ["sh", "-c", cmd]
        if not isinstance(cmd, list) or not cmd or not all(isinstance(c, (str, int, float)) for c in cmd):
            raise UsageError(f"{where_}: key 'command': expected a non-empty list of strings")
    where = data.get("where", "host" if adapter == "command" else "sandbox")
    if where not in ("host", "sandbox"):
        raise UsageError(f"{where_}: key 'where': expected host or sandbox, got {where!r}")
    model = data.get("model")
    if model is not None and not isinstance(model, str):
        raise UsageError(f"{where_}: key 'model': expected PROVIDER/MODEL as a string")
    if adapter != "command" and not model:
        raise UsageError(f"{where_}: key 'model': adapter {adapter!r} needs a model (PROVIDER/MODEL)")
    if model:
        check_model(model, f"{where_}: key 'model'")
        if adapter != "command":
            _check_adapter_provider(adapter, model, f"{where_}: key 'model'")
    startup = _startup_limit(data.get("startup_limit_s"), where_)
    limits = check_limits(data.get("limits"), f"{where_}: key 'limits'")
    mcp = data.get("mcp", False)
    if not isinstance(mcp, bool):
        raise UsageError(f"{where_}: key 'mcp': expected true or false, got {mcp!r}")
    return AgentFile(
        name.strip(),
        [str(c) for c in cmd],
        where,
        adapter=adapter,
        model=model,
        limits=limits,
        mcp=mcp,
        startup_limit_s=startup,
    )
