"""``gauntlet show ID --transcript`` (CONTRACT §11) on attempts whose transcripts the real
gateway wrote from three fake providers (kit.py): the assistant's text and tool calls
decoded from the stream, no SSE framing, what is new per call, lines of at most 400
characters; ``--raw`` is the stored dump, ``--call N`` one call, ``--json`` structured."""

from __future__ import annotations

import json

import pytest
from transcript_kit import TASK, stored_attempt

from gauntlet_tui.cli import main

AID = "a-tr00001"

WANT = {
    "claude-code": (
        [
            "Let me run the tests first.",
            "tool call Bash",
            "command: python -m pytest -q",
            "tool call Edit",
            "new_string: n",
            "Fixed the off-by-one in sorter.py; all tests pass.",
            "system: same as call 2",
            "call 2's answer, sent back (Bash)",
            "tool result (toolu_1)",
            "1 failed, 9 passed",
            "(stop: tool_use)",
        ],
        "event: message_start",
    ),
    "codex": (
        [
            "tool call shell (call_0)",
            'command: ["python", "-m", "pytest", "-q"]',
            "All tests pass now: the loop bound was wrong.",
            "system: same as call 1",
            "tools: same as call 1",
            "call 1's answer, sent back (shell)",
            "10 passed",
        ],
        "event: response.output_text.delta",
    ),
    "mini-swe-agent": (
        [
            "Let me look at the file.",
            "tool call bash (call_0_0)",
            "cmd: cat sorter.py",
            "Done: the slice ends one early; fixed it.",
            "system: same as call 1",
            "(stop: tool_calls)",
        ],
        "data: {",
    ),
}


def _show(capsys, db, *extra) -> tuple[int, str]:
    code = main(["show", AID, "--transcript", "--store", str(db), *extra])
    return code, capsys.readouterr().out


@pytest.mark.parametrize("kind", list(WANT))
def test_show_transcript_decodes_text_and_tool_calls(tmp_path, capsys, kind):
    db = stored_attempt(tmp_path / "g.db", kind)
    want, framing = WANT[kind]
    code, out = _show(capsys, db)
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith(f"{AID}  {kind}@") and "model call(s)" in lines[0]
    for w in want:
        assert w in out, (w, out)
    assert not any(ln.lstrip().startswith(("data:", "event:")) for ln in lines), out
    assert "[DONE]" not in out and '"delta"' not in out and "content_block" not in out
    assert max(map(len, lines)) <= 400
    assert out.count(TASK) == 1 + (kind == "claude-code")  # sent once (and once to the side call)
    assert "Rule 39" not in out  # the system prompt is shown by its start, not whole, and once
    assert "system (" in out and "$0.0" in out and " ms" in out  # cost and latency per call

    # --raw: today's dump, the stored bodies with their framing
    code, raw = _show(capsys, db, "--raw")
    assert code == 0 and framing in raw and "--- call 1: " in raw and "Rule 39" in raw

    # --call N: that call alone, in full
    n = 2
    code, one = _show(capsys, db, "--call", str(n))
    assert code == 0 and f"\ncall {n} · " in one and "\ncall 1 · " not in one and f"call {n + 1} ·" not in one

    # --json: the decoded calls
    code, text = _show(capsys, db, "--json")
    doc = json.loads(text)
    assert code == 0 and doc["attempt"] == AID and doc["usage"]["calls"] == len(doc["calls"])
    called = [t["name"] for c in doc["calls"] for t in c["answer"]["tool_calls"]]
    assert called and all(c["answer"]["stop_reason"] for c in doc["calls"])
    assert all(c["cost_usd"] is not None and c["latency_ms"] is not None for c in doc["calls"])
    assert doc["calls"][-1]["new_messages"] and doc["calls"][-1]["system"].get("same_as_call")


def test_call_numbers_out_of_range_and_misused_flags_exit_2(tmp_path, capsys):
    db = stored_attempt(tmp_path / "g.db", "mini-swe-agent")
    for bad in ("3", "0", "-1"):
        assert main(["show", AID, "--transcript", "--call", bad, "--store", str(db)]) == 2
        err = capsys.readouterr().err
        assert f"--call {bad}" in err and "holds 2 call(s): 1..2" in err and "Traceback" not in err
    assert main(["show", AID, "--call", "1", "--store", str(db)]) == 2
    assert "--call: goes with --transcript" in capsys.readouterr().err
    code, raw = _show(capsys, db, "--raw", "--call", "2")
    assert code == 0 and "--- call 2: " in raw and "--- call 1: " not in raw
