"""OpenHands submits through the Gauntlet MCP server (issue 21 item 3): the adapter
registers `gauntlet-agent mcp` as OpenHands' MCP server "gauntlet" (its SDK's mcp_config,
fastmcp's stdio client), the MCP tree is mounted, and the stand-in provider's recorded
answers (tests/fakes/scripts/openhands_mcp.yaml) call the server's tools status, submit and
feedback instead of the shell's `gauntlet-agent`. The store then holds submissions with
`via: "mcp"`, judged and fed back through the tool's result."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml
from e2e_kit import cli, run_agent

from provider import FakeProvider

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tests" / "fakes" / "scripts" / "openhands_mcp.yaml"
TOOLS = ("status", "briefing", "submit", "feedback", "message")
pytestmark = pytest.mark.slow


def test_openhands_submits_through_the_mcp_server(tmp_path):
    db = tmp_path / "g.db"
    with FakeProvider(yaml.safe_load(SCRIPT.read_text())["turns"], strict=True) as fp:
        env = dict(
            os.environ,
            OPENAI_BASE_URL=fp.base_url,
            OPENAI_API_KEY="sk-host-mcp-oh",
            GAUNTLET_SOCKETS=str(tmp_path / "s"),
        )
        run, show = run_agent("openhands", "openai/fake-model", "local", db, env)
        requests, answers = list(fp.requests), list(fp.answers)
    events = show["events"]
    offered = {t["function"]["name"] for t in requests[0]["body"].get("tools", [])}
    assert set(TOOLS) <= offered, offered  # the server's five tools, offered from the first call
    received = [e for e in events if e["kind"] == "submission.received"]
    assert received and all(e.get("via") == "mcp" for e in received), received
    assert [s for s in show["submissions"] if s["feedback"]], show["submissions"]
    ops = [e["op"] for e in events if e["kind"] == "protocol.call"]
    assert "status" in ops and "submit" in ops and "feedback" in ops, ops
    last = json.dumps(requests[-1]["body"])
    assert "failed: 0" in last and "submission: 1" in last  # the feedback reached it via the tool
    assert answers[-1]["tool_calls"][0]["function"]["name"] == "finish"
    calls = [e for e in events if e["kind"] == "model.call"]
    assert len(calls) == len(requests) and show["usage"]["calls"] == len(calls)
    transcript = cli("show", show["attempt"], "--transcript", "--store", str(db), env=env).stdout
    assert "sk-host-mcp-oh" not in transcript
