"""Claude Code and Codex submit through the Gauntlet MCP server (issue 21 item 3): each
adapter registers `gauntlet-agent mcp` (Claude Code's --mcp-config, Codex's
mcp_servers.gauntlet), the MCP tree (the `mcp` SDK) is mounted, and the stand-in
provider's recorded answers call the server's tools (status, submit, feedback) instead of
the shell's `gauntlet-agent`. The store then holds submissions with `via: "mcp"`, judged
and fed back to the agent through the tool's result."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
import yaml
from e2e_kit import BACKENDS, cli, run_agent

from anthropic_provider import AnthropicProvider
from responses_provider import ResponsesProvider

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "tests" / "fakes" / "scripts"
TOOLS = ("status", "briefing", "submit", "feedback", "message")
pytestmark = pytest.mark.slow


AGENTS = {  # adapter: (stand-in provider, script, model, base-url and key variables, MCP tool names seen)
    "claude-code": (
        AnthropicProvider,
        "claude_code_mcp.yaml",
        "anthropic/fake-model",
        "ANTHROPIC",
        "mcp__gauntlet__submit",
    ),
    "codex": (ResponsesProvider, "codex_mcp.yaml", "openai/fake-model", "OPENAI", "submit"),
}


def _claude_init(events: list[dict]) -> dict:
    for e in events:
        if e["kind"] == "agent.output" and e.get("stream") == "stdout" and '"subtype":"init"' in e["text"]:
            return json.loads(e["text"])
    raise AssertionError("no init event in Claude Code's stream-json output")


def _tool_names(body: dict) -> set[str]:
    names = set()
    for t in body.get("tools", []):
        names.add(t.get("name"))
        names.update(f"{t.get('name')}.{s.get('name')}" for s in t.get("tools", []))  # a namespace's
    return names


@pytest.mark.parametrize("sandbox", BACKENDS)
@pytest.mark.parametrize("adapter", sorted(AGENTS))
def test_real_agent_submits_through_the_mcp_server(tmp_path, adapter, sandbox):
    provider, script, model, var, submit_tool = AGENTS[adapter]
    db = tmp_path / "g.db"
    with provider(yaml.safe_load((SCRIPTS / script).read_text())["turns"]) as fp:
        env = dict(
            os.environ,
            **{f"{var}_BASE_URL": fp.base_url, f"{var}_API_KEY": "sk-host-mcp-e2e"},
            GAUNTLET_SOCKETS=str(tmp_path / "s"),
        )
        run, show = run_agent(adapter, model, sandbox, db, env)
        requests = list(fp.requests)
    events = show["events"]
    # the server's five tools reached the model: Codex sends them as the namespace tool
    # mcp__gauntlet, Claude Code as mcp__gauntlet__* (not deferred: ENABLE_TOOL_SEARCH=false)
    offered = _tool_names(requests[-1]["body"])
    sep = "." if adapter == "codex" else "__"
    assert {f"mcp__gauntlet{sep}{t}" for t in TOOLS} <= offered, offered
    if adapter == "claude-code":
        init = _claude_init(events)
        assert [(m["name"], m["status"]) for m in init["mcp_servers"]] == [("gauntlet", "connected")], init
    received = [e for e in events if e["kind"] == "submission.received"]
    assert received and all(e.get("via") == "mcp" for e in received), received
    assert [s for s in show["submissions"] if s["feedback"]], show["submissions"]
    assert submit_tool in [e["name"] for e in events if e["kind"] == "model.tool_call"]
    ops = [e["op"] for e in events if e["kind"] == "protocol.call"]
    assert "status" in ops and "submit" in ops and "feedback" in ops, ops
    last = json.dumps(requests[-1]["body"])
    assert "failed: 0" in last and "submission: 1" in last  # the feedback reached the agent via the tool


AGENT_CODE = r"""
import asyncio, os, sys
sys.path.insert(0, os.environ["GAUNTLET_MCP_LIB"])  # the MCP tree, mounted for `mcp: true`
from mcp import ClientSession, StdioServerParameters, stdio_client

FIXED = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n"


async def main():
    env = {k: os.environ[k] for k in ("PATH", "GAUNTLET_SOCKET", "GAUNTLET_MCP_LIB")}
    async with stdio_client(StdioServerParameters(command="gauntlet-agent", args=["mcp"], env=env)) as (r, w):
        async with ClientSession(r, w) as s:
            await s.initialize()
            print("STATUS", (await s.call_tool("status")).content[0].text.splitlines()[0])
            with open("calc.py", "w") as f:
                f.write(FIXED)
            res = await s.call_tool("submit")
            print("SUBMIT", res.is_error, "failed: 0" in res.content[0].text)


asyncio.run(main())
"""


@pytest.mark.parametrize(
    "where,sandbox",
    [("sandbox", "local"), pytest.param("sandbox", "docker", marks=BACKENDS[1].marks), ("host", "local")],
)
def test_an_agent_file_with_mcp_true_can_start_the_server(tmp_path, where, sandbox):
    """A command agent in the challenge's own image asks for MCP (`mcp: true`): the MCP tree
    is mounted (bound, for a host agent), and its own MCP client (the SDK from that tree,
    Debian's python3) starts `gauntlet-agent mcp` and submits through it."""
    sys.path.insert(0, str(ROOT / "tests"))
    from attempt_kit import make_package

    pkg = make_package(tmp_path / "pkg", fmt="sprint")
    agent = tmp_path / "mcp-agent.yaml"
    agent.write_text(
        yaml.safe_dump(
            {"name": "mcp-client", "where": where, "mcp": True, "command": ["/usr/bin/python3", "-c", AGENT_CODE]}
        )
    )
    db = tmp_path / "g.db"
    env = dict(os.environ, GAUNTLET_SOCKETS=str(tmp_path / "s"))
    run = cli(
        "run",
        str(pkg),
        "--agent",
        str(agent),
        "--sandbox",
        sandbox,
        "--time-scale",
        "10",
        "--headless",
        "--store",
        str(db),
        env=env,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    aid = run.stdout.strip().splitlines()[-1]
    events = json.loads(cli("show", aid, "--json", "--store", str(db), env=env).stdout)["events"]
    out = [e["text"] for e in events if e["kind"] == "agent.output" and e.get("stream") == "stdout"]
    assert "STATUS ok: true" in out and "SUBMIT False True" in out, out
    received = [e for e in events if e["kind"] == "submission.received"]
    assert [e.get("via") for e in received] == ["mcp"]
