"""OpenHands' event stream as the launcher prints it (launchers/openhands_run.py: one JSON
line per event, ``{"kind": EVENT TYPE, "source", "tool", "action": {...}}``, and a last
``{"kind": "finished", "status"}``) as steps.

An ``ActionEvent``'s action is a step by tool: ``terminal`` (TerminalAction, or the older
CmdRunAction): command ``$ …``; ``file_editor`` (FileEditorAction / FileEditAction):
``view`` a read, ``create`` / ``str_replace`` / ``insert`` an edit ``file +a −r``;
``finish`` (FinishAction): its message as text; ``think``: text; MCP tools and others:
tool. Text the event carries (``thought``, a message's ``text``) is a text step; an
``AgentErrorEvent`` (its ``error``) and a finish other than ``finished`` are errors. Other
events (observations, state updates, the prompt) make no step; lines that are not JSON
are plain text steps (on stderr: only errors).
"""

from __future__ import annotations

from typing import Any

from arena.steps.base import (
    JsonStepParser,
    Step,
    joined,
    lines_of,
    one_line,
    short_path,
    text_step,
)


def action_step(tool: str, action: dict[str, Any]) -> Step | None:
    kind = str(action.get("kind") or "")
    if tool in ("terminal", "execute_bash", "bash") or kind in ("TerminalAction", "CmdRunAction", "ExecuteBashAction"):
        cmd = str(action.get("command", ""))
        if action.get("is_input"):
            return Step("tool", one_line(f"terminal input {cmd}"))
        return Step("command", one_line("$ " + cmd), joined([cmd if "\n" in cmd else ""]))
    if tool in ("file_editor", "str_replace_editor") or kind in (
        "FileEditorAction",
        "FileEditAction",
        "FileReadAction",
    ):
        return _file_step(action)
    if tool == "finish" or kind in ("FinishAction", "AgentFinishAction"):
        msg = action.get("message") or action.get("final_thought") or "finished"
        return text_step(msg)
    if tool == "think" or kind in ("ThinkAction", "AgentThinkAction"):
        return text_step(action.get("thought")) if action.get("thought") else None
    raw = action.get("data")
    data: dict[str, Any] = raw if isinstance(raw, dict) else {}
    brief = next((v for v in data.values() if isinstance(v, str) and v), "")
    return Step("tool", one_line(f"{tool or kind or 'tool'} {brief[:300]}".rstrip()))


def _file_step(action: dict[str, Any]) -> Step:
    cmd = str(action.get("command", "view"))
    path = short_path(action.get("path"))
    if cmd == "view" or action.get("kind") == "FileReadAction":
        rng = action.get("view_range")
        span = f" (lines {rng[0]}–{rng[1]})" if isinstance(rng, list) and len(rng) == 2 else ""
        return Step("read", one_line(path + span))
    if cmd == "create":
        return Step("edit", one_line(f"{path} +{lines_of(action.get('file_text'))} (created)"))
    if cmd == "undo_edit":
        return Step("edit", one_line(f"{path} (edit undone)"))
    added, removed = lines_of(action.get("new_str")), lines_of(action.get("old_str"))
    return Step("edit", one_line(f"{path} +{added} −{removed}"))


class OpenHandsParser(JsonStepParser):
    name = "openhands"

    def event(self, obj: dict[str, Any]) -> list[Step]:
        kind = str(obj.get("kind", ""))
        out: list[Step] = []
        for key in ("thought", "text"):
            said = obj.get(key)
            if isinstance(said, str) and said.strip() and obj.get("source") != "user":
                out.append(text_step(said))
        if kind == "ActionEvent" and isinstance(obj.get("action"), dict):
            step = action_step(str(obj.get("tool") or ""), obj["action"])
            if step is not None:
                out.append(step)
        elif kind == "AgentErrorEvent" or (kind.endswith("ErrorEvent") and obj.get("error")):
            err = obj.get("error") or kind
            out.append(Step("error", one_line(err), joined([err]) if isinstance(err, str) else None))
        elif kind == "finished":
            status = str(obj.get("status", ""))
            if status and not status.lower().endswith("finished"):
                out.append(Step("error", one_line(f"run ended: {status}")))
        return out
