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
```

Relative paths (challenges, agent files) are relative to the plan file. Every error
names the plan file, the key and what was expected.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from arena.errors import UsageError

SCHEMA = "gauntlet.plan/v1"
TOP_KEYS = ("schema", "parallel", "time_scale", "sandbox", "cluster", "attempts")
ENTRY_KEYS = ("challenge", "agents", "repeat", "time_scale", "model")


@dataclass(frozen=True)
class PlannedAttempt:
    challenge: Path
    agent: str
    time_scale: float


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
    if name in adapter_names():  # a built-in adapter: NAME@PROVIDER/MODEL, or the entry's model
        chosen = own_model or model
        if not chosen:
            raise UsageError(
                f"{where}: key '{key}': adapter {name} needs a model: write "
                f"{name}@PROVIDER/MODEL or give the entry a 'model' key"
            )
        check_model(chosen, f"{where}: key '{key}'")
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
        for _ in range(repeat):
            out.extend(PlannedAttempt(Path(challenge), s, escale) for s in specs)
    return Plan(parallel, scale, sandbox, out, cluster.strip() if cluster else None)
