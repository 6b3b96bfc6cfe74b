"""The TUI commands: bad input is one clear line and exit 2; `gauntlet demo` runs the
bundled challenges through the real runner at 80x24 and 200x60 without a traceback."""

from __future__ import annotations

import asyncio
import subprocess
import sys

import pytest

import tui_scenarios as S
from gauntlet_tui.app import GauntletApp
from gauntlet_tui.demo import demo_specs, demo_starter
from gauntlet_tui.widgets import AttemptTable


def _gauntlet(*args, env=None):
    return subprocess.run(
        [sys.executable, "-m", "gauntlet_tui", *args], capture_output=True, text=True, timeout=60, env=env
    )


def test_replay_of_an_unknown_attempt_is_exit_2_with_one_line(tmp_path):
    db = tmp_path / "g.db"
    asyncio.run(S.stored_attempts(db))
    out = _gauntlet("replay", "a-deadbeef", "--store", str(db))
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == [
        f"gauntlet: ATTEMPT: unknown attempt 'a-deadbeef' in {db} (see `gauntlet attempts`)"
    ]


def test_replay_with_a_missing_store_or_bad_speed_is_exit_2(tmp_path):
    out = _gauntlet("replay", "a-1", "--store", str(tmp_path / "nope.db"))
    assert out.returncode == 2 and "no such store" in out.stderr and "Traceback" not in out.stderr
    out = _gauntlet("replay", "a-1", "--speed", "-2")
    assert out.returncode == 2 and "expected a positive number, got '-2'" in out.stderr


def test_demo_with_an_unknown_theme_is_exit_2():
    out = _gauntlet("demo", "--theme", "neon")
    assert out.returncode == 2
    assert (
        "--theme: unknown theme 'neon': expected one of gauntlet-dark, gauntlet-light, gauntlet-projector" in out.stderr
    )


def test_demo_specs_fit_every_bundled_challenge_into_the_wall_time():
    from arena.challenge import load_challenge
    from arena.formats import rules_for

    specs = demo_specs(wall_s=100)
    assert {str(s.challenge).rsplit("/", 1)[-1] for s in specs} >= {"off-by-one", "rate-limiter", "task-store"}
    for spec in specs:
        m = load_challenge(spec.challenge).manifest
        # time limit and grace pass in 100 s at the scale, and the clock promises it
        assert (m.time_limit_s + rules_for(m.format).grace_s) / spec.time_scale == pytest.approx(100, rel=0.01)
        assert spec.ends_within_s == 100 and spec.linger


@pytest.mark.slow
@pytest.mark.parametrize("size,wall_s", [((80, 24), 12.0), ((200, 60), 25.0)])
async def test_demo_runs_to_final_scores_without_a_traceback(tmp_path, size, wall_s):
    app = GauntletApp(title="Gauntlet demo", store=tmp_path / "g.db", on_ready=demo_starter("local", wall_s=wall_s))
    async with app.run_test(size=size) as pilot:
        table = app.screen.query_one(AttemptTable)
        loop = asyncio.get_running_loop()
        end = loop.time() + 150
        while loop.time() < end:
            await pilot.pause(0.5)
            views = list(app.adapter.views.values())
            if len(views) == len(demo_specs()) and all(v.finished for v in views):
                break
        app.tick()
        await pilot.pause()
        views = list(app.adapter.views.values())
        assert views and all(v.finished for v in views), [(v.challenge, v.status) for v in views]
        assert table.row_count == len(views)
        assert any(v.warning for v in views)  # the room saw the clock warnings
        assert any(v.feedback for v in views)  # and feedback
        assert all(table.get_cell(v.attempt, "score") != "—" for v in views if v.trajectory)
        if wall_s >= 25:  # squeezed harder, judging latency can outlast a phase's window
            assert any(p.open for v in views for p in v.phases[1:])  # and a phase reveal
        for _ in range(40):  # the round ends on the standings screen
            if type(app.screen).__name__ == "StandingsScreen":
                break
            await pilot.pause(0.25)
        assert type(app.screen).__name__ == "StandingsScreen"
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert type(app.screen).__name__ == "AttemptScreen"
