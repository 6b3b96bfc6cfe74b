"""The activity pane (pilot): a Claude Code attempt's steps, replayed from its real captured
stream-json, read one line each — what the model said and called, commands, reads and
edits merged in time with the observed commands, the submission and its feedback — with
no raw JSON; R shows the raw output and back. Hostile agent output (escape sequences,
Textual markup, a 10 MB line, undecodable bytes) is shown literally, and the app keeps
running (its quit link is text, never an action)."""

from __future__ import annotations

from pane_kit import replay
from tui_scenarios import Rig

from arena import events as ev
from gauntlet_tui.widgets import ActivityStream

AID = "a-0000000c"


def _lines(app) -> list[str]:
    log = app.screen.query_one(ActivityStream)
    return ["".join(seg.text for seg in strip) for strip in log.lines]


def _flat(app) -> str:
    """The pane's text with its wrapped lines joined (a line wraps at a space)."""
    return " ".join(ln.strip() for ln in _lines(app))


async def _open(rig, size=(200, 44)):
    app = rig.app(theme="gauntlet-dark")
    return app, app.run_test(size=size)


async def test_the_pane_shows_steps_not_raw_json_and_toggles_raw(tmp_path):
    rig = Rig()
    rig.start(AID, "sprint", challenge="off-by-one", title="The Off-By-One", agent="claude-code@anthropic/claude-sonnet-4-5",
              extra={"model": "anthropic/claude-sonnet-4-5"})  # fmt: skip
    calls = [{"text": "I look for a leaked key first.", "tools": ["Bash"]}, {"tools": ["Bash"]}]
    end = replay(rig.bus, AID, "claude-code", "claude_code_edit", calls=calls)
    rig.time.set(end)
    app, ctx = await _open(rig)
    async with ctx as pilot:
        pilot.app.tick(full=True)
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        pilot.app.tick()
        await pilot.pause()
        text = _flat(pilot.app)
        assert '{"type"' not in text and "session_id" not in text  # no raw JSON
        for want in ("▸ edit sorter.py +1 −1", "▸ read sorter.py", "▸ $ gauntlet-agent submit", "▸ Every test passes now. Done.",
                     'model "I look for a leaked key first." → Bash', "submission 1 received", "feedback 1 delivered",
                     "$ python -m pytest -q → exit 1"):  # fmt: skip
            assert want in text, want
        assert text.index("▸ read sorter.py") < text.index("▸ edit sorter.py") < text.index("submission 1 received")
        assert len(_lines(pilot.app)) == pilot.app.adapter.views[AID].readable_total  # one row each: never wrapped
        await pilot.press("R")
        await pilot.pause()
        raw = _flat(pilot.app)
        assert '{"type":"assistant"' in raw and "tool call" not in text
        await pilot.press("R")
        await pilot.pause()
        assert '{"type"' not in "\n".join(_lines(pilot.app))


async def test_hostile_agent_output_is_shown_literally():
    rig = Rig()
    rig.start(AID, "sprint", challenge="off-by-one", title="The Off-By-One", agent="evil")
    pub = lambda t, kind, data: rig.bus.publish(AID, t, kind, data)  # noqa: E731
    from arena.steps import parser_for

    p = parser_for("command")
    hostile = [
        "[@click=app.quit]quit[/] \x1b[2J\x1b]0;title\x07 [b]bold[/b]",
        "bytes \udcff\udcfe end",
        "x" * 10_000_000,
    ]
    for i, line in enumerate(hostile):
        pub(1.0 + i, ev.AGENT_OUTPUT, {"stream": "stdout", "text": line[:4096]})
        for s in p.feed("stdout", line, 1.0 + i):
            pub(1.0 + i, ev.AGENT_STEP, s.data())
    pub(5.0, ev.MODEL_CALL, {**{"provider": "openai", "model": "m", "status": 200, "latency_ms": 1},
                             "text": "[@click=app.quit]bye[/]", "input_tokens": 1, "output_tokens": 1})  # fmt: skip
    rig.time.set(6)
    app, ctx = await _open(rig)
    async with ctx as pilot:
        pilot.app.tick(full=True)
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        pilot.app.tick()
        await pilot.pause()
        lines = _lines(pilot.app)
        text = _flat(pilot.app)
        assert "▸ [@click=app.quit]quit[/] \\x1b[2J\\x1b]0;title\\x07 [b]bold[/b]" in text
        assert "\\xff\\xfe" in text and "\x1b" not in text
        assert '"[@click=app.quit]bye[/]"' in text
        assert max(len(ln) for ln in lines) < 400  # the 10 MB line: one capped line
        pane = pilot.app.screen.query_one(ActivityStream)
        for y in range(1, min(12, pane.size.height)):  # clicking over the lines is harmless: the markup was text
            await pilot.click(ActivityStream, offset=(14, y))
        await pilot.pause()
        assert pilot.app.is_running
        await pilot.press("R")
        await pilot.pause()
        raw = _flat(pilot.app)
        assert "[@click=app.quit]quit[/]" in raw and "\x1b" not in raw and "\x07" not in raw
