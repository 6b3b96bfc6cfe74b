"""File names are data: a name with undecodable bytes (0xFF) or terminal escape codes,
made by agent code in its sandbox, is stored losslessly, never refuses an event, and the
attempt is judged and rated; ``printable`` strips control sequences for every edge."""

from __future__ import annotations

import asyncio
import base64
import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # attempt_kit

from arena.challenge import load_challenge  # noqa: E402
from arena.clock import ManualTime  # noqa: E402
from arena.scoring import judge_attempt  # noqa: E402
from arena import events as ev  # noqa: E402
from arena.text import path_fields, path_from_fields, printable  # noqa: E402
from attempt_kit import drive, make_package, of, open_arena, stored  # noqa: E402

BAD = b"bad\xffname.py"
ESC = b"esc\x1b[31mred\x1b]0;owned\x07.py"


def test_printable_strips_control_sequences_and_keeps_names():
    assert printable("a\x1b[2J\x1b[31mb\x1b]0;title\x07c\x9b1md\x07e") == "abcd?e"
    assert printable("line1\nline2\tx") == "line1\nline2\tx"
    assert printable("one\nline", newlines=False) == "one?line"
    name = os.fsdecode(BAD)
    assert printable(name) == "bad\\xffname.py"
    f = path_fields(name)
    assert f["path"] == "bad\\xffname.py" and base64.b64decode(f["path_b64"]) == BAD
    assert path_from_fields(f) == name
    assert path_fields("plain/ok.py") == {"path": "plain/ok.py"}


@pytest.mark.parametrize("sandbox", ["local", pytest.param("docker", marks=pytest.mark.docker)])
async def test_undecodable_and_escape_names_are_judged_and_rated(tmp_path, sandbox):
    make = (
        "printf 'x = 1\\n' > \"$(printf 'bad\\377name.py')\" && "
        "printf 'y = 2\\n' > \"$(printf 'esc\\033[31mred\\033]0;owned\\007.py')\""
    )
    pkg = make_package(
        tmp_path / "pkg", fmt="sprint", agents={"names": [{"run": make}, {"overlay": "agents/fixed"}, "submit"]}
    )
    clock = ManualTime()
    arena = await open_arena(tmp_path, clock, sandbox=sandbox)
    try:
        a = arena.attempt(load_challenge(pkg), "scripted:names")
        [status] = await asyncio.wait_for(drive(arena, [a], clock, step=30.0), 240)
        events = await stored(arena, a.id)
        refused = arena.store.rejected  # events the store could not hold
    finally:
        await arena.close()
    assert not refused, [(e.kind, e.data) for e in refused]
    assert status == "finished", [e.data for e in of(events, ev.INFRA_ERROR)]
    assert not of(events, ev.INFRA_ERROR)
    run = of(events, ev.COMMAND_RUN)
    assert run and run[0].data["exit_code"] == 0, run
    raw = {base64.b64decode(e.data["path_b64"]) for e in of(events, ev.FILE_CHANGED) if "path_b64" in e.data}
    assert {BAD, ESC} <= raw, [e.data for e in of(events, ev.FILE_CHANGED)]
    for e in of(events, ev.FILE_CHANGED):
        assert "\x1b" not in e.data["path"] and printable(e.data["path"]) == e.data["path"]
    assert of(events, ev.SUBMISSION_JUDGED)
    fb = of(events, ev.FEEDBACK_DELIVERED)
    assert fb and fb[0].data["feedback"]["tests"]["failed"] == 0, fb[0].data
    assert events[-1].data["scored_submission"] == 1
    card = judge_attempt(events)
    assert card.scored_submission == 1 and card.total > 0, card
    assert card.to_json()  # the scorecard (what the leaderboard reads) encodes
    # the report: agent text (here planted in a feedback document) reaches it stripped
    from arena.scoring.report import render_html, render_markdown

    fbe = fb[0]
    planted = {**fbe.data["feedback"], "note": "left\x1b[2J\x1b]0;owned\x07right"}
    evil = fbe.model_copy(update={"data": {**fbe.data, "feedback": planted}})
    doc = [evil if e is fbe else e for e in events]
    for text in (render_markdown(card, doc), render_html(card, doc)):
        assert "\x1b" not in text and "\x07" not in text, repr(
            text[max(0, text.find("\x1b") - 200) : text.find("\x1b") + 50]
        )
        assert "leftright" in text or "left\\u001b" in text
    # the CLI's attempts and show print no control sequence of the agent's
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    for argv in (["attempts"], ["show", a.id]):
        r = subprocess.run(
            [sys.executable, "-m", "gauntlet_tui", *argv, "--store", str(tmp_path / "g.db")],
            capture_output=True,
            env=env,
            timeout=60,
        )
        assert r.returncode == 0, r.stderr
        assert b"\x1b" not in r.stdout and a.id.encode() in r.stdout
