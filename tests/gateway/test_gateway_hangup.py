"""Issue 26, item 5: a client that hangs up mid-stream closes the upstream stream at once.

A real upstream on loopback streams an endless answer (a usage-bearing first chunk, then a
text delta every 50 ms); the client reads the first event and hangs up. The upstream sees
its stream closed within 1 s (the gateway used to read on to the end: 179 s once), and
the call is metered with the usage seen so far, marked ``client_gone``.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import tempfile
import time
from pathlib import Path

import aiohttp
from aiohttp import web

from arena.gateway import Gateway
from gw_kit import PRICES, Events, register

CHAT = "/v1/chat/completions"


async def test_hang_up_closes_the_upstream_within_a_second(tmp_path):
    closed: list[float] = []

    async def endless(request: web.Request) -> web.StreamResponse:
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await resp.prepare(request)
        first = {
            "choices": [{"index": 0, "delta": {"role": "assistant"}}],
            "usage": {"prompt_tokens": 9, "completion_tokens": 1},
        }
        await resp.write(f"data: {json.dumps(first)}\n\n".encode())
        try:
            for i in range(6000):  # 5 minutes of deltas unless the reader goes away
                await asyncio.sleep(0.05)
                delta = {"choices": [{"index": 0, "delta": {"content": f"w{i} "}}]}
                await resp.write(f"data: {json.dumps(delta)}\n\n".encode())
        except (ConnectionError, asyncio.CancelledError):
            closed.append(time.monotonic())
            raise
        return resp

    app = web.Application()
    app.router.add_post(CHAT, endless)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]
    root = Path(tempfile.mkdtemp(prefix="gw-", dir="/tmp"))
    gw = Gateway(
        root=root,
        env={"OPENAI_BASE_URL": f"http://127.0.0.1:{port}/v1", "OPENAI_API_KEY": "k"},
        prices=PRICES,
        transcript_dir=tmp_path / "t",
    )
    await gw.start()
    events = Events()
    try:
        g = register(gw, events)
        async with aiohttp.ClientSession() as s:
            r = await s.post(
                g.tcp_url + CHAT,
                json={"model": "x", "stream": True, "messages": []},
                headers={"Authorization": f"Bearer {g.token}"},
            )
            await asyncio.wait_for(r.content.readuntil(b"\n\n"), 5)
            r.close()  # the agent hangs up
            hung_up = time.monotonic()
        for _ in range(200):
            if closed and events.of("model.call"):
                break
            await asyncio.sleep(0.01)
        assert closed, "the upstream stream was still open 2 s after the hang-up"
        assert closed[0] - hung_up < 1.0
        [ev] = events.of("model.call")
        assert ev["client_gone"] is True and ev["input_tokens"] == 9  # metered with what was seen
    finally:
        await gw.aclose()
        await runner.cleanup()
        shutil.rmtree(root, ignore_errors=True)
