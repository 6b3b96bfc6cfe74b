"""An attempt's activity: the lines its screens list, one an event, and the ring that keeps
the last of them (``ActivityLog``). ``describe`` is the line of an event that carries
activity (a file changed or read, a command, the agent's output, a model call…); the
reducer (``arena.view.reducer``) logs these and its own lines (submissions, the clock,
phases) here, and steps and model calls read through ``arena.steps.lines``."""

from __future__ import annotations

from collections import deque
from typing import Iterator, NamedTuple

from arena import events as K
from arena.events import Event


class Activity(NamedTuple):
    """One line of an attempt's activity."""

    t: float
    kind: str  # edit | read | command | output | message | submit | feedback | clock | phase | agent | refused | infra | integrity
    text: str


class ActivityLog:
    """The last ``maxlen`` activity lines of an attempt, oldest first; reads give
    ``Activity`` tuples. Stored as plain ``(t, kind, text)`` tuples, which the garbage
    collector stops tracking (it never untracks a tuple subclass): a dashboard holds 200
    lines per attempt, 200,000 at 1,000 attempts, and the collector's full passes over
    them paused the app (and the engine in its loop) for 0.2 s at a time."""

    __slots__ = ("_ring",)

    def __init__(self, maxlen: int) -> None:
        self._ring: deque[tuple[float, str, str]] = deque(maxlen=maxlen)

    def append(self, t: float, kind: str, text: str) -> None:
        self._ring.append((t, kind, text))

    def push(self, entry: tuple[float, str, str]) -> None:
        """Append an entry already made (one tuple shared by the view's two rings)."""
        self._ring.append(entry)

    def clear(self) -> None:
        self._ring.clear()

    def __len__(self) -> int:
        return len(self._ring)

    def __iter__(self) -> Iterator[Activity]:
        return (Activity(*a) for a in self._ring)

    def __getitem__(self, index: int) -> Activity:
        return Activity(*self._ring[index])

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ActivityLog) and self._ring == other._ring

    def __repr__(self) -> str:
        return f"ActivityLog({list(self)!r})"


# Events that only carry activity (kind -> activity kind).
ACTIVITY_KINDS = {
    K.FILE_CHANGED: "edit",
    K.FILE_READ: "read",
    K.COMMAND_RUN: "command",
    K.AGENT_OUTPUT: "output",
    K.AGENT_MESSAGE: "message",
    K.AGENT_STARTED: "agent",
    K.AGENT_EXITED: "agent",
    K.AGENT_HUNG: "agent",
    K.INTEGRITY_FINDING: "integrity",
    K.INFRA_ERROR: "infra",
    K.MODEL_TOOL_CALL: "model",
    K.LIMIT_REACHED: "infra",
}


def describe(ev: Event) -> str:
    """An event that carries activity as its activity line."""
    d = ev.data
    k = ev.kind
    if k == K.FILE_CHANGED:
        return f"{d.get('change', 'modified')} {d.get('path', '?')} (+{d.get('lines_added', 0)} -{d.get('lines_removed', 0)})"
    if k == K.FILE_READ:
        return f"read {d.get('path', '?')}"
    if k == K.COMMAND_RUN:
        text = f"$ {d.get('command', '')} → exit {d.get('exit_code', '?')}"
        if d.get("ran_tests"):
            text += f" ({d.get('passed', 0)} passed, {d.get('failed', 0)} failed)"
        return text
    if k == K.AGENT_OUTPUT:
        return str(d.get("text", "")).rstrip("\n")
    if k == K.AGENT_MESSAGE:
        return f"message: {d.get('text', '')}"
    if k == K.AGENT_STARTED:
        return f"agent started (pid {d.get('pid', '?')})"
    if k == K.AGENT_EXITED:
        return f"agent exited ({d.get('exit_code', '?')}) {d.get('detail', '')}".rstrip()
    if k == K.AGENT_HUNG:
        return f"agent hung: {d.get('detail', '')}"
    if k == K.INTEGRITY_FINDING:
        return f"integrity {d.get('severity', '')}: {d.get('check', '')} {d.get('detail', '')}"
    if k == K.INFRA_ERROR:
        return f"infra error ({d.get('source', '?')}): {d.get('detail', '')}"
    if k == K.MODEL_CALL:
        cost = f", ${d['cost_usd']:.4f}" if d.get("cost_usd") is not None else ""
        return (
            f"model {d.get('model', '?')}: {d.get('input_tokens') or 0} in / "
            f"{d.get('output_tokens') or 0} out tokens, {d.get('latency_ms', '?')} ms"
            f"{cost}" + ("" if d.get("status") == 200 else f" → HTTP {d.get('status')}")
        )
    if k == K.MODEL_TOOL_CALL:
        return f"tool call {d.get('name', '?')}"
    if k == K.LIMIT_REACHED:
        return f"usage limit reached: {d.get('limit')} {d.get('used')} of {d.get('allowed')}"
    return k
