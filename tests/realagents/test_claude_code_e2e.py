"""Claude Code end to end (issue 21): the real `claude` binary bundled in the
claude-agent-sdk wheel takes off-by-one through `gauntlet run --agent claude-code --model
anthropic/...`, streaming the Anthropic Messages API (`/v1/messages?beta=true`) through the
gateway, run as root with its workspace tools allowed by name (it refuses to skip
permissions as root), with a stand-in provider of the test's own replaying recorded answers
(tests/fakes/scripts/claude_code.yaml): a host-key scan, read, test, edit, submit, finish.
Cache-read and cache-creation tokens are counted in the input tokens."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml
from e2e_kit import BACKENDS, cli, run_agent
from steps_check import assert_steps

from anthropic_provider import AnthropicProvider

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tests" / "fakes" / "scripts" / "claude_code.yaml"
HOST_KEY = "sk-ant-host-claude-SECRET-55"  # the script's scan looks for exactly this
pytestmark = pytest.mark.slow


def _tool_result(body: dict) -> str:
    for m in reversed(body["messages"]):
        for part in reversed(m["content"] if isinstance(m["content"], list) else []):
            if part.get("type") == "tool_result":
                c = part.get("content")
                return " ".join(p.get("text", "") for p in c) if isinstance(c, list) else str(c)
    return ""


@pytest.mark.parametrize("sandbox", BACKENDS)
def test_claude_code_takes_off_by_one_through_the_messages_api(tmp_path, sandbox):
    db = tmp_path / "g.db"
    with AnthropicProvider(yaml.safe_load(SCRIPT.read_text())["turns"]) as fp:
        env = dict(
            os.environ, ANTHROPIC_BASE_URL=fp.base_url, ANTHROPIC_API_KEY=HOST_KEY, GAUNTLET_SOCKETS=str(tmp_path / "s")
        )
        run, show = run_agent("claude-code", "anthropic/fake-model", sandbox, db, env, time_scale=None)
        requests, usages = list(fp.requests), list(fp.usages)
    aid, events = show["attempt"], show["events"]
    assert len(requests) >= 5 and all(r["body"].get("stream") for r in requests)
    assert all(r["headers"].get("x-api-key") == HOST_KEY for r in requests)
    scan = _tool_result(requests[1]["body"])
    assert scan.split() == ["0", "SCAN-DONE"], scan  # no file, no environ holds the host key
    calls = [e for e in events if e["kind"] == "model.call"]
    assert len(calls) == len(requests)
    assert [(c["input_tokens"], c["output_tokens"]) for c in calls] == [
        (u["input_tokens"] + u["cache_read_input_tokens"] + u["cache_creation_input_tokens"], u["output_tokens"])
        for u in usages
    ]
    assert all(c["status"] == 200 and c["provider"] == "anthropic" for c in calls)
    assert show["usage"]["calls"] == len(calls)
    assert [e["name"] for e in events if e["kind"] == "model.tool_call"].count("Bash") >= 4
    observed = [e for e in events if e["kind"] == "command.run" and e.get("observed")]
    assert any(e["argv"][:2] == ["cat", "sorter.py"] or "pytest" in " ".join(e["argv"]) for e in observed)
    assert any(e["kind"] == "file.read" and e["path"] == "sorter.py" for e in events)
    kinds = [e["kind"] for e in events]
    assert "file.changed" in kinds and "submission.received" in kinds
    assert [s for s in show["submissions"] if s["feedback"]], show["submissions"]
    # its stream-json as steps (issue 35): what it said, ran, read and edited, one line each
    has = (("read", "sorter.py"), ("edit", "sorter.py +1 −1"), ("command", "$ gauntlet-agent submit"))
    assert_steps(events, ("text", "command", "read", "edit"), has)
    assert "failed: 0" in _tool_result(requests[-1]["body"])  # the feedback reached it
    transcript = cli("show", aid, "--transcript", "--store", str(db), env=env).stdout
    assert f"{len(calls)} model call(s)" in transcript and HOST_KEY not in transcript
    card = json.loads(cli("judge", aid, "--json", "--store", str(db), env=env).stdout)
    assert card["usage"]["calls"] == len(calls)
