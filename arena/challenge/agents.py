"""Scripted agents (CONTRACT §3): ``agents/<name>.yaml``, a list of steps run in order."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from arena.challenge.errors import ChallengeError, error
from arena.challenge.safety import inside, unsafe_reason
from arena.challenge.units import DURATION_EXPECTED, parse_duration
from arena.challenge.yamlio import load_mapping

StepKind = Literal["wait", "read", "overlay", "delete", "run", "submit", "message"]
STEP_KINDS: tuple[str, ...] = ("wait", "read", "overlay", "delete", "run", "submit", "message")


@dataclass(frozen=True)
class Step:
    kind: StepKind
    seconds: float = 0.0  # wait: attempt-clock seconds (scaled by --time-scale)
    path: str = ""  # read: workspace-relative; overlay: package-relative directory
    paths: tuple[str, ...] = ()  # delete: workspace-relative
    command: str = ""  # run
    text: str = ""  # message: a final message (allowed in grace)
    source: Path | None = None  # overlay: the absolute directory to copy from


@dataclass(frozen=True)
class ScriptedAgent:
    name: str
    file: Path
    steps: tuple[Step, ...]
    description: str = ""
    extensions: dict[str, Any] = field(default_factory=dict)


def _wait(value: object) -> float:
    if value in (0, "0", "0s") and not isinstance(value, bool):
        return 0.0
    return parse_duration(value)


def _step(raw: object, root: Path) -> Step:
    """One step; raises ValueError('...expected...') on a bad one."""
    if raw == "submit":
        return Step("submit")
    if isinstance(raw, str):
        raise ValueError(f"unknown step {raw!r}: expected one of {', '.join(STEP_KINDS)}")
    if not isinstance(raw, dict) or len(raw) != 1:
        raise ValueError(f"expected a mapping with one key, one of {', '.join(STEP_KINDS)}, or the word submit")
    ((kind, value),) = raw.items()
    if kind not in STEP_KINDS:
        raise ValueError(f"unknown step {kind!r}: expected one of {', '.join(STEP_KINDS)}")
    if kind == "wait":
        try:
            return Step("wait", seconds=_wait(value))
        except ValueError:
            raise ValueError(f"wait: expected {DURATION_EXPECTED}, got {value!r}") from None
    if kind == "submit":
        if value not in (None, True):
            raise ValueError("submit: expected no value (write '- submit')")
        return Step("submit")
    if kind in ("run", "message"):
        if not isinstance(value, str) or not value.strip():
            what = "a shell command" if kind == "run" else "the message text"
            raise ValueError(f"{kind}: expected {what} as a non-empty string")
        return Step("run", command=value) if kind == "run" else Step("message", text=value)
    if kind == "read":
        reason = unsafe_reason(value, "the workspace") if isinstance(value, str) else "expected a workspace path"
        if reason:
            raise ValueError(f"read: {value!r}: {reason}")
        return Step("read", path=value)
    if kind == "delete":
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, list) or not items:
            raise ValueError("delete: expected a workspace path or a list of them")
        for item in items:
            reason = unsafe_reason(item, "the workspace") if isinstance(item, str) else "expected a path string"
            if reason:
                raise ValueError(f"delete: {item!r}: {reason}")
        return Step("delete", paths=tuple(items))
    # overlay: a directory of the package whose files are copied over the workspace
    reason = unsafe_reason(value) if isinstance(value, str) else "expected a package directory"
    if reason:
        raise ValueError(f"overlay: {value!r}: {reason}")
    source = (root / value).resolve()
    if not inside(source, root):
        raise ValueError(f"overlay: {value!r}: resolves outside the package: expected a directory inside it")
    if not source.is_dir():
        raise ValueError(
            f"overlay: {value!r}: no such directory in the package: expected a directory of files to lay over the workspace"
        )
    return Step("overlay", path=value, source=source)


def load_agent(root: Path, file: Path) -> ScriptedAgent:
    """Parse ``file`` (inside ``root``/agents). Raises ChallengeError, one finding per bad step."""
    root = root.resolve()
    rel = file.relative_to(root).as_posix() if inside(file, root) else str(file)
    data = load_mapping(file, rel, "agents", "a mapping with a 'steps' list (CONTRACT §3)")
    ext = {k: v for k, v in data.items() if k.startswith("x-")}
    unknown = [k for k in data if k not in ("steps", "name", "description") and k not in ext]
    findings = [
        error("agents", f"{rel}: key '{k}': unknown key: expected steps, name, description; keys starting x- are free")
        for k in unknown
    ]
    steps_raw = data.get("steps")
    if not isinstance(steps_raw, list) or not steps_raw:
        findings.append(
            error(
                "agents",
                f"{rel}: key 'steps': expected a non-empty list of steps, got {type(steps_raw).__name__ if steps_raw is not None else 'nothing'}",
            )
        )
        raise ChallengeError(findings)
    steps: list[Step] = []
    for i, raw in enumerate(steps_raw):
        try:
            steps.append(_step(raw, root))
        except ValueError as exc:
            findings.append(error("agents", f"{rel}: key 'steps[{i}]' (step {i + 1}): {exc}"))
    for key in ("name", "description"):
        if key in data and not isinstance(data[key], str):
            findings.append(error("agents", f"{rel}: key '{key}': expected a string"))
    if findings:
        raise ChallengeError(findings)
    # The file name is the agent's identity (``scripted:<name>``); a ``name:`` key is a label.
    return ScriptedAgent(
        name=file.stem, file=file, steps=tuple(steps), description=str(data.get("description") or ""), extensions=ext
    )
