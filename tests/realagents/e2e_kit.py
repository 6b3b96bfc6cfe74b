"""What the real agents' end-to-end tests share: the two backends (Docker only where the
engine answers), the `gauntlet` command line run as a user runs it, and one attempt of a
real adapter at off-by-one through the gateway, read back with `show --json`. And for the
tests that drive an arena in-process (liveness, start-up): an agent file of a command,
waiting until a condition holds, and the manual clock stepped a second at a time."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

import pytest
import yaml

from arena.clock import ManualTime

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "tests" / "fakes" / "scripts"


def docker_answers() -> bool:
    try:
        return subprocess.run(["docker", "version"], capture_output=True, timeout=20).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


# On Docker, the agent's image puts /gauntlet/bin back on PATH for login shells (Codex's
# exec_command and Claude Code's Bash tool run them; Debian's /etc/profile resets PATH).
BACKENDS = [
    "local",
    pytest.param(
        "docker",
        marks=[
            pytest.mark.docker,
            pytest.mark.skipif(not docker_answers(), reason="Docker does not answer (`docker version` failed)"),
        ],
    ),
]


def cli(*args: str, env: dict[str, str], timeout: float = 900) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "gauntlet_tui", *args],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def run_agent(
    adapter: str, model: str, sandbox: str, db: Path, env: dict[str, str], *, time_scale: str | None = None
) -> tuple[subprocess.CompletedProcess, dict]:
    """`gauntlet run off-by-one --agent ADAPTER --model MODEL --headless`; the run and its
    `show --json`. At time scale 1, the only one an agent that calls a model may run at
    (CONTRACT §11; issue 34): the sprint's 30 s double-submit window holds each feedback 30
    real seconds."""
    scale = ["--time-scale", time_scale] if time_scale else []
    run = cli(
        "run", "off-by-one", "--agent", adapter, "--model", model, "--sandbox", sandbox, *scale,
        "--headless", "--store", str(db), env=env,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Unclosed" not in run.stderr, run.stderr[-2000:]  # issue 21: every session closed at the end
    aid = run.stdout.strip().splitlines()[-1]
    show = json.loads(cli("show", aid, "--json", "--store", str(db), env=env).stdout)
    assert show["status"] == "finished", show["status"]
    return run, show


def agent_file(tmp_path: Path, command: list[str], *, name: str, **extra: Any) -> str:
    """An agent file that runs ``command`` in the sandbox (``extra``: more of its keys),
    written as ``tmp_path/agent.yaml``; its path."""
    path = tmp_path / "agent.yaml"
    path.write_text(yaml.safe_dump({"name": name, "where": "sandbox", "command": command, **extra}))
    return str(path)


async def until(pred: Callable[[], object], what: str, timeout: float = 60.0) -> None:
    """Wait until ``pred()`` holds; past ``timeout`` real seconds, fail naming ``what``."""

    async def wait():
        while not pred():
            await asyncio.sleep(0.01)

    try:
        await asyncio.wait_for(wait(), timeout)
    except asyncio.TimeoutError:
        raise AssertionError(f"timed out waiting for {what}") from None


async def step_clock(clock: ManualTime, seconds: float, step: float = 1.0) -> None:
    """Step the source clock by ``seconds``, ``step`` at a time, letting the attempt react
    after each step."""
    for _ in range(int(seconds / step)):
        await clock.step(step)
        await asyncio.sleep(0.002)
