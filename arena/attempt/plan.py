"""Arena plans (``gauntlet arena PLAN.yaml``), schema ``gauntlet.plan/v1``:

```yaml
schema: gauntlet.plan/v1
parallel: 8                 # attempts running at once
time_scale: 60
sandbox: local              # docker | local (default: docker when the engine answers)
cluster: ray://head:10001   # optional: run the attempts on a Ray cluster (arena.cluster)
attempts:
  - challenge: path/to/package      # or the id of a bundled challenge
    agents: [scripted:naive, scripted:elite, my-agent.yaml]
    repeat: 2
  - challenge: path/to/package
    agents: [codex@openai/gpt-4.1-mini]
    name: Codex mini                # optional: the contestant's display name (one agent)
    time_scale: 1                   # an agent that calls a model runs at 1 (CONTRACT §11)
```

Relative paths (challenges, agent files) are relative to the plan file. Every error
names the plan file, the key and what was expected. Refused (``UsageError``, exit 2,
before anything is stored): a time scale other than 1 for an agent that calls a model, a
display name given to two different agents, an adapter given another provider's model,
and a heat over the machine's capacity (``check_capacity``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from arena.errors import UsageError

SCHEMA = "gauntlet.plan/v1"
TOP_KEYS = ("schema", "parallel", "time_scale", "sandbox", "cluster", "attempts")
ENTRY_KEYS = ("challenge", "agents", "repeat", "time_scale", "model", "name")
NAME_MAX = 40  # characters of a display name
RESERVE_MB = 1024  # memory kept for the arena itself (store, gateway, observer, TUI)


class NamedSpec(str):
    """An agent spec that carries its contestant's display name (a plan entry's ``name:``):
    ``Arena.attempt`` records it as ``contestant`` on ``attempt.started``. A plain ``str``
    everywhere else (jobs keep their ``(challenge, agent, time_scale)`` shape)."""

    contestant: str | None

    def __new__(cls, spec: str, contestant: str | None = None) -> "NamedSpec":
        out = super().__new__(cls, spec)
        out.contestant = contestant
        return out


@dataclass(frozen=True)
class PlannedAttempt:
    challenge: Path
    agent: str
    time_scale: float
    name: str | None = None  # the entry's display name (``name:``), recorded as "contestant"
    entry: str = ""  # where it came from, for messages: "attempts[2]"

    @property
    def spec(self) -> str:
        """The agent spec, carrying the display name for ``Arena.attempt``."""
        return NamedSpec(self.agent, self.name) if self.name else self.agent


@dataclass(frozen=True)
class Plan:
    parallel: int
    time_scale: float
    sandbox: str | None
    attempts: list[PlannedAttempt]
    cluster: str | None = None  # a Ray address (arena.cluster); None: run locally


def _num(where: str, key: str, v: object, *, integer: bool, lo: float) -> float:
    ok = isinstance(v, int) if integer else isinstance(v, (int, float))
    if isinstance(v, bool) or not ok or not isinstance(v, (int, float)) or v < lo:
        kind = "a whole number" if integer else "a number"
        raise UsageError(f"{where}: key '{key}': expected {kind} >= {lo:g}, got {v!r}")
    return v


def _agent(spec: object, base: Path, where: str, key: str, model: str | None = None) -> str:
    if not isinstance(spec, str) or not spec.strip():
        raise UsageError(f"{where}: key '{key}': expected an agent name (scripted:<name>, human, or an agent file)")
    spec = spec.strip()
    if spec.startswith("scripted:") or spec == "human":
        return spec
    from arena.agents.agent_file import adapter_names, check_model  # noqa: PLC0415

    name, _, own_model = spec.partition("@")
    if own_model and name not in adapter_names() and not (base / spec).is_file() and not Path(spec).is_file():
        import difflib  # noqa: PLC0415

        close = difflib.get_close_matches(name, adapter_names(), n=1)
        raise UsageError(
            f"{where}: key '{key}': no built-in adapter {name!r}{f' (did you mean {close[0]}?)' if close else ''}: "
            f"expected one of {', '.join(adapter_names())}"
        )
    if name in adapter_names():  # a built-in adapter: NAME@PROVIDER/MODEL, or the entry's model
        chosen = own_model or model
        if not chosen:
            raise UsageError(
                f"{where}: key '{key}': adapter {name} needs a model: write "
                f"{name}@PROVIDER/MODEL or give the entry a 'model' key"
            )
        check_model(chosen, f"{where}: key '{key}'")
        from arena.adapters import get_adapter  # noqa: PLC0415

        get_adapter(name).check_provider(chosen, f"{where}: key '{key}'")
        return f"{name}@{chosen}"
    p = Path(spec)
    p = p if p.is_absolute() else base / p
    if not p.is_file():
        raise UsageError(
            f"{where}: key '{key}': agent file {spec} not found: expected "
            "scripted:<name>, human, or the path of an agent file"
        )
    return str(p)


def load_plan(path: Path) -> Plan:
    from arena.challenge import resolve_challenge

    where = f"plan {path}"
    try:
        data = yaml.safe_load(Path(path).read_text())
    except OSError as exc:
        raise UsageError(f"{where}: cannot read it: {exc.strerror or exc}") from None
    except yaml.YAMLError as exc:
        raise UsageError(f"{where}: not valid YAML: {str(exc).splitlines()[0]}") from None
    if not isinstance(data, dict):
        raise UsageError(f"{where}: expected a mapping with keys {', '.join(TOP_KEYS)}")
    for k in data:
        if k not in TOP_KEYS and not str(k).startswith("x-"):
            raise UsageError(f"{where}: key '{k}': unknown key: expected one of {', '.join(TOP_KEYS)}")
    if data.get("schema") != SCHEMA:
        raise UsageError(f"{where}: key 'schema': expected {SCHEMA}, got {data.get('schema')!r}")
    parallel = int(_num(where, "parallel", data.get("parallel", 4), integer=True, lo=1))
    scale = float(_num(where, "time_scale", data.get("time_scale", 1), integer=False, lo=1e-9))
    if scale <= 0:
        raise UsageError(f"{where}: key 'time_scale': expected a number > 0")
    sandbox = data.get("sandbox")
    if sandbox not in (None, "docker", "local"):
        raise UsageError(f"{where}: key 'sandbox': expected docker or local, got {sandbox!r}")
    cluster = data.get("cluster")
    if cluster is not None and (not isinstance(cluster, str) or not cluster.strip()):
        raise UsageError(
            f"{where}: key 'cluster': expected a Ray address (ray://host:10001, host:6379 or auto), got {cluster!r}"
        )
    entries = data.get("attempts")
    if not isinstance(entries, list) or not entries:
        raise UsageError(f"{where}: key 'attempts': expected a non-empty list of {{challenge, agents, repeat}} entries")
    base = Path(path).resolve().parent
    out: list[PlannedAttempt] = []
    named: dict[str, tuple[str, str]] = {}  # display name -> (agent spec, entry key)
    for i, e in enumerate(entries):
        key = f"attempts[{i}]"
        if not isinstance(e, dict):
            raise UsageError(f"{where}: key '{key}': expected a mapping with challenge, agents, repeat")
        for k in e:
            if k not in ENTRY_KEYS and not str(k).startswith("x-"):
                raise UsageError(f"{where}: key '{key}.{k}': unknown key: expected one of {', '.join(ENTRY_KEYS)}")
        ref = e.get("challenge")
        if not isinstance(ref, str) or not ref.strip():
            raise UsageError(f"{where}: key '{key}.challenge': expected a package path or a bundled challenge id")
        candidate = Path(ref) if Path(ref).is_absolute() else base / ref
        try:
            challenge = resolve_challenge(str(candidate) if candidate.exists() else ref)
        except Exception as exc:  # noqa: BLE001 - any failure is a bad reference
            raise UsageError(f"{where}: key '{key}.challenge': {exc}") from None
        agents = e.get("agents")
        if isinstance(agents, str):
            agents = [agents]
        if not isinstance(agents, list) or not agents:
            raise UsageError(f"{where}: key '{key}.agents': expected a non-empty list of agent names")
        model = e.get("model")
        if model is not None and not isinstance(model, str):
            raise UsageError(f"{where}: key '{key}.model': expected PROVIDER/MODEL as a string")
        specs = [_agent(a, base, where, f"{key}.agents[{j}]", model) for j, a in enumerate(agents)]
        repeat = int(_num(where, f"{key}.repeat", e.get("repeat", 1), integer=True, lo=1))
        escale = float(_num(where, f"{key}.time_scale", e.get("time_scale", scale), integer=False, lo=1e-9))
        scale_key = f"key '{key}.time_scale'" if "time_scale" in e else "key 'time_scale'"
        for s in specs:
            _real_time(s, escale, f"{where}: {scale_key}", f"{key}.agents")
        display = _display_name(e.get("name"), specs, named, where, key)
        for _ in range(repeat):
            out.extend(PlannedAttempt(Path(challenge), s, escale, display, key) for s in specs)
    return Plan(parallel, scale, sandbox, out, cluster.strip() if cluster else None)


def _real_time(spec: str, scale: float, where: str, key: str) -> None:
    from arena.agents.agent_file import require_real_time  # noqa: PLC0415

    try:
        require_real_time(spec, scale, "time_scale")
    except UsageError as exc:
        raise UsageError(f"{where} ({key}): {exc}") from None


def _display_name(v: object, specs: list[str], named: dict[str, tuple[str, str]], where: str, key: str) -> str | None:
    """An entry's ``name:``: a contestant's display name, one agent's; the same name may
    name that agent again (another challenge), never another agent."""
    if v is None:
        return None
    if not isinstance(v, str) or not v.strip() or len(v.strip()) > NAME_MAX or not v.strip().isprintable():
        raise UsageError(
            f"{where}: key '{key}.name': expected a display name (printable text, 1 to {NAME_MAX} characters), got {v!r}"
        )
    name = v.strip()
    if len(specs) != 1:
        raise UsageError(
            f"{where}: key '{key}.name': a display name names one contestant, and this entry has "
            f"{len(specs)} agents: give the entry one agent, or split it into one entry per agent"
        )
    seen = named.get(name.casefold())
    if seen is not None and seen[0] != specs[0]:
        raise UsageError(
            f"{where}: key '{key}.name': display name {name!r} is already {seen[1]}'s ({seen[0]}): "
            "expected a name of its own for each contestant"
        )
    named[name.casefold()] = (specs[0], key)
    return name


def machine_memory_mb() -> int:
    """The machine's memory (MemTotal of /proc/meminfo), MiB."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) // 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def check_capacity(path: Path, jobs: list[tuple[str, float]], parallel: int, total_mb: int | None = None) -> None:
    """A heat over the machine's capacity is refused (``UsageError`` naming the plan and
    its ``parallel``). ``jobs``: each attempt's (entry key, sandbox memory in MiB: its
    manifest's ``sandbox.memory`` plus the workspace and /tmp quotas charged with it).
    Capacity is memory: the ``parallel`` largest attempts running at once must fit in the
    machine's memory less ``RESERVE_MB`` for the arena itself. CPUs are shared, not
    reserved (a sandbox's ``cpus`` is a quota, and many on few cores run slower, not wrong)."""
    total = machine_memory_mb() if total_mb is None else total_mb
    if total <= 0 or not jobs:
        return
    at_once = sorted(jobs, key=lambda j: j[1], reverse=True)[: max(1, parallel)]
    need = sum(mb for _k, mb in at_once)
    room = total - RESERVE_MB
    if need > room:
        biggest = at_once[0]
        raise UsageError(
            f"plan {path}: key 'parallel': {len(at_once)} attempts at once need {need:.0f} MiB of sandbox memory "
            f"({biggest[0]} alone {biggest[1]:.0f} MiB), and this machine has {room} MiB for them "
            f"({total} MiB less {RESERVE_MB} for the arena): lower 'parallel' or the challenges' sandbox.memory"
        )
