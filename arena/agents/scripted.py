"""Scripted agents: a package's ``agents/<name>.yaml`` replayed on the attempt clock.

Steps (CONTRACT §3): ``wait`` (attempt-clock time; a declared wait is never a hang),
``read`` (telemetry only), ``overlay`` (copy a package directory over the workspace),
``delete``, ``run`` (a command in the agent's sandbox), ``submit`` (blocks until the
feedback is back) and ``message``. Every step leaves a telemetry event. On resume the
script restarts from the step after the last acknowledged submission.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, cast

from arena.agents.base import AgentContext, AgentOutcome
from arena import events as ev
from arena.sandbox import quota, safe_write
from arena.sandbox.base import SandboxError

if TYPE_CHECKING:
    from arena.challenge.agents import ScriptedAgent, Step

STEP_KINDS = ("wait", "read", "overlay", "delete", "run", "submit", "message")
_COUNTS = re.compile(r"(\d+) (passed|failed|error|errors)\b")
TEST_RUNNERS = ("pytest", "unittest", "nose2", "tox", "make test", "npm test", "cargo test", "go test")


def normalize_steps(script: ScriptedAgent | Iterable[object]) -> list[tuple[str, Any]]:
    """(kind, value) pairs from whatever shape the loader hands over: a list of
    one-key mappings / ``"submit"`` strings, or models with ``kind``/``value``, or a
    model with one field set."""
    steps = cast("Iterable[Any]", getattr(script, "steps", script))  # a ScriptedAgent, or the steps
    out: list[tuple[str, Any]] = []
    for step in steps or []:
        if isinstance(step, str):
            out.append((step, None))
            continue
        if hasattr(step, "model_dump") and not hasattr(step, "kind"):
            step = {k: v for k, v in step.model_dump().items() if v is not None}
        if isinstance(step, dict):
            keys = [k for k in step if k in STEP_KINDS]
            if len(keys) != 1:
                raise ValueError(f"scripted step {step!r}: expected exactly one of {', '.join(STEP_KINDS)}")
            out.append((keys[0], step[keys[0]]))
            continue
        kind = getattr(step, "kind", None)
        if kind not in STEP_KINDS:
            raise ValueError(f"scripted step {step!r}: unknown kind {kind!r}")
        out.append((kind, _value_of(step, kind)))
    return out


def _value_of(step: Step, kind: str) -> object:
    """The value of an ``arena.challenge.agents.Step`` (or any object with ``value``)."""
    if hasattr(step, "value"):
        return step.value
    return {
        "wait": lambda: step.seconds,
        "read": lambda: step.path,
        "overlay": lambda: step.source or step.path,
        "delete": lambda: list(step.paths),
        "run": lambda: step.command,
        "submit": lambda: None,
        "message": lambda: step.text,
    }[kind]()


def _seconds(value: object) -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    from arena.challenge.units import parse_duration

    return float(parse_duration(value))


def ran_tests(command: str) -> bool:
    return any(r in command for r in TEST_RUNNERS)


def test_counts(output: str) -> tuple[int, int]:
    passed = failed = 0
    for n, what in _COUNTS.findall(output):
        if what == "passed":
            passed = int(n)
        else:
            failed += int(n)
    return passed, failed


class ScriptedAgentRunner:
    restartable = True

    def __init__(
        self, spec: str, script: ScriptedAgent | Iterable[object], package_root: Path, *, skip_submissions: int = 0
    ) -> None:
        self.spec = spec
        self.identity = spec  # a package's scripted agent is named by its spec
        self.package_root = Path(package_root)
        self.steps = normalize_steps(script)
        self.skip_submissions = skip_submissions
        self.needs_sandbox = any(k == "run" for k, _ in self.steps)
        self.step_index = 0  # the step being played (for tests and the live view)

    def remaining_steps(self) -> list[tuple[str, Any]]:
        """Steps still to play after skipping ``skip_submissions`` acknowledged submits."""
        if not self.skip_submissions:
            return list(self.steps)
        seen = 0
        for i, (kind, _) in enumerate(self.steps):
            if kind == "submit":
                seen += 1
                if seen == self.skip_submissions:
                    return list(self.steps[i + 1 :])
        return []

    async def run(self, ctx: AgentContext) -> AgentOutcome:
        for i, (kind, value) in enumerate(self.remaining_steps()):
            self.step_index = i
            try:
                await getattr(self, f"_{kind}")(ctx, value)
            except OSError as exc:
                if not quota.workspace_full(ctx.workspace, exc):
                    raise  # the host's fault: infrastructure
                # the script's own earlier steps filled its workspace quota (issue 26)
                detail = f"{kind} step {i + 1}: its workspace is full ({exc.strerror}: {exc.filename})"
                return AgentOutcome(detail=detail, own_failure=True)
        return AgentOutcome(detail="script finished")

    # -- steps -------------------------------------------------------------------
    async def _wait(self, ctx: AgentContext, value: object) -> None:
        seconds = _seconds(value)
        async with ctx.hold():  # a declared wait is not a hang
            await ctx.sleep_until(ctx.elapsed() + seconds)

    async def _read(self, ctx: AgentContext, value: object) -> None:
        for rel in value if isinstance(value, list) else [value]:
            ctx.publish(ev.FILE_READ, {"path": str(rel), "declared": True})

    async def _overlay(self, ctx: AgentContext, value: object) -> None:
        src = Path(str(value))
        root = self.package_root.resolve()
        src = (src if src.is_absolute() else root / src).resolve()
        if src != root and root not in src.parents:
            raise ValueError(f"overlay {value}: outside the package {root}")
        if not src.is_dir():
            raise FileNotFoundError(f"overlay {value}: not a directory in {self.package_root}")
        # agent code may have planted links or FIFOs in the workspace: never followed
        async with ctx.hold(io=True):  # real work, off the event loop
            await asyncio.to_thread(safe_write.write_tree, src, ctx.workspace)
        await ctx.scan()

    async def _delete(self, ctx: AgentContext, value: object) -> None:
        for rel in value if isinstance(value, list) else [value]:
            try:  # the entry itself (a link, never its target), reached without links
                async with ctx.hold(io=True):
                    await asyncio.to_thread(safe_write.remove_path, ctx.workspace, str(rel))
            except SandboxError as exc:
                raise ValueError(f"delete {rel!r}: {exc}") from None
        await ctx.scan()

    async def _run(self, ctx: AgentContext, value: object) -> None:
        command = str(value)
        if ctx.sandbox is None:
            raise RuntimeError("run step without an agent sandbox")
        async with ctx.hold(io=True):
            res = await ctx.sandbox.exec(["sh", "-c", command], env=ctx.sandbox_env)
        out = (res.stdout or b"").decode("utf-8", "replace") + (res.stderr or b"").decode("utf-8", "replace")
        passed, failed = test_counts(out) if ran_tests(command) else (0, 0)
        ctx.publish(
            ev.COMMAND_RUN,
            {
                "command": command,
                "exit_code": res.exit_code,
                "ran_tests": ran_tests(command),
                "passed": passed,
                "failed": failed,
                "duration_s": round(res.duration_s, 3),
                "declared": True,  # CONTRACT §8: a scripted agent's telemetry is declared, not observed
            },
        )
        await ctx.scan()

    async def _submit(self, ctx: AgentContext, value: object) -> None:
        await ctx.request({"op": "submit"})

    async def _message(self, ctx: AgentContext, value: object) -> None:
        await ctx.request({"op": "message", "text": str(value)})
