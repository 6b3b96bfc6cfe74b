"""Claude Code's ``--output-format stream-json`` (one JSON event a line) as steps.

``assistant`` events carry the model's content blocks: ``text`` is a text step, a
``tool_use`` block a step by tool (Bash: command ``$ …``; Edit/MultiEdit/Write/
NotebookEdit: edit ``file +a −r``; Read: read; anything else, MCP tools included: tool).
A tool's step is given when its result arrives (the ``user`` event's ``tool_result``,
kept as the step's detail, capped: never a whole file as text), or earlier when Claude
Code reports the tool still running (``task_started``, ``tool_progress``). ``result``
ends the run (an error result is an error step); the ``system`` init event, hooks and
usage make no step. Lines that are not JSON are plain text steps (on stderr: only errors).
"""

from __future__ import annotations

from typing import Any

from arena.steps.base import (
    JsonStepParser,
    Step,
    block,
    joined,
    lines_of,
    one_line,
    short_path,
    text_step,
)

_EDITS = {"Edit", "MultiEdit", "Write", "NotebookEdit"}


def tool_step(name: str, inp: dict[str, Any], cwd: str | None = None) -> Step:
    """The step a tool call is, by tool name and input (Claude Code's tool set)."""
    if name == "Bash":
        cmd = str(inp.get("command", ""))
        desc = inp.get("description")
        detail = joined([cmd if "\n" in cmd or len(cmd) > 150 else "", desc])
        return Step("command", one_line("$ " + cmd), detail)
    if name in _EDITS:
        path = short_path(inp.get("file_path") or inp.get("notebook_path"), cwd)
        if name == "Write":
            return Step("edit", one_line(f"{path} +{lines_of(inp.get('content'))} (written)"))
        edits = inp.get("edits") if name == "MultiEdit" else [inp]
        pairs = [e for e in edits if isinstance(e, dict)] if isinstance(edits, list) else []
        added = sum(lines_of(e.get("new_string") or e.get("new_source")) for e in pairs)
        removed = sum(lines_of(e.get("old_string")) for e in pairs)
        return Step("edit", one_line(f"{path} +{added} −{removed}"))
    if name == "Read":
        path = short_path(inp.get("file_path"), cwd)
        off, lim = inp.get("offset"), inp.get("limit")
        span = f" (lines {off}–{int(off) + int(lim)})" if isinstance(off, int) and isinstance(lim, int) else ""
        return Step("read", one_line(path + span))
    return Step("tool", one_line(f"{_tool_name(name)} {_args(inp)}".rstrip()))


def _tool_name(name: str) -> str:
    if name.startswith("mcp__"):  # mcp__gauntlet__submit -> gauntlet.submit
        return ".".join(p for p in name[5:].split("__") if p)
    return name


def _args(inp: object) -> str:
    """A tool's input in brief: its first string argument, or nothing."""
    if not isinstance(inp, dict):
        return ""
    for k in ("pattern", "query", "path", "url", "description", "prompt", "command"):
        v = inp.get(k)
        if isinstance(v, str) and v:
            return v[:300]
    return ""


def result_text(content: object) -> str:
    """A tool_result's content (a string or a list of text parts) as text."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(p.get("text", ""))[:8000] for p in content[:50] if isinstance(p, dict))
    return ""


class ClaudeCodeParser(JsonStepParser):
    name = "claude-code"

    def __init__(self) -> None:
        super().__init__()
        self.cwd: str | None = None
        self.pending: dict[str, Step] = {}  # tool_use id -> its step, until its result
        self.early: dict[str, str] = {}  # tool_use id -> its step's text, given before its result

    def _finish(self) -> list[Step]:
        out = list(self.pending.values())
        self.pending.clear()
        return out

    def event(self, obj: dict[str, Any]) -> list[Step]:
        kind = obj.get("type")
        if kind == "assistant":
            return self._assistant(obj.get("message"))
        if kind == "user":
            return self._results(obj.get("message"))
        if kind == "system":
            if obj.get("subtype") == "init" and isinstance(obj.get("cwd"), str):
                self.cwd = obj["cwd"]
            if obj.get("subtype") == "task_started":
                return self._early(obj.get("tool_use_id"))
            return []
        if kind == "tool_progress":
            return self._early(obj.get("parent_tool_use_id") or obj.get("tool_use_id"))
        if kind == "result":
            out = self._finish()
            if obj.get("is_error") or str(obj.get("subtype", "success")) != "success":
                why = obj.get("result") or obj.get("subtype") or "error"
                out.append(
                    Step("error", one_line(f"run ended: {why}"), joined([why]) if isinstance(why, str) else None)
                )
            return out
        return []

    def _assistant(self, msg: object) -> list[Step]:
        if not isinstance(msg, dict) or not isinstance(msg.get("content"), list):
            return []
        out: list[Step] = []
        for block_ in msg["content"]:
            if not isinstance(block_, dict):
                continue
            if block_.get("type") == "text" and isinstance(block_.get("text"), str) and block_["text"].strip():
                out.append(text_step(block_["text"]))
            elif block_.get("type") == "tool_use":
                got = block_.get("input")
                inp: dict[str, Any] = got if isinstance(got, dict) else {}
                step = tool_step(str(block_.get("name", "?")), inp, self.cwd)
                tid = block_.get("id")
                if isinstance(tid, str) and len(self.pending) < 64:
                    self.pending[tid] = step
                else:
                    out.append(step)
        return out

    def _results(self, msg: object) -> list[Step]:
        if not isinstance(msg, dict) or not isinstance(msg.get("content"), list):
            return []
        out: list[Step] = []
        for part in msg["content"]:
            if not isinstance(part, dict) or part.get("type") != "tool_result":
                continue
            tid = str(part.get("tool_use_id"))
            step = self.pending.pop(tid, None)
            text = result_text(part.get("content"))
            what = step.text if step is not None else self.early.pop(tid, None)
            if what is not None and part.get("is_error"):
                out.append(Step("error", one_line(f"{what} failed: {one_line(text)}"), block(text) or None))
                continue
            if step is None:
                continue
            out.append(step._replace(detail=joined([step.detail, text])))
        return out

    def _early(self, tool_id: object) -> list[Step]:
        step = self.pending.pop(tool_id, None) if isinstance(tool_id, str) else None
        if step is None:
            return []
        if len(self.early) < 64:
            self.early[str(tool_id)] = step.text
        return [step]
