"""A sandboxed command agent's output is published line by line while it runs."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from arena.agents.command import AgentFile, CommandAgent
from arena.sandbox import Limits, get_backend
from arena import events as ev

from tests.observe.test_observe import BACKENDS


class Ctx:
    def __init__(self, sandbox) -> None:
        self.sandbox, self.published = sandbox, []
        self.sandbox_env = {"GAUNTLET_WORKSPACE": "/workspace", "GAUNTLET_BRIEFING": "b", "GAUNTLET_SOCKET": "s"}
        self.first = asyncio.Event()

    def publish(self, kind, data) -> None:
        self.published.append((kind, data))
        if kind == ev.AGENT_OUTPUT:
            self.first.set()

    def wall_seconds_left(self) -> float:
        return 60.0


@pytest.mark.parametrize("backend", BACKENDS)
async def test_agent_output_is_published_before_the_agent_exits(backend, tmp_path: Path):
    ws = tmp_path / "ws"
    ws.mkdir()
    sb = await get_backend(backend).create(ws, Limits(wall_s=60))
    try:
        agent = CommandAgent(
            "x",
            AgentFile(
                "streamer",
                ["sh", "-c", ("echo thinking; while [ ! -e /workspace/go ]; do sleep 0.02; done; echo done")],
                "sandbox",
            ),
        )
        ctx = Ctx(sb)
        task = asyncio.ensure_future(agent.run(ctx))
        await asyncio.wait_for(ctx.first.wait(), 30)
        assert not task.done()
        assert [d["text"] for k, d in ctx.published if k == ev.AGENT_OUTPUT] == ["thinking"]
        (ws / "go").write_text("")
        outcome = await asyncio.wait_for(task, 30)
        assert outcome.exit_code == 0
        outputs = [d["text"] for k, d in ctx.published if k == ev.AGENT_OUTPUT]
        assert outputs == ["thinking", "done"]  # nothing repeated at exit
    finally:
        await sb.close()
