"""Keys people know (? help, q quit, ctrl+p palette) and the three themes, remembered."""

from __future__ import annotations

import json

from textual.command import CommandPalette

import tui_scenarios as S
from gauntlet_tui import settings
from themes import THEME_NAMES


async def test_question_mark_shows_the_screen_keys_with_tooltips(rig):
    rig.start("a-1", "sprint")
    app = rig.app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("question_mark")
        await pilot.pause()
        assert type(app.screen).__name__ == "HelpScreen"
        text = str(app.screen.query_one("Static").render())
        for needle in ("Filter the attempts by any text", "Stop the selected attempt", "ctrl+p"):
            assert needle in text
        await pilot.press("escape")
        assert type(app.screen).__name__ == "HomeScreen"


async def test_every_binding_has_an_id_and_a_tooltip():
    from gauntlet_tui import keys
    from textual.binding import Binding

    bindings = [v for v in vars(keys).values() if isinstance(v, Binding)]
    assert len(bindings) >= 15
    assert all(b.id and b.tooltip for b in bindings)
    assert len({b.id for b in bindings}) == len(bindings)


async def test_q_at_home_quits(rig):
    app = rig.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 0 and not app.is_running


async def test_q_at_home_with_live_attempts_asks_before_stopping_them(rig):
    rig.start("a-1", "sprint")
    handle = S.RecordingHandle(rig, "a-1")
    rig.adapter.attach_handle("a-1", handle)
    app = rig.app()
    async with app.run_test(size=(100, 30)) as pilot:
        app.tick(full=True)
        await pilot.press("q")
        await pilot.pause()
        assert type(app.screen).__name__ == "ConfirmScreen"
        await pilot.press("n")
        await pilot.pause()
        assert app.is_running and handle.stopped == 0
        await pilot.press("q")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
        assert handle.stopped == 1
    assert not app.is_running


async def test_three_themes_registered_dark_is_default(rig):
    app = rig.app()
    async with app.run_test(size=(100, 30)):
        assert set(THEME_NAMES) == {"gauntlet-dark", "gauntlet-light", "gauntlet-projector"}
        assert set(THEME_NAMES) <= set(app.available_themes)
        assert app.theme == "gauntlet-dark"


async def test_theme_switch_from_the_palette_is_remembered(rig, _config_dir):
    app = rig.app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("ctrl+p")
        await pilot.pause()
        assert isinstance(app.screen, CommandPalette)
        await pilot.press(*"gauntlet-projector")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause(0.3)
        assert app.theme == "gauntlet-projector"
    saved = json.loads((_config_dir / "settings.json").read_text())
    assert saved == {"theme": "gauntlet-projector"}
    again = rig.app()
    async with again.run_test(size=(120, 40)):
        assert again.theme == "gauntlet-projector"


async def test_projector_theme_shows_the_clock_in_large_digits(rig):
    rig.start("a-1", "sprint")
    settings.save(theme="gauntlet-projector")
    app = rig.app()
    async with app.run_test(size=(120, 40)) as pilot:
        app.tick(full=True)
        await pilot.press("enter")
        await pilot.pause()
        digits = app.screen.query_one("#clock-digits")
        assert digits.display and digits.size.height == 3
        app.theme = "gauntlet-dark"
        await pilot.pause()
        assert not digits.display


def test_a_broken_settings_file_means_defaults(_config_dir):
    _config_dir.mkdir(parents=True)
    (_config_dir / "settings.json").write_text("{not json")
    assert settings.load() == {}
    settings.save(theme="gauntlet-light")
    assert settings.load() == {"theme": "gauntlet-light"}


def test_screens_use_theme_variables_never_colour_literals():
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "gauntlet_tui"
    literal = re.compile(r"#[0-9A-Fa-f]{3,8}\b|\brgb\(|\b(?:red|green|yellow|blue|magenta|cyan|white|black)\b")
    offenders = [
        f"{p.name}:{i}: {line.strip()}"
        for p in root.rglob("*.py")
        for i, line in enumerate(p.read_text().splitlines(), 1)
        if literal.search(line)
    ]
    assert offenders == []


async def test_textual_own_themes_still_work(rig):
    """Our extra variables have defaults, so switching to a stock theme cannot break CSS."""
    rig.start("a-1", "marathon")
    app = rig.app()
    async with app.run_test(size=(120, 40)) as pilot:
        app.tick(full=True)
        await pilot.press("enter")
        await pilot.pause()
        app.theme = "textual-dark"
        await pilot.pause()
        assert app.theme == "textual-dark" and app.screen.query("PhaseBadge")
