"""The shipped path: attempts started through the real runner (arena.attempt), a real
store and the local sandbox, shown live; play-it-yourself with a real shell process."""

from __future__ import annotations

import asyncio
import contextlib
import pytest

from arena.clock import ManualTime
from gauntlet_tui.app import GauntletApp
from gauntlet_tui.engine import EngineAdapter
from gauntlet_tui.live import AttemptSpec, LiveRun


async def _until(pilot, app, cond, timeout=60.0):
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not cond():
        if loop.time() > end:
            raise AssertionError("condition not reached in time")
        app.tick()
        await pilot.pause(0.05)


@pytest.fixture
def shell_script(tmp_path, monkeypatch):
    """What a person types in the sandbox shell: writes the reference solution over the
    workspace (the shell runs inside the attempt's sandbox, which does not see the package).
    The headless pilot has no terminal: the real launcher runs the real sandbox shell with
    this script on stdin (gauntlet_tui.shell.launch)."""
    from arena.challenge import resolve_challenge
    from gauntlet_tui import shell

    solution = resolve_challenge("off-by-one") / "solution"
    typed = "".join(
        f"cat > {f.name} <<'GAUNTLET_EOF'\n{f.read_text()}GAUNTLET_EOF\n"
        for f in sorted(solution.glob("*"))
        if f.is_file()
    )
    script = tmp_path / "typed.sh"
    script.write_text(typed + 'echo "$GAUNTLET_ATTEMPT" > .shell-ran\nexit\n')
    real_launch = shell.launch

    async def launcher(command):
        with script.open("rb") as stdin, (tmp_path / "screen").open("wb") as out:
            return await real_launch(command, stdin=stdin, stdout=out)

    monkeypatch.setattr(shell, "launch", launcher)
    return script


async def test_human_play_shell_then_submit_with_confirmation_shows_feedback(tmp_path, shell_script):
    time = ManualTime()
    adapter = EngineAdapter()
    run = await LiveRun.open(adapter, tmp_path / "g.db", sandbox="local", time_source=time)
    attempt = run.start(AttemptSpec("off-by-one", "human", 1.0))
    app = GauntletApp(adapter, live_refresh=False, store=tmp_path / "g.db")
    # The headless test driver cannot hand the terminal over; the shell itself runs for real.
    app.suspend = contextlib.nullcontext  # type: ignore[method-assign]
    try:
        async with app.run_test(size=(140, 45)) as pilot:
            await _until(pilot, app, lambda: attempt in adapter.views and adapter.views[attempt].started)
            await pilot.press("enter")
            await pilot.pause()
            screen = app.screen
            assert screen.attempt_id == attempt
            assert screen.check_action("shell", ()) and screen.check_action("submit", ())
            await pilot.press("exclamation_mark")
            workspace = adapter.handle(attempt).workspace
            await _until(pilot, app, (workspace / ".shell-ran").exists, timeout=30)
            assert (workspace / ".shell-ran").read_text() == f"{attempt}\n"  # the agent env is set
            await pilot.press("u")
            await pilot.pause()
            question = str(app.screen.query_one("#confirm-question").render())
            assert "2 of 2 submissions left" in question and "cooldown: none" in question
            await pilot.press("y")
            # a Sprint submission's feedback is held for its 30 s replacement window (issue 12)
            await _until(pilot, app, lambda: adapter.views[attempt].submissions_used == 1, timeout=90)
            await time.step(31)
            await _until(pilot, app, lambda: 1 in adapter.views[attempt].feedback, timeout=90)
            await pilot.pause()
            text = str(app.screen.query_one("#sub-1 .feedback-body").render())
            assert "Submission 1" in text and "Tests" in text
            assert adapter.views[attempt].submissions_used == 1
            await pilot.press("escape", "x")
            await pilot.pause()
            await pilot.press("y")
            await _until(pilot, app, lambda: adapter.views[attempt].finished, timeout=30)
            assert adapter.views[attempt].status == "interrupted"
    finally:
        await run.close()


async def test_attempt_app_runs_the_attempt_in_the_attempt_view(tmp_path):
    """gauntlet_tui.open_attempt / attempt_app: what `gauntlet run` without --headless uses."""
    from arena.attempt import Arena
    from arena.challenge import load_challenge, resolve_challenge
    from gauntlet_tui import attempt_app

    arena = await Arena.open(tmp_path / "g.db", sandbox="local")
    try:
        attempt = arena.attempt(load_challenge(resolve_challenge("off-by-one")), "scripted:elite", time_scale=60.0)
        app = attempt_app(arena, attempt)
        async with app.run_test(size=(140, 45)) as pilot:
            assert type(app.screen).__name__ == "AttemptScreen"  # open before any event
            await _until(pilot, app, lambda: app.attempt_status is not None, timeout=120)
            await _until(pilot, app, lambda: app.adapter.views[attempt.id].finished)
            view = app.adapter.views[attempt.id]
            assert app.attempt_status == view.status == "finished"
            assert view.feedback and view.trajectory
            await pilot.pause()
            assert len(app.screen.query("FeedbackPane")) == len(view.feedback)
            assert app.screen.query_one("AttemptClock").has_class("-over")
    finally:
        await arena.close()
