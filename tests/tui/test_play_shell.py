"""Play it yourself: the shell key on a live ``--agent human`` attempt opens the shell of
the attempt's own sandbox (``Sandbox.shell_argv``), and the attempt keeps running while it
is open. A headless pilot has no terminal to hand over, so only the terminal part is
replaced: ``App.suspend`` and the launcher, which here runs the real argv with commands
on stdin instead of a person at a keyboard."""

from __future__ import annotations

import asyncio
import contextlib
from types import SimpleNamespace

import pytest

from arena.clock import ManualTime
from gauntlet_tui import shell as tui_shell
from gauntlet_tui.app import GauntletApp
from gauntlet_tui.engine import EngineAdapter
from gauntlet_tui.live import AttemptSpec, LiveHandle, LiveRun, ShellUnavailable

TYPED = b"""echo "uid=$(id -u) cwd=$(pwd)"
timeout 15 gauntlet-agent status || echo "status: no answer"
echo "$GAUNTLET_ATTEMPT" > .shell-ran
exit
"""


async def _until(pilot, app, cond, timeout=60.0):
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not cond():
        if loop.time() > end:
            raise AssertionError("condition not reached in time")
        app.tick()
        await pilot.pause(0.05)


async def test_shell_key_runs_the_sandbox_shell_while_the_attempt_keeps_running(tmp_path, monkeypatch):
    time = ManualTime()
    adapter = EngineAdapter()
    run = await LiveRun.open(adapter, tmp_path / "g.db", sandbox="local", time_source=time)
    attempt = run.start(AttemptSpec("off-by-one", "human", 1.0))
    app = GauntletApp(adapter, live_refresh=False, store=tmp_path / "g.db")
    suspended: list[bool] = []

    @contextlib.contextmanager
    def suspend():  # the headless driver cannot give the terminal away
        suspended.append(True)
        yield

    app.suspend = suspend  # type: ignore[method-assign]
    launched: list = []
    real_launch = tui_shell.launch
    typed, screen = tmp_path / "typed", tmp_path / "screen"
    typed.write_bytes(TYPED)

    async def launcher(command):  # the real launcher; files stand in for the terminal
        launched.append((command, app._batch_count))
        with typed.open("rb") as i, screen.open("wb") as o:
            rc = await asyncio.wait_for(real_launch(command, stdin=i, stdout=o), 60)
        launched.append(screen.read_text())
        return rc

    monkeypatch.setattr(tui_shell, "launch", launcher)
    try:
        async with app.run_test(size=(140, 45)) as pilot:
            await _until(pilot, app, lambda: attempt in adapter.views and adapter.views[attempt].started)
            await pilot.press("enter")
            await pilot.pause()
            assert app.screen.attempt_id == attempt and app.screen.check_action("shell", ())
            live = adapter.handle(attempt).attempt
            await pilot.press("exclamation_mark")
            await _until(pilot, app, lambda: len(launched) == 2, timeout=60)
            (command, batch), out = launched
            assert suspended == [True]
            assert batch > 0  # nothing is drawn while the shell has the terminal
            assert command.sandboxed and command.warning is None
            assert command.argv == live.sandbox.shell_argv(live.sandbox_env)  # the sandbox's shell
            assert "bwrap" in " ".join(command.argv)
            assert f"uid={live.sandbox.uid} cwd=/workspace" in out
            # answered by the attempt, whose loop is the app's: it kept running meanwhile
            assert "ok: true" in out and f'attempt: "{attempt}"' in out
            ran = live.workspace / ".shell-ran"
            await _until(pilot, app, ran.exists)
            assert ran.read_text() == f"{attempt}\n" and ran.stat().st_uid == live.sandbox.uid
            assert any(e.kind == "protocol.call" and e.data["op"] == "status" for e in live.events)
            assert not live.over  # the attempt is still running after the shell
            await pilot.press("escape", "x")
            await pilot.pause()
            await pilot.press("y")
            await _until(pilot, app, lambda: adapter.views[attempt].finished, timeout=30)
    finally:
        await run.close()


def _attempt(sandbox=None, needs=True, over=False, tmp=None):
    env = {"GAUNTLET_SOCKET": "/host/agent.sock", "GAUNTLET_ATTEMPT": "a-1"}
    return SimpleNamespace(
        sandbox=sandbox,
        agent=SimpleNamespace(needs_sandbox=needs),
        over=over,
        workspace=tmp,
        env=env,
        sandbox_env={"GAUNTLET_ATTEMPT": "a-1"},
    )


def test_host_shell_only_without_a_sandbox_and_with_a_warning(tmp_path, monkeypatch):
    monkeypatch.setenv("SHELL", "/bin/bash")
    cmd = LiveHandle(_attempt(needs=False, tmp=tmp_path)).shell_command()
    assert cmd.argv == ["/bin/bash"] and not cmd.sandboxed
    assert cmd.warning and "HOST" in cmd.warning and cmd.env["GAUNTLET_SOCKET"] == "/host/agent.sock"
    assert "WARNING" in tui_shell.banner(cmd)
    # an agent that needs a sandbox never falls back to the host
    with pytest.raises(ShellUnavailable, match="not ready"):
        LiveHandle(_attempt(needs=True, tmp=tmp_path)).shell_command()
    closed = SimpleNamespace(closed=True, backend="local")
    with pytest.raises(ShellUnavailable, match="over"):
        LiveHandle(_attempt(sandbox=closed, tmp=tmp_path)).shell_command()
