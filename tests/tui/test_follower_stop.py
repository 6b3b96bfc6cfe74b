"""The plain TUI follower (`gauntlet home --store DB`) stops an attempt that another process
runs: the stop key asks that arena's control channel (arena/attempt/control.py), the run
(a real `gauntlet run`) ends its attempt ``interrupted`` and exits, and the follower's row
shows the end. An attempt whose runner was killed (the store still says running) is not
stopped, and the follower says why instead of pretending."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

from gauntlet_tui.app import GauntletApp
from headless_runs import headless_run
from store import Store

ROOT = Path(__file__).resolve().parents[2]


async def _run(db: Path) -> asyncio.subprocess.Process:
    return await headless_run(db, 1, {"GAUNTLET_CONFIG_DIR": str(db.parent / "cfg")}, asyncio.subprocess.DEVNULL)


async def _until(predicate, timeout: float, what: str, pilot) -> None:  # noqa: ANN001
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not predicate():
        seen = {a: v.status for a, v in pilot.app.adapter.views.items()}
        assert loop.time() < end, f"timed out: {what} (attempts {seen}, notices {_notes(pilot.app)})"
        await pilot.pause(0.1)  # the follower polls the store once a second


def _notes(app: GauntletApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def test_follower_stops_another_process_attempt(tmp_path):
    db = tmp_path / "g.db"
    run = await _run(db)
    killed = None
    try:
        app = GauntletApp(store=db)
        async with app.run_test(size=(160, 40)) as pilot:
            await _until(
                lambda: any(app.adapter.is_live(a) for a in app.adapter.views),
                60,
                "the other process's attempt on the dashboard",
                pilot,
            )
            (aid,) = app.adapter.views
            assert app.adapter.handle(aid) is None  # nothing of it runs here
            await pilot.press("x")
            await _until(lambda: type(app.screen).__name__ == "ConfirmScreen", 10, "the confirmation", pilot)
            await pilot.press("y")
            await _until(
                lambda: any(f"stopping {aid}… (asked its arena, pid {run.pid})" in n for n in _notes(app)),
                10,
                "the stop's answer",
                pilot,
            )
            assert await asyncio.wait_for(run.wait(), 30) == 0
            await _until(lambda: app.adapter.views[aid].finished, 10, "the end on the follower", pilot)
            view = app.adapter.views[aid]
            assert (view.status, view.reason) == ("interrupted", "stopped by the operator")

            # A runner killed mid-attempt: the store still says running; the stop says why not.
            killed = await _run(db)
            await _until(
                lambda: (
                    len(app.adapter.views) == 2 and all(app.adapter.is_live(a) for a in app.adapter.views if a != aid)
                ),
                60,
                "the second attempt",
                pilot,
            )
            (other,) = set(app.adapter.views) - {aid}
            killed.send_signal(signal.SIGKILL)
            await killed.wait()
            await app.stop_attempt(other)
            await pilot.pause()
            assert any(
                f"{other} was not stopped: its arena (pid {killed.pid}) has no control channel" in n
                for n in _notes(app)
            ), _notes(app)
        async with await Store.open(db) as st:
            assert (await st.get_attempt(aid))["status"] == "interrupted"
            assert (await st.get_attempt(other))["status"] == "running"  # only a new arena closes it
    finally:
        for p in (run, killed):
            if p is not None and p.returncode is None:
                p.kill()
                await p.wait()
