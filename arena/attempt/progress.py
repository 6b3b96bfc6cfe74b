"""Headless progress: one line per event that matters (warnings, submissions, scores,
phases, faults, finish). A bus subscriber; no Textual."""

from __future__ import annotations

import sys
from typing import Any, Callable, TextIO

from arena import events as ev
from arena.events import Event
from arena.text import escaped


def _line(e: Event) -> str | None:
    d: dict[str, Any] = e.data
    k = e.kind
    if k == ev.ATTEMPT_STARTED:
        return (
            f"started {d.get('challenge')} ({d.get('format')}, {d.get('time_limit_s'):g}s, "
            f"budget {d.get('budget')}) with {d.get('agent')} on {d.get('sandbox')}"
        )
    if k == ev.ATTEMPT_RESUMED:
        return f"resumed at {d.get('elapsed_s')}s"
    if k in (ev.CLOCK_SOFT, ev.CLOCK_HARD):
        which = "soft" if k == ev.CLOCK_SOFT else "hard"
        return f"{which} warning: {d.get('remaining_s'):g}s left"
    if k == ev.CLOCK_CUTOFF:
        return "cutoff: time is up"
    if k == ev.CLOCK_GRACE_END:
        return "grace period over"
    if k == ev.PHASE_REVEALED:
        return f"phase {d.get('phase')} ({d.get('id')}) opened by {d.get('by')}"
    if k == ev.SUBMISSION_RECEIVED:
        same = f", identical to #{d['identical_to']}" if d.get("identical_to") else ""
        diff = d.get("diff") or {}
        return (
            f"submission #{d.get('submission')} received ({d.get('files')} files, "
            f"+{diff.get('lines_added', 0)}/-{diff.get('lines_removed', 0)} lines{same})"
        )
    if k == ev.SUBMISSION_REFUSED:
        return f"submission refused ({d.get('code')}): {d.get('reason')}"
    if k == ev.SUBMISSION_REPLACED:
        return f"submission #{d.get('submission')} replaced by #{d.get('by')}"
    if k == ev.SUBMISSION_JUDGED:
        tests = (d.get("result") or {}).get("tests") or []
        passed = sum(1 for t in tests if t.get("outcome") == "passed")
        return f"submission #{d.get('submission')} judged: score {d.get('score')} ({passed}/{len(tests)} tests)"
    if k == ev.AGENT_HUNG:
        return f"agent hung: {d.get('detail')}"
    if k == ev.AGENT_EXITED and (d.get("exit_code") not in (0,) or d.get("end_reason")):  # its own end
        return f"agent exited: {d.get('detail')}"
    if k == ev.INFRA_ERROR:
        return f"infrastructure error ({d.get('source')}): {d.get('detail')}"
    if k == ev.INTEGRITY_FINDING and d.get("severity") == "error":
        return f"integrity: {d.get('check')}: {d.get('detail')}"
    if k == ev.ATTEMPT_FINISHED:
        scored = d.get("scored_submission")
        return (
            f"finished: {d.get('status')} ({d.get('reason')}); scored submission: "
            f"{'#' + str(scored) if scored else 'none'}"
        )
    return None


def printer(out: TextIO | None = None, *, prefix: bool = False) -> Callable[[Event], None]:
    def on_event(e: Event) -> None:
        line = _line(e)
        if line is None:
            return
        stream = out or sys.stdout
        head = f"{e.attempt} " if prefix else ""
        stream.write(f"[{e.t:8.1f}s] {head}{escaped(line)}\n")  # agent text is data (issue 26)
        stream.flush()

    return on_event
