"""Each adapter's parser on its real captured output (fixtures/, from capture.py), and on
the event shapes the stand-ins do not make (Claude Code's Edit/Write/Read tools, Codex's
file_change, OpenHands' file editor), plus the plain parser of agent files."""

from __future__ import annotations

import json

from steps_kit import captured, kinds, steps_of

from arena.steps import DETAIL_CAP, TEXT_CAP, parser_for


def _check_caps(steps):
    for s in steps:
        assert s.step in ("text", "command", "edit", "read", "tool", "error")
        assert 0 < len(s.text) <= TEXT_CAP and "\n" not in s.text and "\x1b" not in s.text
        assert s.detail is None or len(s.detail) <= DETAIL_CAP


def test_claude_code_stream_json():
    steps = steps_of("claude-code", captured("claude_code"))
    _check_caps(steps)
    cmds = [s.text for s in steps if s.step == "command"]
    assert cmds[1] == "$ cat sorter.py | head -80 && python -m pytest -q -p no:cacheprovider 2>&1 | tail -5"
    assert cmds[-1] == "$ gauntlet-agent submit"
    assert [s.text for s in steps if s.step == "text"][-1] == "Every test passes now. Done."
    read = next(s for s in steps if s.text.startswith("$ cat sorter.py"))
    assert "A small stable sort" in read.detail  # the tool result is the detail, never the text
    assert not any(s.text.startswith("{") for s in steps)  # no raw JSON
    assert len(steps) <= 12  # 19 lines of JSON events, the init event alone 3 KB


def test_claude_code_edit_read_write_and_a_failed_tool():
    ev = [
        {"type": "system", "subtype": "init", "cwd": "/workspace", "tools": ["Bash"] * 40},
        {"type": "assistant", "message": {"content": [
            {"type": "text", "text": "I will read it first.\nThen fix it."},
            {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "/workspace/sorter.py"}},
        ]}},
        {"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "t1", "content": "x" * 50000}]}},
        {"type": "assistant", "message": {"content": [{"type": "tool_use", "id": "t2", "name": "Edit", "input": {
            "file_path": "/workspace/sorter.py", "old_string": "a\nb\n", "new_string": "c\n"}}]}},
        {"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "t2", "content": "ok"}]}},
        {"type": "assistant", "message": {"content": [{"type": "tool_use", "id": "t3", "name": "Write", "input": {
            "file_path": "/workspace/NOTES.md", "content": "one\ntwo\nthree"}}]}},
        {"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "t3", "content": "done"}]}},
        {"type": "assistant", "message": {"content": [{"type": "tool_use", "id": "t4", "name": "mcp__gauntlet__submit", "input": {}}]}},
        {"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "t4", "is_error": True,
                                                   "content": [{"type": "text", "text": "refused: no budget"}]}]}},
        {"type": "result", "subtype": "error_max_turns", "is_error": True},
    ]  # fmt: skip
    steps = steps_of("claude-code", [("stdout", json.dumps(e)) for e in ev])
    _check_caps(steps)
    assert [(s.step, s.text) for s in steps] == [
        ("text", "I will read it first. …"),
        ("read", "sorter.py"),
        ("edit", "sorter.py +1 −2"),
        ("edit", "NOTES.md +3 (written)"),
        ("error", "gauntlet.submit failed: refused: no budget"),
        ("error", "run ended: error_max_turns"),
    ]
    assert steps[0].detail == "I will read it first.\nThen fix it."
    assert len(steps[1].detail) == DETAIL_CAP  # 50 KB of file: cut in the detail


def test_claude_code_long_tool_is_shown_when_it_reports_running():
    p = parser_for("claude-code")
    use = {"type": "assistant", "message": {"content": [
        {"type": "tool_use", "id": "t9", "name": "Bash", "input": {"command": "gauntlet-agent submit"}}]}}  # fmt: skip
    assert p.feed("stdout", json.dumps(use), 1.0) == []  # held for its result
    started = {"type": "system", "subtype": "task_started", "tool_use_id": "t9"}
    assert [s.text for s in p.feed("stdout", json.dumps(started), 2.0)] == ["$ gauntlet-agent submit"]
    assert p.finish() == []


def test_codex_exec_json():
    steps = steps_of("codex", captured("codex"))
    _check_caps(steps)
    cmds = [s for s in steps if s.step == "command"]
    assert cmds[1].text == "$ cat sorter.py | head -80 && python -m pytest -q -p no:cacheprovider 2>&1 | tail -5"
    assert "3 failed, 6 passed" in cmds[1].detail  # its output, as detail
    assert not any("/bin/sh -lc" in s.text for s in steps)  # the shell wrapper is unwrapped
    assert "text" in kinds(steps) and "error" in kinds(steps)  # Codex's own error item (model metadata)
    # started, never completed (Codex moved on): shown when the next item came
    assert [s.text for s in steps][-2:] == ["$ gauntlet-agent submit", "I am done."]


def test_codex_apply_patch_is_an_edit():
    steps = steps_of("codex", captured("codex_patch"))  # a real run: apply_patch through exec_command
    assert ("edit", "sorter.py (update)") in [(s.step, s.text) for s in steps]
    assert kinds(steps).count("command") == 4


def test_claude_code_read_and_edit_tools():
    steps = steps_of("claude-code", captured("claude_code_edit"))  # a real run: Read, then Edit
    pairs = [(s.step, s.text) for s in steps]
    assert pairs.index(("read", "sorter.py")) < pairs.index(("edit", "sorter.py +1 −1"))
    read = steps[pairs.index(("read", "sorter.py"))]
    assert len(read.detail) == 4000 and "small stable sort" in read.detail  # the file: detail, capped


def test_codex_file_change_mcp_and_legacy_shapes():
    ev = [
        {"type": "item.completed", "item": {"id": "i1", "type": "reasoning", "text": "hmm"}},
        {"type": "item.completed", "item": {"id": "i2", "type": "file_change", "status": "completed",
                                             "changes": [{"path": "/workspace/sorter.py", "kind": "update"}]}},
        {"type": "item.completed", "item": {"id": "i3", "type": "mcp_tool_call", "server": "gauntlet",
                                             "tool": "submit", "status": "completed"}},
        {"type": "item.completed", "item": {"id": "i4", "type": "command_execution", "command": "bash -lc 'false'",
                                             "exit_code": 1, "aggregated_output": ""}},
        {"type": "turn.failed", "error": {"message": "stream disconnected"}},
        {"id": "0", "msg": {"type": "exec_command_begin", "command": ["bash", "-lc", "ls"]}},
        {"id": "0", "msg": {"type": "patch_apply_begin", "changes": {"a.py": {"add": {"content": "x"}}}}},
        {"id": "0", "msg": {"type": "agent_message", "message": "Done."}},
    ]  # fmt: skip
    steps = steps_of("codex", [("stdout", json.dumps(e)) for e in ev])
    assert [(s.step, s.text) for s in steps] == [
        ("edit", "sorter.py (update)"),
        ("tool", "gauntlet.submit"),
        ("command", "$ false → exit 1"),
        ("error", "turn failed: stream disconnected"),
        ("command", "$ ls"),
        ("edit", "a.py (add)"),
        ("text", "Done."),
    ]


def test_mini_swe_agent_trajectory_is_a_handful_of_steps():
    lines = captured("mini_swe_agent")
    steps = steps_of("mini-swe-agent", lines)
    _check_caps(steps)
    assert len(lines) > 400 and len(steps) <= 12
    assert kinds(steps)[:6] == ["text", "command", "text", "command", "text", "command"]
    assert steps[0].text == "Let me read the code and run the visible tests first."
    # rich wrapped the command at 80 columns: joined back
    assert steps[1].text == "$ cat sorter.py | head -80 && python -m pytest -q -p no:cacheprovider 2>&1 | tail -5"
    assert steps[-1] == ("error", "exit: RepeatedFormatError", None)


def test_mini_swe_agent_text_based_thought_and_bash_block():
    out = ["mini-swe-agent (step 1, $0.01):", "THOUGHT: I list the files.", "", "```bash", "ls -la", "```",
           "", "Tool:", "<returncode>", "2", "<output>", "ls: cannot access", "─" * 80, "", "Exit:", ""]  # fmt: skip
    steps = steps_of("mini-swe-agent", [("stdout", ln) for ln in out])
    assert [(s.step, s.text) for s in steps] == [
        ("text", "I list the files."),
        ("command", "$ ls -la"),
        ("error", "$ ls -la → exit 2"),
        ("text", "finished (submitted)"),
    ]


def test_aider_output():
    steps = steps_of("aider", captured("aider"))
    _check_caps(steps)
    assert [(s.step, s.text) for s in steps] == [
        ("read", "sorter.py"),
        ("read", "test_sorter.py"),
        ("text", "The one-element bug is the loop bound in `_find_runs`: `while start < n - 1` never …"),
        ("edit", "sorter.py +1 −1"),
        ("command", "$ gauntlet-submit-check (aider's --auto-test)"),
        ("text", "The feedback still shows a stability failure: the descending-run check uses `<=`, …"),
        ("edit", "sorter.py +3 −3"),
        ("command", "$ gauntlet-submit-check (aider's --auto-test)"),
    ]


def test_openhands_events():
    ev = [
        {"kind": "SystemPromptEvent", "source": "agent"},
        {"kind": "MessageEvent", "source": "user"},
        {"kind": "ActionEvent", "source": "agent", "tool": "terminal",
         "action": {"command": "cat sorter.py", "is_input": False, "kind": "TerminalAction"}},
        {"kind": "ObservationEvent", "source": "environment"},
        {"kind": "ActionEvent", "source": "agent", "tool": "file_editor", "action": {
            "command": "view", "path": "/workspace/sorter.py", "kind": "FileEditorAction"}},
        {"kind": "ActionEvent", "source": "agent", "tool": "file_editor", "action": {
            "command": "str_replace", "path": "/workspace/sorter.py", "old_str": "a", "new_str": "b\nc",
            "kind": "FileEditorAction"}},
        {"kind": "AgentErrorEvent", "source": "agent", "error": "tool crashed"},
        {"kind": "ActionEvent", "source": "agent", "tool": "finish", "action": {"message": "Fixed.", "kind": "FinishAction"}},
        {"kind": "finished", "status": "ConversationExecutionStatus.FINISHED"},
    ]  # fmt: skip
    steps = steps_of("openhands", [("stdout", json.dumps(e)) for e in ev])
    assert [(s.step, s.text) for s in steps] == [
        ("command", "$ cat sorter.py"),
        ("read", "sorter.py"),
        ("edit", "sorter.py +2 −1"),
        ("error", "tool crashed"),
        ("text", "Fixed."),
    ]


def test_agent_file_plain_output_is_rate_bounded_text():
    p = parser_for("command")
    assert [s.text for s in p.feed("stdout", "hello\tworld", 0.0)] == ["hello world"]
    assert p.feed("stdout", "   ", 0.0) == []
    made = sum(len(p.feed("stdout", f"line {i}", 1.0)) for i in range(5000))
    assert 150 <= made <= 260  # a burst of 200, then 20 a second
    assert len(p.feed("stdout", "later", 60.0)) == 1


def test_openhands_captured_run():
    steps = steps_of("openhands", captured("openhands"))  # a real run: its warnings on stderr make no step
    _check_caps(steps)
    assert kinds(steps) == ["command", "command", "command", "command", "text"]
    assert steps[-1].text.startswith("Fixed the one-element run bound")
