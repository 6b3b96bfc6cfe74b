"""The Gauntlet MCP server (`gauntlet-agent mcp`, arena/agents/gauntlet_mcp.py), started as a
process and driven by the official `mcp` SDK's client over stdio against real attempts on
the local backend: its tools make the CLI's requests (same replies, same refusals, same
events), and a submission made through it is stored like one made through the CLI except
for `via: "mcp"` on its submission.received."""

from __future__ import annotations

import asyncio
import os
import sys
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
import yaml
from mcp import ClientSession, StdioServerParameters, stdio_client

from arena.challenge import load_challenge
from arena.clock import ManualTime
from arena import events as ev
from attempt_kit import CALC_FIXED, make_package, of, open_arena, stored

TOOLS = {"status", "briefing", "submit", "feedback", "message"}


async def _until_judged(a, clock: ManualTime, call) -> object:
    """Await ``call`` while stepping the manual clock only when a submission waits for its
    double-submit window (nothing else moves the attempt clock: no hang, no cutoff)."""
    task = asyncio.ensure_future(call)
    while not task.done():
        await asyncio.sleep(0.01)
        if a.desk._tasks and not a.io_busy and not task.done():
            await clock.step(1.0)
    return task.result()


async def _live(arena, pkg: Path):
    """A human attempt (it waits on protocol calls), started, with its socket up."""
    a = arena.attempt(load_challenge(pkg), "human")
    task = asyncio.create_task(arena.run_one(a))
    while not of(a.events, ev.AGENT_STARTED) and not a.ready:
        assert not task.done(), "the attempt ended before it started"
        await asyncio.sleep(0.02)
    (a.workspace / "calc.py").write_text(CALC_FIXED)  # the same work in every attempt
    return a, task


@asynccontextmanager
async def _mcp(a):
    tool = a.agent_dir / "bin" / "host" / "gauntlet-agent"  # the copy a host agent runs
    params = StdioServerParameters(command=str(tool), args=["--socket", str(a.agent_dir / "agent.sock"), "mcp"])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            yield session


async def _cli(a, *args: str) -> tuple[int, str]:
    proc = await asyncio.create_subprocess_exec(
        str(a.agent_dir / "bin" / "host" / "gauntlet-agent"),
        "--socket",
        str(a.agent_dir / "agent.sock"),
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await proc.communicate()
    return proc.returncode, out.decode() + err.decode()


def _text(result) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


async def _end(a, task) -> None:
    a.finish("finished", "test over")
    await asyncio.wait_for(task, 60)


async def test_mcp_tools_make_the_cli_requests_and_submit_records_via(tmp_path):
    pkg = make_package(tmp_path / "pkg", fmt="sprint")  # a budget of 2
    clock = ManualTime()
    arena = await open_arena(tmp_path, clock)
    try:
        a_cli, t_cli = await _live(arena, pkg)
        code, out = await _until_judged(a_cli, clock, _cli(a_cli, "submit"))
        assert code == 0, out
        cli_feedback = yaml.safe_load(out)
        await _end(a_cli, t_cli)

        a, task = await _live(arena, pkg)
        async with _mcp(a) as s:
            assert {t.name for t in (await s.list_tools()).tools} == TOOLS
            brief = await s.call_tool("briefing")
            assert not brief.is_error and "Fix calc.py" in yaml.safe_load(_text(brief))["briefing"]
            st = yaml.safe_load(_text(await s.call_tool("status")))
            assert st["submissions_left"] == 2 and st["attempt"] == a.id
            none_yet = await s.call_tool("feedback")
            assert none_yet.is_error and "no_feedback" in _text(none_yet)  # the CLI's refusal, as a tool error
            sub = await _until_judged(a, clock, s.call_tool("submit"))
            assert not sub.is_error, _text(sub)
            fb = yaml.safe_load(_text(sub))
            assert fb["submission"] == 1 and fb["tests"] == cli_feedback["tests"]
            assert yaml.safe_load(_text(await s.call_tool("feedback", {"n": 1}))) == fb
            bad_n = await s.call_tool("feedback", {"n": 0})
            assert bad_n.is_error and ">= 1" in _text(bad_n)
            assert not (await s.call_tool("message", {"text": "through MCP"})).is_error
            await clock.step(31.0)  # past the double-submit window: a submission of its own
            sub2 = await _until_judged(a, clock, s.call_tool("submit"))
            assert not sub2.is_error and yaml.safe_load(_text(sub2))["submission"] == 2
            # past the budget: a tool error with the reason the CLI gets for the same refusal
            await clock.step(31.0)
            refused = await asyncio.wait_for(s.call_tool("submit"), 30)
            assert refused.is_error
            mcp_reply = yaml.safe_load(_text(refused))
            code, out = await _cli(a, "submit")
            assert code == 1 and yaml.safe_load(out) == mcp_reply
            assert mcp_reply["ok"] is False and mcp_reply["code"] == "budget_spent", mcp_reply
            assert "budget spent: 2 of 2" in mcp_reply["reason"]
        await _end(a, task)
        cli_events, mcp_events = await stored(arena, a_cli.id), await stored(arena, a.id)
    finally:
        await arena.close()
    (cli_rx,) = of(cli_events, ev.SUBMISSION_RECEIVED)
    mcp_rx = of(mcp_events, ev.SUBMISSION_RECEIVED)
    assert "via" not in cli_rx.data  # the CLI path records nothing new
    assert [r.data.get("via") for r in mcp_rx] == ["mcp", "mcp"]
    assert {k: v for k, v in mcp_rx[0].data.items() if k != "via"} == cli_rx.data  # otherwise the same
    assert of(mcp_events, ev.AGENT_MESSAGE)[0].data["text"] == "through MCP"
    ops = [e.data["op"] for e in of(mcp_events, ev.PROTOCOL_CALL)]
    # feedback n=0 is refused by the client's own check, as the CLI's (no request is made)
    assert ops == ["briefing", "status", "feedback", "submit", "feedback", "message", "submit", "submit", "submit"]
    refusals = of(mcp_events, ev.SUBMISSION_REFUSED)
    assert [r.data["code"] for r in refusals] == ["budget_spent", "budget_spent"]  # MCP's and the CLI's


async def test_a_submission_via_anything_else_is_refused_and_nothing_is_recorded(tmp_path):
    pkg = make_package(tmp_path / "pkg", fmt="sprint")
    arena = await open_arena(tmp_path, ManualTime())
    try:
        a, task = await _live(arena, pkg)
        reply = await a.request({"op": "submit", "via": "carrier-pigeon"})
        await _end(a, task)
        events = await stored(arena, a.id)
    finally:
        await arena.close()
    assert reply["ok"] is False and reply["code"] == "bad_request" and "mcp" in reply["reason"]
    assert not of(events, ev.SUBMISSION_RECEIVED)


def test_mcp_without_the_sdk_is_a_clear_error(tmp_path):
    """Where the SDK is missing (no MCP tree mounted, none installed), one line says why."""
    import subprocess

    fake = tmp_path / "lib" / "mcp"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError('no SDK here')\n")
    client = Path(__file__).resolve().parents[1] / "arena" / "agents" / "client.py"
    env = dict(os.environ, GAUNTLET_MCP_LIB=str(tmp_path / "lib"))
    out = subprocess.run(
        [sys.executable, str(client), "--socket", "/nonexistent", "mcp"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert out.returncode == 2 and "no SDK here" in out.stderr and "mcp: true" in out.stderr
    assert "Traceback" not in out.stderr


@pytest.mark.parametrize("args", [["mcp", "extra"]])
def test_mcp_takes_no_arguments(args):
    import subprocess

    client = Path(__file__).resolve().parents[1] / "arena" / "agents" / "client.py"
    out = subprocess.run([sys.executable, str(client), "--socket", "/x", *args], capture_output=True, text=True)
    assert out.returncode == 2 and "takes no arguments" in out.stderr


def test_agent_file_mcp_key(tmp_path):
    from arena.agents.agent_file import load_agent_file
    from arena.errors import UsageError

    f = tmp_path / "a.yaml"
    f.write_text("name: a\ncommand: [true]\nwhere: sandbox\nmcp: true\n")
    assert load_agent_file(f).mcp is True
    f.write_text("name: a\ncommand: [true]\n")
    assert load_agent_file(f).mcp is False
    f.write_text("name: a\ncommand: [true]\nmcp: 'yes'\n")
    with pytest.raises(UsageError, match="key 'mcp': expected true or false"):
        load_agent_file(f)


def test_the_adapters_that_speak_mcp_register_the_server_and_name_its_tools():
    from arena.adapters import get_adapter, names

    speaking = {n for n in names() if get_adapter(n).mcp}
    assert speaking == {"claude-code", "codex", "openhands"}
    for n in names():
        text = get_adapter(n).task_text("BRIEF")
        assert ("`gauntlet` MCP server" in text) == (n in speaking), n
        assert "gauntlet-agent submit" in text  # the shell's verbs are always there too
