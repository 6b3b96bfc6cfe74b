"""A name cannot crash the room (issue 36, item 1): every string from a package, an agent
file, an agent, a model or an error is shown as text, never parsed as markup. Hostile
agent names, challenge titles, phase ids, infra-error details and agent output travel
through every screen (the dashboard and its toasts, the big board, the attempt screen,
help, past attempts, the leaderboard, replay, standings) with the pilot: the app lives,
reports no internal error and shows the names literally (control bytes and bidi
overrides neutralised, 100 KB names cut).

The TUI is backend-independent (the engine's events are the same whatever ran the agent),
so these cases run once."""

from __future__ import annotations

import asyncio
import io
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tui"))

import tui_scenarios as S  # noqa: E402

MARKUP = "rt-markup [/] [@click=app.quit]click[/]"
ANSI = "ansi\x1b[31mred\x1b]0;owned\x07bel\x07"
RTL = "rtl\u202etxt.exe"
BIG = "big" + "[/]" * 34_000  # 100 KB of closing tags
DETAIL = "[bold]boom[/] [@click=app.quit]x[/]"


@pytest.fixture(autouse=True)
def _config_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("GAUNTLET_CONFIG_DIR", str(tmp_path / "config"))


def _text(app) -> str:
    """What the screen shows, as plain text (the compositor's output, as a screenshot)."""
    from rich.console import Console

    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), force_terminal=True, record=True)
    console.print(app.screen._compositor.render_update(full=True, screen_stack=app._background_screens))
    return console.export_text(styles=False)


def _hostile_events(bus, t0: float = 0.0) -> None:
    phases = [dict(p, id=MARKUP if i == 0 else p["id"]) for i, p in enumerate(S.MARATHON_PHASES)]
    S.start(bus, "a-1", "sprint", agent=MARKUP, challenge=MARKUP, title=MARKUP)
    S.start(bus, "a-2", "standard", agent=ANSI, challenge="c2", title=RTL)
    S.start(bus, "a-3", "marathon", agent=BIG, challenge=BIG, title=BIG, extra={"phases": phases})
    for a in ("a-1", "a-2", "a-3"):
        bus.publish(a, 5.0, "agent.output", {"stream": "stdout", "text": MARKUP + ANSI + RTL})
        bus.publish(a, 6.0, "command.run", {"command": MARKUP, "exit_code": 0, "ran_tests": False, "duration_s": 0.1})
        bus.publish(
            a, 7.0, "file.changed", {"path": MARKUP, "change": "modified", "lines_added": 1, "lines_removed": 0}
        )
    bus.publish("a-1", 8.0, "infra.error", {"source": MARKUP, "detail": DETAIL})
    S.submit(bus, "a-2", 1, 60.0, S.doc("standard", 1, 60.0), 50.0)
    bus.publish(
        "a-3",
        1300.0,
        "phase.revealed",
        {"phase": 2, "id": MARKUP, "by": "threshold", "briefing": MARKUP, "hint": MARKUP},
    )


def _literal(shown: str) -> None:
    assert "[@click=app.quit]click[/]" in shown, shown[:3000]
    assert "\x1b" not in shown and "\x07" not in shown and "\u202e" not in shown


async def _survives(app, pilot) -> str:
    await pilot.pause(0.1)
    app.tick()
    await pilot.pause(0.1)
    assert app.is_running and app._exception is None and app.return_code is None
    assert not app.guard.errors, app.guard.errors
    return _text(app)


async def test_hostile_names_live_dashboard_toasts_board_attempt_and_help():
    from gauntlet_tui.toasts import announce
    from gauntlet_tui.widgets import AttemptTable

    rig = S.Rig()
    _hostile_events(rig.bus)
    for a in ("a-1", "a-2", "a-3"):
        rig.adapter.attach_clock(a, lambda: 0.0)  # live: their alerts are toasts
    app = rig.app(toasts=True)
    async with app.run_test(size=(160, 50), notifications=True) as pilot:
        app.tick(full=True)
        for a, fmt in (("a-1", "sprint"), ("a-2", "standard"), ("a-3", "marathon")):
            S.clock_mark(rig.bus, a, fmt, "clock.soft_warning")
        shown = await _survives(app, pilot)  # the 80 % toasts and the infra toast are up
        toasts = [n.message for n in app._notifications]
        assert any(MARKUP in m for m in toasts) and any("[bold]boom[/]" in m for m in toasts), toasts
        assert all(len(m) <= 600 for m in toasts), [len(m) for m in toasts]
        _literal(shown)
        assert "[bold]boom[/]" in shown or "boom" not in shown  # the infra detail, literally
        announce(app, [_ev("a-1", "infra.error", {"source": BIG, "detail": BIG})])  # a 100 KB toast
        await _survives(app, pilot)
        app.action_big_board()
        _literal(await _survives(app, pilot))
        app.action_back()
        await pilot.pause(0.1)
        app.screen.query_one(AttemptTable).move_cursor(row=0)
        await pilot.press("x")  # stop a-1: the question names its title and agent
        await pilot.pause(0.3)
        assert type(app.screen).__name__ == "ConfirmScreen", type(app.screen).__name__
        _literal(await _survives(app, pilot))
        await pilot.press("n")
        for a in ("a-1", "a-2", "a-3"):
            app.open_attempt_screen(a)
            shown = await _survives(app, pilot)
            if a == "a-1":
                _literal(shown)
            rig.time.advance(1)
            app.tick()
            await _survives(app, pilot)
            app.action_help()
            await _survives(app, pilot)
            app.action_back()
            app.action_back()
        assert app.export_screenshot()  # the screenshot's title is text too
        assert type(app.screen).__name__ == "HomeScreen"


async def test_hostile_names_on_the_preparation_screen(tmp_path, monkeypatch):
    """A step's label (an agent's image), its build output and its error are text."""
    from arena.attempt.prepare import Preparation, PrepareError, Step
    from gauntlet_tui.app import GauntletApp
    from gauntlet_tui.screens.prepare import PrepareScreen

    monkeypatch.setenv("GAUNTLET_CACHE", str(tmp_path))
    gate = asyncio.Event()

    async def fails(log):
        log(f"#5 [2/3] RUN build {MARKUP}{ANSI}")
        await gate.wait()
        raise RuntimeError(f"agent file {MARKUP}: {DETAIL}")

    prep = Preparation([Step(f"image {MARKUP}", "k1", fails)], backend="docker")
    app = GauntletApp(live_refresh=False)
    async with app.run_test(size=(160, 40), notifications=True) as pilot:
        app.push_screen(PrepareScreen(prep))
        task = asyncio.ensure_future(prep.run())
        await pilot.pause(0.6)
        _literal(await _survives(app, pilot))
        gate.set()
        with pytest.raises(PrepareError):
            await task
        await pilot.pause(0.6)
        shown = await _survives(app, pilot)
        assert "[bold]boom[/]" in shown and type(app.screen).__name__ == "PrepareScreen", shown[:2000]


def _ev(attempt: str, kind: str, data: dict):
    from arena.events import Event

    return Event(attempt=attempt, t=9.0, kind=kind, data=data, seq=99)


async def test_hostile_names_from_the_store_past_leaderboard_replay_standings(tmp_path):
    from arena.bus import EventBus
    from gauntlet_tui.app import GauntletApp
    from store import Store

    db = tmp_path / "g.db"
    store = await Store.open(db)
    bus = EventBus()
    bus.subscribe(store.append)
    _hostile_events(bus)
    S.finish(bus, "a-1", 800.0, scored=None)
    S.finish(bus, "a-2", 900.0, scored=1)
    S.finish(bus, "a-3", 2000.0, scored=None)
    await store.flush()
    await store.close()
    app = GauntletApp(store=db, live_refresh=False, toasts=True)
    async with app.run_test(size=(160, 50), notifications=True) as pilot:
        for _ in range(100):
            if len(app.adapter.views) == 3:
                break
            await pilot.pause(0.05)
        _literal(await _survives(app, pilot))
        app.action_past()
        await pilot.pause(0.5)
        _literal(await _survives(app, pilot))
        for _ in range(3):
            await pilot.press("down")
            await pilot.pause(0.3)
            await _survives(app, pilot)
        app.action_back()
        app.action_leaderboard()
        await pilot.pause(0.5)
        shown = await _survives(app, pilot)
        assert "\x07" not in shown and "\u202e" not in shown
        app.action_back()
        for a in ("a-1", "a-2", "a-3"):
            app.open_replay(a, speed=1000.0)
            await pilot.pause(0.5)
            shown = await _survives(app, pilot)
            assert type(app.screen).__name__ == "ReplayScreen", type(app.screen).__name__
            if a == "a-1":
                _literal(shown)
            app.action_back()
        await app.show_standings(["a-1", "a-2", "a-3"])
        await pilot.pause(0.3)
        shown = await _survives(app, pilot)
        assert type(app.screen).__name__ == "StandingsScreen"
        assert "\x07" not in shown and "\u202e" not in shown


def test_the_one_helper_makes_any_string_text():
    from textual.content import Content

    from gauntlet_tui.text import plain

    for s in (MARKUP, ANSI, RTL, BIG, DETAIL):
        out = plain(s)
        assert isinstance(out, str) and len(out) <= 4000
        assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out
        Content(out)  # never parsed
    assert plain(MARKUP) == MARKUP
    assert plain(RTL) == "rtl?txt.exe"
    assert plain(BIG, limit=50).endswith("…") and len(plain(BIG, limit=50)) == 50
