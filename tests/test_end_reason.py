"""Issue 34 item 8: the agent's own end reason reaches ``agent.exited`` (not "exited normally"
when OpenHands said STUCK), read from each adapter's real output: the recorded lines of real
runs (tests/steps/fixtures, captured from the real agents against the stand-in providers)
and the final lines each agent prints on its other ends."""

from __future__ import annotations

import json
from pathlib import Path

from arena import events as ev
from arena.agents.agent_file import AgentFile
from arena.agents.command import CommandAgent
from arena.agents.endreason import EndReader, reader_for

FIXTURES = Path(__file__).parent / "steps" / "fixtures"


def _read(adapter: str, lines: list[str], code: int | None = 0):
    r = EndReader(adapter)
    for line in lines:
        r.feed("stdout", line)
    return r.end(code)


def _recorded(name: str) -> list[str]:
    return [json.loads(line)["text"] for line in (FIXTURES / name).read_text().splitlines()]


def test_real_runs_recorded_ends():
    codex = _read("codex", _recorded("codex.jsonl"))
    assert (codex.reason, codex.failed) == ("turn.completed", False)
    claude = _read("claude-code", _recorded("claude_code.jsonl"))
    assert (claude.reason, claude.failed, claude.text) == ("success", False, "")
    mini = _read("mini-swe-agent", _recorded("mini_swe_agent.jsonl"))  # it gave up on format errors
    assert (mini.reason, mini.failed) == ("RepeatedFormatError", True)
    assert mini.detail("mini-swe-agent", 0) == "mini-swe-agent failed (RepeatedFormatError) [exit 0]"


def test_openhands_stuck_and_error_ends():
    stuck = _read("openhands", ['{"kind": "ActionEvent"}', '{"kind": "finished", "status": "stuck", "detail": "loop"}'])
    assert (stuck.reason, stuck.failed) == ("stuck", True)
    assert stuck.detail("openhands", 0) == "openhands failed (stuck): loop [exit 0]"
    old = _read("openhands", ['{"kind": "finished", "status": "ConversationExecutionStatus.STUCK"}'])
    assert (old.reason, old.failed) == ("stuck", True)  # the launcher's former line, an enum's str()
    err = _read(
        "openhands",
        [
            '{"kind": "ConversationErrorEvent", "code": "MaxIterationsReached", "detail": "limit (100)."}',
            '{"kind": "finished", "status": "error"}',
        ],
    )
    assert (err.reason, err.failed, err.text) == ("error", True, "MaxIterationsReached: limit (100).")
    done = _read("openhands", ['{"kind": "finished", "status": "finished"}'])
    assert (done.reason, done.failed) == ("finished", False)


def test_codex_claude_mini_aider_failures():
    failed = _read("codex", ['{"type":"error","message":"stream disconnected"}', '{"type":"turn.failed","error":{}}'])
    assert (failed.reason, failed.failed, failed.text) == ("turn.failed", True, "stream disconnected")
    line = {"type": "result", "subtype": "error_max_turns", "is_error": True, "result": "", "api_error_status": None}
    claude = _read("claude-code", [json.dumps(line)])
    assert (claude.reason, claude.failed) == ("error_max_turns", True)
    api = dict(line, subtype="success", result="API Error: 529 overloaded", api_error_status=529)
    claude = _read("claude-code", [json.dumps(api)])
    assert (claude.failed, claude.text) == (True, "API status 529: API Error: 529 overloaded")
    assert _read("mini-swe-agent", ["", "Exit:", "LimitsExceeded"]).reason == "LimitsExceeded"
    submitted = _read("mini-swe-agent", ["Exit:", "", "Saved trajectory to '/tmp/t.json'"])
    assert (submitted.reason, submitted.failed) == ("Submitted", False)
    crashed = _read("mini-swe-agent", ["Exit:", "Connection refused by the gateway"], code=1)
    assert (crashed.reason, crashed.failed, crashed.text) == ("error", True, "Connection refused by the gateway")
    aider = _read("aider", ["Only 3 reflections allowed, stopping."])
    assert (aider.reason, aider.failed) == ("reflection limit", True)
    assert _read("aider", ["Applied edit to sorter.py"]) is None  # only its exit code then
    assert reader_for("command") is None and reader_for(None) is None


class _Ctx:
    def __init__(self) -> None:
        self.events: list[tuple[str, dict]] = []

    def publish(self, kind: str, data: dict) -> None:
        self.events.append((kind, data))


def test_agent_exited_carries_the_end_reason_and_it_is_the_agents_failure():
    """The seam in arena/agents/command.py: every output line is read, past the recording cap."""
    agent = CommandAgent(
        "openhands@openai/m", AgentFile("openhands", [], "sandbox", adapter="openhands", model="openai/m")
    )
    ctx = _Ctx()
    agent._recorded = 1 << 20  # the output cap is reached: lines are no longer recorded ...
    agent._emit_output(ctx, "stdout", '{"kind": "finished", "status": "stuck"}')  # ... but still read
    outcome = agent._exited(ctx, 0)
    assert ctx.events[0] == (ev.AGENT_STEP, {"step": "error", "text": "run ended: stuck"})  # its step (issue 35)
    [(kind, data)] = ctx.events[1:]
    assert kind == ev.AGENT_EXITED and data["exit_code"] == 0 and data["end_reason"] == "stuck"
    assert "exited normally" not in data["detail"] and data["detail"].startswith("openhands failed (stuck)")
    assert outcome.own_failure and outcome.detail == data["detail"]
    plain = CommandAgent("x.yaml", AgentFile("x", ["true"], "host"))
    ctx = _Ctx()
    plain._exited(ctx, 0)
    assert ctx.events == [(ev.AGENT_EXITED, {"exit_code": 0, "detail": "exited normally"})]
