"""Two attempts' timelines on the attempt clock, one line per event that tells the story.

A line is what the agent said it did (``agent.step``; ``agent.output`` lines for an
attempt that has no steps), what the arena observed (commands, file edits and reads),
and what the arena did (submissions, scores per iteration, refusals, phases, clock
warnings, faults, the finish). Agent lines and observed lines are capped at
``MAX_ACTIVITY`` per attempt (a marker counts the rest); the arena's own lines are
always kept. Every text is one printable line of at most ``MAX_TEXT`` characters.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import groupby, zip_longest
from typing import Any, Iterable

from arena import events as ev
from arena.text import printable

MAX_TEXT = 200
MAX_ACTIVITY = 400

# source of a line: "agent" (its own account), "observed" (the arena saw it), "arena"
KEY_KINDS = ("submit", "score", "refused", "phase", "warning", "fault", "finish", "marker")


@dataclass(frozen=True)
class Line:
    t: float
    kind: str  # step:<step> | output | command | edit | read | submit | score | refused | phase | warning | fault | finish | marker
    text: str
    source: str  # agent | observed | arena

    def as_dict(self) -> dict[str, Any]:
        return {"t": round(self.t, 3), "kind": self.kind, "text": self.text, "source": self.source}


@dataclass(frozen=True)
class Row:
    t: float
    a: Line | None
    b: Line | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "t": round(self.t, 3),
            "a": self.a.as_dict() if self.a else None,
            "b": self.b.as_dict() if self.b else None,
        }


def clip(text: object, n: int = MAX_TEXT) -> str:
    s = printable(str(text)[: n * 4], newlines=False).strip()  # a 10 MB line is cut before filtering
    return s if len(s) <= n else s[: n - 1] + "…"


def _tests(d: dict[str, Any]) -> str:
    tests = (d.get("result") or {}).get("tests") or []
    passed = sum(1 for t in tests if t.get("outcome") == "passed")
    return f" ({passed}/{len(tests)} tests)" if tests else ""


def describe(kind: str, d: dict[str, Any]) -> tuple[str, str, str] | None:
    """(line kind, text, source) of one event, or None when it is not on a timeline."""
    if kind == ev.AGENT_STEP:
        return f"step:{d.get('step', 'text')}", clip(d.get("text", "")), "agent"
    if kind == ev.AGENT_OUTPUT:
        text = clip(d.get("text", ""))
        return ("output", text, "agent") if text else None
    if kind == ev.COMMAND_RUN:
        text = f"$ {d.get('command', '')} -> exit {d.get('exit_code', '?')}"
        if d.get("ran_tests"):
            text += f" ({d.get('passed', 0)} passed, {d.get('failed', 0)} failed)"
        return "command", clip(text), "observed"
    if kind == ev.FILE_CHANGED:
        text = f"{d.get('change', 'modified')} {d.get('path', '?')} +{d.get('lines_added', 0)} -{d.get('lines_removed', 0)}"
        return "edit", clip(text), "observed"
    if kind == ev.FILE_READ:
        return "read", clip(f"read {d.get('path', '?')}"), "observed"
    if kind == ev.SUBMISSION_RECEIVED:
        diff = d.get("diff") or {}
        same = f", identical to #{d['identical_to']}" if d.get("identical_to") else ""
        text = (
            f"submission #{d.get('submission')} (+{diff.get('lines_added', 0)} -{diff.get('lines_removed', 0)}{same})"
        )
        return "submit", clip(text), "arena"
    if kind == ev.SUBMISSION_JUDGED:
        return "score", clip(f"#{d.get('submission')} scored {d.get('score')}{_tests(d)}"), "arena"
    if kind == ev.SUBMISSION_REFUSED:
        return "refused", clip(f"submission refused ({d.get('code')}): {d.get('reason')}"), "arena"
    if kind == ev.PHASE_REVEALED:
        return "phase", clip(f"phase {d.get('phase')} ({d.get('id')}) opened by {d.get('by')}"), "arena"
    if kind in (ev.CLOCK_SOFT, ev.CLOCK_HARD):
        which = "soft" if kind == ev.CLOCK_SOFT else "hard"
        return "warning", f"{which} warning: {d.get('remaining_s', '?')}s left", "arena"
    if kind == ev.CLOCK_CUTOFF:
        return "warning", "cutoff: time is up", "arena"
    if kind == ev.CLOCK_GRACE_END:
        return "warning", "grace period over", "arena"
    if kind == ev.AGENT_HUNG:
        return "fault", clip(f"agent hung: {d.get('detail', '')}"), "arena"
    if kind == ev.AGENT_EXITED and d.get("exit_code") not in (0, None):
        return "fault", clip(f"agent exited {d.get('exit_code')}: {d.get('detail', '')}"), "arena"
    if kind == ev.INFRA_ERROR:
        return "fault", clip(f"infra error ({d.get('source', '?')}): {d.get('detail', '')}"), "arena"
    if kind == ev.INTEGRITY_FINDING and d.get("severity") == "error":
        return "fault", clip(f"integrity: {d.get('check', '')}: {d.get('detail', '')}"), "arena"
    if kind == ev.ATTEMPT_FINISHED:
        scored = d.get("scored_submission")
        text = f"finished: {d.get('status')}; scored {'#' + str(scored) if scored else 'none'}"
        return "finish", clip(text), "arena"
    return None


def timeline(events: Iterable[Any], max_activity: int = MAX_ACTIVITY) -> list[Line]:
    """One attempt's timeline lines in clock order (events as ``Event`` objects or dicts)."""
    evs = [(e.t, e.kind, e.data) if hasattr(e, "kind") else (e["t"], e["kind"], e) for e in events]
    has_steps = any(k == ev.AGENT_STEP for _, k, _ in evs)
    out: list[Line] = []
    shown = left = 0
    last_t = 0.0
    for t, kind, data in evs:
        if kind == ev.AGENT_OUTPUT and has_steps:
            continue  # the steps tell it; the raw output stays in the store
        got = describe(kind, data)
        if got is None:
            continue
        line = Line(float(t), *got)
        if line.kind not in KEY_KINDS:
            if shown >= max_activity:
                left += 1
                continue
            shown += 1
        out.append(line)
        last_t = max(last_t, float(t))
    if left:
        out.append(Line(last_t, "marker", f"... {left} more agent and observed lines not shown", "arena"))
    out.sort(key=lambda x: x.t)  # stable: events' order within one instant is kept
    return out


def align(a: list[Line], b: list[Line]) -> list[Row]:
    """Rows on the attempt clock: lines of the same second of both attempts share rows."""
    tagged = sorted([(int(x.t), 0, x) for x in a] + [(int(x.t), 1, x) for x in b], key=lambda r: (r[0], r[1]))
    rows: list[Row] = []
    for _, group in groupby(tagged, key=lambda r: r[0]):
        items = list(group)
        left = [x for _, side, x in items if side == 0]
        right = [x for _, side, x in items if side == 1]
        for la, lb in zip_longest(left, right):
            rows.append(Row(min(x.t for x in (la, lb) if x is not None), la, lb))
    return rows
