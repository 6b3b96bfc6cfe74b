"""How a step and a model call read as one activity line (arena.view's readable
activity; no Textual). Everything shown here is agent or model text: it went through
``one_line`` (control characters shown as ``\\xNN``, capped) before it is shown."""

from __future__ import annotations

from typing import Any

from arena.steps.base import KINDS, one_line

MARK = "▸"  # a step: what the agent's own output says it does (observed events have none)
_LABEL = {"text": "", "command": "", "edit": "edit ", "read": "read ", "tool": "tool ", "error": "error: "}


def step_line(data: dict[str, Any]) -> tuple[str, str]:
    """(activity kind ``step.KIND``, line) of an ``agent.step`` event's data."""
    kind = data.get("step")
    kind = kind if kind in KINDS else "text"
    return f"step.{kind}", f"{MARK} {_LABEL[kind]}{one_line(data.get('text', ''))}"


def model_line(data: dict[str, Any], tools: list[str]) -> str | None:
    """A model call as what it said or called, then its tokens and time; None when the
    event has neither text nor tool calls (the plain token line is shown instead).
    ``tools``: the call's tool names when the event does not list them."""
    text = one_line(data.get("text", ""), 120) if data.get("text") else ""
    listed = data.get("tools")
    named: list[Any] = listed if isinstance(listed, list) else tools
    called = ", ".join(one_line(n, 40) for n in named[:8]) + (" …" if len(named) > 8 else "")
    if not text and not called:
        return None
    said = f'"{text}"' if text else ""
    arrow = f"→ {called}" if called else ""
    tok = f"{_k(data.get('input_tokens'))}/{_k(data.get('output_tokens'))} tok"
    status = "" if data.get("status", 200) == 200 else f", HTTP {data.get('status')}"
    return f"model {' '.join(p for p in (said, arrow) if p)} ({tok}, {data.get('latency_ms', '?')} ms{status})"


def _k(n: object) -> str:
    v = n if isinstance(n, int) else 0
    return f"{v / 1000:.1f}k" if v >= 1000 else str(v)
