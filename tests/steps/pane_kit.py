"""An attempt of a real adapter replayed onto a bus from its captured output (fixtures/):
each output line as agent.output and its steps as agent.step, the way command.py publishes
them, with the model calls, observed commands and the submission around them (for the
activity pane's pilot test and its screenshots)."""

from __future__ import annotations

from steps_kit import captured

from arena import events as ev
from arena.steps import parser_for

FEEDBACK = {
    "submission": 1,
    "iteration": 0,
    "build": {"status": "success"},
    "tests": {"total": 25, "passed": 25, "failed": 0},
}
CALL = {"provider": "anthropic", "model": "claude-sonnet-4-5", "latency_ms": 812.0, "status": 200}


def replay(bus, aid: str, adapter: str, fixture: str, *, calls: list[dict] | None = None) -> float:
    """Publish the captured run; returns the attempt time of its last event."""
    pub = lambda t, kind, data: bus.publish(aid, t, kind, data)  # noqa: E731
    parser = parser_for(adapter)
    t = 2.0
    said = iter(calls or [])
    for stream, text in captured(fixture):
        t += 0.4
        steps = parser.feed(stream, text, t)
        if stream == "stdout" and any(s.step in ("text", "command", "read", "edit") for s in steps):
            call = next(said, None)
            if call is not None:
                pub(t - 0.1, ev.MODEL_CALL, {**CALL, "input_tokens": 2900, "output_tokens": 60, **call})
        pub(t, ev.AGENT_OUTPUT, {"stream": stream, "text": text[:4096]})
        for s in steps:
            pub(t, ev.AGENT_STEP, s.data())
            if s.text.startswith("$ cat sorter.py"):
                pub(t + 0.2, ev.FILE_READ, {"path": "sorter.py", "observed": True})
                pub(t + 0.3, ev.COMMAND_RUN, {"argv": ["python", "-m", "pytest", "-q"], "command": "python -m pytest -q",
                                             "exit_code": 1, "observed": True, "ran_tests": True, "passed": 6, "failed": 3})  # fmt: skip
            if s.step == "edit":
                pub(
                    t + 0.2,
                    ev.FILE_CHANGED,
                    {"path": "sorter.py", "change": "modified", "lines_added": 1, "lines_removed": 1},
                )
            if s.text == "$ gauntlet-agent submit":
                diff = {"files_changed": 1, "lines_added": 3, "lines_removed": 3}
                pub(t + 0.5, ev.SUBMISSION_RECEIVED, {"submission": 1, "diff": diff})
                pub(t + 4.0, ev.SUBMISSION_JUDGED, {"submission": 1, "score": 100.0})
                pub(
                    t + 4.1,
                    ev.FEEDBACK_DELIVERED,
                    {"submission": 1, "feedback": FEEDBACK},
                )
                t += 4.2
    return t
