"""Hostile agent output never breaks a parser and never reaches a step unescaped: a 10 MB
line, escape sequences, markup, undecodable bytes, JSON nested past the parser's depth or
cut into pieces, values of every wrong type."""

from __future__ import annotations

import json
import time

import pytest

from arena.steps import PARSERS, TEXT_CAP, parser_for

ADAPTERS = [*PARSERS, "command"]
HOSTILE = [
    "\x1b[2J\x1b]0;pwned\x07[@click=app.quit]quit[/] \x9b31m",
    "bad \udcff\udcfe bytes \ufffd and a bell \x07",
    "[" * 100000,
    "{" * 100000,
    '{"type": "assistant", "message": {"content": [{"type": "text", "text": "\\u001b[31mred\\u001b[0m [b]x[/b]"}]}}',
    '{"type": "item.completed", "item": {"type": "command_execution", "command": ["\\u001b[2J", 3, null], "exit_code": "x"}}',
    '{"kind": "ActionEvent", "tool": 5, "action": {"command": {"a": 1}, "path": [1], "kind": 7}}',
    '{"type": "assistant", "message": {"content": "not a list"}}',
    '{"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": [1], "content": 5}]}}',
    "[1, 2]",
    "mini-swe-agent (step 1, $0.00):",
    "```",
    "Applied edit to \x1b[31mx.py",
]


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_hostile_lines_make_safe_steps_or_none(adapter):
    p = parser_for(adapter)
    steps = []
    for stream in ("stdout", "stderr"):
        for line in HOSTILE:
            steps += p.feed(stream, line, 1.0)
    steps += p.finish()
    for s in steps:
        assert len(s.text) <= TEXT_CAP and not any(c in s.text for c in "\x1b\x07\x9b\n")
        assert all(0xD800 > ord(c) or ord(c) > 0xDFFF for c in s.text + (s.detail or ""))
        assert "\x1b" not in (s.detail or "")


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_a_10_mb_line_in_pieces_is_cheap_and_bounded(adapter):
    p = parser_for(adapter)
    big = json.dumps({"type": "user", "message": {"content": [{"type": "tool_result", "content": "y" * 10_000_000}]}})
    t0 = time.perf_counter()
    steps = [s for i in range(0, len(big), 65536) for s in p.feed("stdout", big[i : i + 65536], 1.0)]
    steps += p.feed("stdout", "x" * 10_000_000, 2.0)  # and once whole
    assert time.perf_counter() - t0 < 2.0
    assert all(len(s.text) <= TEXT_CAP and len(s.detail or "") <= 4000 for s in steps)
    # the parser still works after it
    after = p.feed("stdout", json.dumps({"type": "item.completed", "item": {"type": "agent_message", "text": "ok"}}), 3)
    assert adapter != "codex" or [s.text for s in after] == ["ok"]


def test_a_json_event_cut_into_pieces_is_joined():
    p = parser_for("codex")
    line = json.dumps({"type": "item.completed", "item": {"type": "agent_message", "text": "joined " + "z" * 100000}})
    pieces = [line[i : i + 65536] for i in range(0, len(line), 65536)]
    got = [s for piece in pieces for s in p.feed("stdout", piece, 0.0)]
    assert len(got) == 1 and got[0].text.startswith("joined zzz") and got[0].text.endswith("…")


def test_step_text_shows_escape_sequences_literally():
    p = parser_for("claude-code")
    ev = {"type": "assistant", "message": {"content": [{"type": "text", "text": "\x1b[31mred [@click=app.quit]"}]}}
    (step,) = p.feed("stdout", json.dumps(ev), 0.0)
    assert step.text == "\\x1b[31mred [@click=app.quit]"
