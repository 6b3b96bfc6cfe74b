"""A person is never ended as hung while the TUI has input focus; unfocused, the attempt
view counts down to the watchdog (a real ``--agent human`` attempt on ManualTime, local
sandbox). Its workspace starts without the starter's ``__pycache__``."""

from __future__ import annotations

import asyncio
import shutil

from arena.challenge import resolve_challenge
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


async def test_focused_tui_holds_a_human_and_unfocused_shows_the_countdown(tmp_path):
    pkg = tmp_path / "off-by-one"
    shutil.copytree(resolve_challenge("off-by-one"), pkg)
    starter = next(p for p in pkg.iterdir() if p.is_dir() and p.name.startswith("starter"))
    (starter / "__pycache__").mkdir(exist_ok=True)
    (starter / "__pycache__" / "x.cpython-311.pyc").write_bytes(b"\0")
    time = ManualTime()
    adapter = EngineAdapter()
    run = await LiveRun.open(adapter, tmp_path / "g.db", sandbox="local", time_source=time)
    attempt = run.start(AttemptSpec(pkg, "human", 1.0))
    app = GauntletApp(adapter, live_refresh=False, store=tmp_path / "g.db", board=False, toasts=False)
    try:
        async with app.run_test(size=(140, 40)) as pilot:
            await _until(
                pilot,
                app,
                lambda: (
                    attempt in adapter.views
                    and adapter.views[attempt].started
                    and adapter.handle(attempt).attempt.ready
                ),
            )
            live = adapter.handle(attempt).attempt
            assert not (live.workspace / "__pycache__").exists()
            assert (live.workspace / "src").exists() or any(live.workspace.iterdir())
            await _until(pilot, app, lambda: app.presence.held(attempt))
            await pilot.press("enter")
            await pilot.pause()
            limit = live.hang_limit_s
            await time.step(limit * 3)  # three hang limits at the keyboard
            app.tick()
            await pilot.pause()
            assert not live.over and not app.screen.has_class("-idle")
            app.app_focus = False  # the terminal lost focus: the person may be gone
            await _until(pilot, app, lambda: not app.presence.held(attempt))
            await time.step(limit / 2)
            app.tick()
            await pilot.pause()
            assert app.screen.has_class("-idle")
            banner = str(app.screen.query_one("#hang-countdown").render())
            assert "HUNG in" in banner
            left = adapter.handle(attempt).hang_left()
            assert 0 < left <= limit / 2 + 1
            await time.step(limit)
            await _until(pilot, app, lambda: adapter.views[attempt].finished, timeout=30)
            assert any(e.kind == "agent.hung" for e in live.events)
    finally:
        await run.close()
