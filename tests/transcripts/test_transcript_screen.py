"""The TUI's transcript screen (issue 35 item 3): reached with ``t`` from past attempts and
from the attempt view, calls listed one line each, the highlighted call opened beside
them (``[``/``]`` page through), hostile text shown literally; the transcript is the one
the real gateway wrote (kit.py)."""

from __future__ import annotations

import json
import os

import pytest
from transcript_kit import record_attempt
from textual.widgets import OptionList, Static

from arena.gateway.transcript import TranscriptWriter
from gauntlet_tui.app import GauntletApp
from gauntlet_tui.screens.transcript import TranscriptScreen

AID = "a-tr00001"
HOSTILE = "pwned\x1b[2J\x1b]0;title\x07 [@click=app.quit]quit[/] [b]not bold[/b] \udcff"


@pytest.fixture(autouse=True)
def _config_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("GAUNTLET_CONFIG_DIR", str(tmp_path / "config"))


async def _until(pilot, cond, what: str):
    for _ in range(600):  # 30 s: a loaded CI machine
        if cond():
            return
        await pilot.pause(0.05)
    raise AssertionError(what)


def _body(app) -> str:
    return app.screen.query_one("#transcript-call-body", Static).content.plain


async def test_transcript_screen_lists_calls_opens_one_and_shows_hostile_text_literally(tmp_path):
    db = await record_attempt(tmp_path / "g.db", "claude-code")
    w = TranscriptWriter(db.with_name(db.name + ".d") / "transcripts", AID)  # a fifth call, hostile
    body = {"choices": [{"message": {"content": HOSTILE}, "finish_reason": "stop"}]}
    meta = {"provider": "openai", "model": "m", "endpoint": "/v1/chat/completions", "status": 200}
    w.record(meta, b'{"messages": [{"role": "user", "content": "[red]x[/red]"}]}', json.dumps(body).encode())

    app = GauntletApp(store=db, live_refresh=False)
    async with app.run_test(size=(150, 36)) as pilot:
        await _until(pilot, lambda: AID in app.adapter.views, "the store's attempt loaded")
        await pilot.press("a")
        await _until(pilot, lambda: type(app.screen).__name__ == "PastScreen", "past attempts")
        await pilot.press("t")
        await _until(pilot, lambda: isinstance(app.screen, TranscriptScreen), "the transcript screen")
        calls = app.screen.query_one(OptionList)
        await _until(pilot, lambda: calls.option_count == 5, "five calls listed")
        await _until(pilot, lambda: "call 1 ·" in _body(app), "call 1 opened")
        assert "Gauntlet task" in _body(app) and "Write a title." in _body(app)
        await pilot.press("right_square_bracket")
        await _until(pilot, lambda: "call 2 ·" in _body(app), "call 2 opened")
        assert "tool call Bash (toolu_1)" in _body(app) and "command: python -m pytest -q" in _body(app)
        for _ in range(5):  # past the last call: stays on it
            await pilot.press("right_square_bracket")
        await _until(pilot, lambda: "call 5 ·" in _body(app), "call 5 opened")
        text = _body(app)
        assert "[@click=app.quit]quit[/] [b]not bold[/b]" in text and "[red]x[/red]" in text
        assert "\x1b" not in text and "\x07" not in text and "\udcff" not in text
        await pilot.pause()
        if os.environ.get("GAUNTLET_SHOTS"):
            app.save_screenshot(os.environ["GAUNTLET_SHOTS"] + "/transcript_hostile.svg")
        await pilot.press("left_square_bracket", "left_square_bracket")
        await _until(pilot, lambda: "call 3 ·" in _body(app), "call 3 opened")
        assert "call 2's answer, sent back (Bash)" in _body(app)
        await pilot.pause()
        if os.environ.get("GAUNTLET_SHOTS"):
            app.save_screenshot(os.environ["GAUNTLET_SHOTS"] + "/transcript.svg")
        assert app.is_running  # the markup in the text ran nothing

        await pilot.press("escape", "escape")  # from the attempt view too
        app.open_attempt_screen(AID)
        await _until(pilot, lambda: type(app.screen).__name__ == "AttemptScreen", "the attempt view")
        await pilot.press("t")
        await _until(pilot, lambda: isinstance(app.screen, TranscriptScreen), "the transcript screen again")
        assert app.screen.live is False  # a finished attempt: nothing to poll
        await _until(pilot, lambda: app.screen.query_one(OptionList).option_count == 5, "listed again")


async def test_a_live_attempts_new_calls_are_added_as_they_are_written(tmp_path):
    db = await record_attempt(tmp_path / "g.db", "mini-swe-agent")
    app = GauntletApp(store=db, live_refresh=False)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = TranscriptScreen(db, AID, live=True)
        await app.push_screen(screen)
        await pilot.pause()
        calls = screen.query_one(OptionList)
        await _until(pilot, lambda: calls.option_count == 2, "two calls listed")
        w = TranscriptWriter(db.with_name(db.name + ".d") / "transcripts", AID)
        body = {"choices": [{"message": {"content": "a third answer"}, "finish_reason": "stop"}]}
        meta = {"provider": "openai", "model": "gpt-4.1-mini", "endpoint": "/v1/chat/completions", "status": 200}
        w.record(meta, b'{"messages": []}', json.dumps(body).encode())
        screen.load_more()  # what its 2-second timer does
        await _until(pilot, lambda: calls.option_count == 3, "the third call added")
        assert "a third answer" in str(calls.get_option_at_index(2).prompt)
        assert "(live)" in app.screen.query_one("#transcript-info", Static).content.plain
