"""Issue 34 item 7, no silent waits: a build that says nothing still gets a progress line with
its step at least every 10 s (manual clock, an injected silent build), an image or tree that
is already there is ready at once (never "waiting (last time 623s)"), and independent steps
run side by side while a step that needs another waits for it."""

from __future__ import annotations

import asyncio
import io
import subprocess
import sys

import pytest

from arena.attempt.prepare import Preparation, PrepareError, Step, run_printing
from arena.clock import ManualTime


class Out(io.StringIO):
    """stderr that remembers the manual time of each line."""

    def __init__(self, clock: ManualTime) -> None:
        super().__init__()
        self.clock, self.at = clock, []

    def write(self, s: str) -> int:
        self.at += [(self.clock.now(), line) for line in s.splitlines()]
        return super().write(s)


async def test_a_silent_build_gets_a_line_with_its_step_every_ten_seconds():
    clock = ManualTime(1000.0)
    release = asyncio.Event()

    async def silent_build(log):  # the fault: one log line, then minutes of silence
        log("docker build gauntlet-agent-openhands:latest")
        await release.wait()

    prep = Preparation([Step("agent image gauntlet-agent-openhands:latest", "k", silent_build, 219.0)], time=clock)
    out = Out(clock)
    task = asyncio.ensure_future(run_printing(prep, out))
    await clock.step(0)  # the step starts
    for _ in range(20):
        await clock.step(2.5)  # 50 s of silence, in quarter beats
    release.set()
    await task
    times = [t for t, _line in out.at]
    assert out.at[0] == (1000.0, "gauntlet: preparing: agent image gauntlet-agent-openhands:latest (last time 219s)")
    assert max(b - a for a, b in zip(times, times[1:])) <= 10.0, out.at
    beats = [line for _t, line in out.at if "  ... " in line]
    assert len(beats) >= 5, out.at
    for line in beats:  # each says which step and where it is
        assert "agent image gauntlet-agent-openhands:latest" in line, line
        assert line.endswith("docker build gauntlet-agent-openhands:latest"), line
    assert [t for t, line in out.at if "  ... " in line] == [1005.0, 1015.0, 1025.0, 1035.0, 1045.0]
    assert ": 45s of ~219s docker build" in beats[-1], beats
    assert out.at[-1][1].startswith("gauntlet: ready: agent image gauntlet-agent-openhands:latest in 50.0s")


async def test_echoed_lines_are_not_repeated_but_the_beat_still_comes():
    """``sandbox build`` prints every log line itself: the printer adds only the beats."""
    clock = ManualTime()
    release = asyncio.Event()

    async def build(log):
        log("running: pip download")
        await clock.sleep_until(3)
        log("running: pip install")
        await release.wait()

    prep = Preparation([Step("agent tree codex", "k", build)], time=clock)
    out = Out(clock)
    task = asyncio.ensure_future(run_printing(prep, out, echoed=True))
    await clock.step(0)
    for _ in range(16):
        await clock.step(1.0)
    release.set()
    await task
    beats = [(t, line) for t, line in out.at if "  ... " in line]
    # no line for each change (they were echoed as they came), a beat 10 s after the last one
    assert [t for t, _ in beats] == [13.0], out.at
    assert beats[0][1].endswith("agent tree codex: 13s running: pip install"), beats


async def test_what_is_already_there_is_ready_at_once_and_never_built():
    clock = ManualTime()
    built: list[str] = []

    async def build(log):
        built.append("x")

    prep = Preparation([Step("image gauntlet-base", "img", build, 623.0, ready=lambda: True)], time=clock)
    out = Out(clock)
    await run_printing(prep, out)
    assert built == [] and prep.steps[0].present and prep.steps[0].state == "done"
    assert out.at == [(0.0, "gauntlet: ready: image gauntlet-base (already there)")]


async def test_independent_steps_run_side_by_side_and_a_dependent_one_waits():
    clock = ManualTime()
    gates = {k: asyncio.Event() for k in ("image", "tree")}
    seen: list[tuple[str, ...]] = []

    def work(key):
        async def run(log):
            seen.append(tuple(sorted(s.key for s in prep.steps if s.state == "running")))
            if key in gates:
                await gates[key].wait()

        return run

    prep = Preparation(
        [
            Step("image", "image", work("image")),
            Step("agent tree", "tree", work("tree")),
            Step("warm judge", "warm", work("warm"), after=("image",)),
            Step("starter", "starter", work("starter"), after=("image", "warm")),
        ],
        time=clock,
    )
    task = asyncio.ensure_future(prep.run())
    await clock.step(1)
    assert [s.state for s in prep.steps] == ["running", "running", "pending", "pending"]
    gates["image"].set()
    await clock.step(1)
    assert [s.state for s in prep.steps] == ["done", "running", "done", "done"]  # the tree still builds
    gates["tree"].set()
    await task
    assert ("image", "tree") in seen and ("tree", "warm") in seen


async def test_a_failure_skips_what_needed_it_and_names_itself():
    async def fails(log):
        raise RuntimeError("no mirror")

    async def fine(log):
        pass

    prep = Preparation(
        [Step("image x", "image", fails), Step("tree", "tree", fine), Step("warm", "warm", fine, after=("image",))]
    )
    try:
        await prep.run()
    except PrepareError as exc:
        assert str(exc) == "image x failed: no mirror"
    else:
        raise AssertionError("no PrepareError")
    assert [s.state for s in prep.steps] == ["failed", "done", "skipped"]
    assert prep.steps[2].detail == "not started: image x failed"


def test_a_real_agent_tree_on_disk_is_found_ready(tmp_path, monkeypatch):
    """The local backend's step for an adapter whose tree is complete: no build, at once."""
    from arena.adapters import build as b

    monkeypatch.setenv("GAUNTLET_CACHE", str(tmp_path))
    prep = Preparation()
    prep._add_agent("codex", image=False)
    assert not b.agent_tree_present("codex")
    (b.tree_path("codex")).mkdir(parents=True)
    (b.tree_path("codex") / ".complete").write_text("1.0s\n")
    asyncio.run(prep.run())  # a build would need the network: it must not run
    assert prep.steps[0].present and prep.summary(prep.steps[0]) == "ready: agent tree codex (already there)"


def _codex_image() -> bool:
    try:
        from arena.adapters.build import agent_image_present

        return agent_image_present("codex")
    except Exception:  # noqa: BLE001 — no engine, no image
        return False


@pytest.mark.docker
@pytest.mark.skipif(
    not _codex_image(), reason="needs Docker and gauntlet-agent-codex (gauntlet sandbox build --agent codex)"
)
def test_sandbox_build_of_an_existing_agent_image_says_ready_at_once():
    """`gauntlet sandbox build --agent codex` with its image there: ready at once, nothing built."""
    run = subprocess.run(
        [sys.executable, "-m", "gauntlet_tui", "sandbox", "build", "--agent", "codex"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert run.stderr.splitlines() == ["gauntlet: ready: agent image gauntlet-agent-codex:latest (already there)"]
    assert run.stdout.startswith("gauntlet-agent-codex:latest ready (")
