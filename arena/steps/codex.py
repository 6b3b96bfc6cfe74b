"""Codex CLI's ``exec --json`` events (one JSON event a line) as steps.

Codex 0.4x and later print ``thread.started``, ``turn.started/completed/failed``,
``error`` and ``item.started/updated/completed`` with an item: ``agent_message`` (text),
``command_execution`` (command: given when completed, its output as detail; ``/bin/sh -lc
'…'`` unwrapped), ``file_change`` (edit, a path and its kind per change), ``mcp_tool_call``
(tool), ``web_search``, ``todo_list`` (tool), ``error`` (error); ``reasoning`` makes no
step. The older event shape (``{"id", "msg": {"type": "agent_message" | "exec_command_begin"
| "patch_apply_begin" | "error" …}}``) is read too. Lines that are not JSON are plain text (on stderr: only errors).
"""

from __future__ import annotations

import shlex
from typing import Any

from arena.steps.base import JsonStepParser, Step, joined, one_line, short_path, text_step

_SHELLS = ("/bin/sh", "sh", "/bin/bash", "bash", "/usr/bin/bash", "/bin/zsh", "zsh")


def unwrap(command: object) -> str:
    """``/bin/sh -lc 'script'`` (a string or an argv) as ``script``; others as given."""
    if isinstance(command, list):
        argv = [str(a) for a in command[:64]]
    elif isinstance(command, str):
        try:
            argv = shlex.split(command[:20000])
        except ValueError:
            return command
    else:
        return ""
    if len(argv) == 3 and argv[0] in _SHELLS and argv[1] in ("-lc", "-c", "-l -c"):
        return argv[2]
    return command if isinstance(command, str) else shlex.join(argv)


def _changes(changes: object) -> list[tuple[str, str]]:
    """(path, kind) of a file_change's ``changes`` (a list) or a patch's (a mapping)."""
    out: list[tuple[str, str]] = []
    if isinstance(changes, list):
        for c in changes[:100]:
            if isinstance(c, dict):
                out.append((str(c.get("path", "?")), str(c.get("kind", "update"))))
    elif isinstance(changes, dict):
        for path, c in list(changes.items())[:100]:
            kind = next(iter(c), "update") if isinstance(c, dict) and c else "update"
            out.append((str(path), str(kind)))
    return out


class CodexParser(JsonStepParser):
    name = "codex"

    def __init__(self) -> None:
        super().__init__()
        self.running: dict[str, Step] = {}  # command items started, not completed
        self.shown: dict[str, Step] = {}  # commands shown before they completed

    def _finish(self) -> list[Step]:
        out = list(self.running.values())
        self.running.clear()
        return out

    def event(self, obj: dict[str, Any]) -> list[Step]:
        kind = obj.get("type")
        if isinstance(obj.get("msg"), dict):
            return self._legacy(obj["msg"])
        if kind in ("item.started", "item.updated", "item.completed") and isinstance(obj.get("item"), dict):
            return self._item(obj["item"], done=kind == "item.completed")
        if kind in ("turn.completed", "turn.failed"):
            out = self._long()
            if kind == "turn.completed":
                return out
            err = obj.get("error")
            msg = err.get("message") if isinstance(err, dict) else err
            return out + [Step("error", one_line(f"turn failed: {msg}"), joined([msg]))]
        if kind == "turn.failed":
            err = obj.get("error")
            msg = err.get("message") if isinstance(err, dict) else err
            return [Step("error", one_line(f"turn failed: {msg}"), joined([msg]))]
        if kind == "error":
            return [Step("error", one_line(obj.get("message") or "error"), joined([obj.get("message")]))]
        return []

    def _item(self, item: dict[str, Any], *, done: bool) -> list[Step]:
        t = item.get("type") or item.get("item_type")
        iid = str(item.get("id", ""))
        if iid not in self.running:  # another item: a command still running is a long one, shown now
            return self._long() + self._one(item, t, iid, done)
        return self._one(item, t, iid, done)

    def _long(self) -> list[Step]:
        out = list(self.running.values())
        self.shown.update(self.running)
        self.running.clear()
        return out

    def _one(self, item: dict[str, Any], t: object, iid: str, done: bool) -> list[Step]:
        if t == "command_execution":
            cmd = unwrap(item.get("command"))
            step = Step(
                "command", one_line("$ " + cmd), joined([cmd if "\n" in cmd else "", item.get("aggregated_output")])
            )
            if not done:
                if len(self.running) < 64:
                    self.running[iid] = step
                return []
            self.running.pop(iid, None)
            code = item.get("exit_code")
            failed = isinstance(code, int) and code != 0
            if self.shown.pop(iid, None) is not None:  # shown while it ran: only a failure is news
                return [Step("error", one_line(f"{step.text} → exit {code}"), step.detail)] if failed else []
            if failed:
                step = step._replace(text=one_line(f"{step.text} → exit {code}"))
            return [step]
        if not done:
            return []
        if t in ("agent_message", "assistant_message"):
            return [text_step(item.get("text"))] if item.get("text") else []
        if t == "file_change":
            return self._edits(_changes(item.get("changes")))
        if t == "mcp_tool_call":
            name = f"{item.get('server', '?')}.{item.get('tool', '?')}"
            err = item.get("error")
            if err:
                msg = err.get("message") if isinstance(err, dict) else err
                return [Step("error", one_line(f"{name} failed: {msg}"))]
            return [Step("tool", one_line(name), joined([_brief(item.get("result"))]))]
        if t == "web_search":
            return [Step("tool", one_line(f"web search {item.get('query', '')}"))]
        if t == "todo_list":
            items = item.get("items")
            return [Step("tool", one_line(f"todo list ({len(items) if isinstance(items, list) else 0} items)"))]
        if t == "error":
            return [Step("error", one_line(item.get("message") or "error"), joined([item.get("message")]))]
        return []

    def _edits(self, changes: list[tuple[str, str]]) -> list[Step]:
        if not changes:
            return []
        names = ", ".join(f"{short_path(p)} ({k})" for p, k in changes[:5])
        more = f" and {len(changes) - 5} more" if len(changes) > 5 else ""
        return [Step("edit", one_line(names + more))]

    def _legacy(self, msg: dict[str, Any]) -> list[Step]:
        t = msg.get("type")
        if t == "agent_message":
            return [text_step(msg.get("message"))] if msg.get("message") else []
        if t == "exec_command_begin":
            cmd = unwrap(msg.get("command"))
            return [Step("command", one_line("$ " + cmd), joined([cmd if "\n" in cmd else ""]))]
        if t == "patch_apply_begin":
            return self._edits(_changes(msg.get("changes")))
        if t == "mcp_tool_call_begin":
            got = msg.get("invocation")
            inv: dict[str, Any] = got if isinstance(got, dict) else {}
            return [Step("tool", one_line(f"{inv.get('server', '?')}.{inv.get('tool', '?')}"))]
        if t in ("error", "stream_error"):
            return [Step("error", one_line(msg.get("message") or "error"))]
        return []


def _brief(result: object) -> str:
    """An MCP tool result's text parts."""
    if isinstance(result, dict) and isinstance(result.get("content"), list):
        return "\n".join(str(c.get("text", ""))[:4000] for c in result["content"][:20] if isinstance(c, dict))
    return ""
