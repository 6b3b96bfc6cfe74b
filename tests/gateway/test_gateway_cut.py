"""Issue 26, item 5: a call still streaming when its attempt ends is cut and metered.

A real upstream on loopback streams part of an answer (its first events, then nothing: it
would go on for ever); the agent has read what was sent when the attempt ends
(``inflight.cancel``, as the attempt's close does). The call leaves one ``model.call``
(status 499, cancelled, partial) carrying the usage the stream reported so far and at
least one output token per delta received, counted in the attempt's usage (it used to be
recorded with 0 tokens, "usage unknown"). A call cut before anything arrived stays unknown.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import tempfile
from pathlib import Path

import aiohttp
from aiohttp import web

from arena.gateway import Gateway, inflight
from gw_kit import PRICES, Events, register

CHAT, MESSAGES = "/v1/chat/completions", "/v1/messages"
SONNET = "anthropic/claude-sonnet-4-20250514"


def _sse(obj: dict, event: str | None = None) -> bytes:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(obj)}\n\n".encode()


ANTHROPIC_PART = [
    _sse(
        {"type": "message_start", "message": {"id": "m", "usage": {"input_tokens": 120, "output_tokens": 1}}},
        "message_start",
    ),
    _sse(
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        "content_block_start",
    ),
    *[
        _sse(
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": f"w{i} "}},
            "content_block_delta",
        )
        for i in range(7)
    ],
]
OPENAI_PART = [_sse({"choices": [{"index": 0, "delta": {"content": f"w{i} "}}]}) for i in range(5)]


class Upstream:
    """Sends ``part`` at once, then holds the stream open until it is closed."""

    def __init__(self, part: list[bytes] | None) -> None:
        self.part = part
        self.closed = asyncio.Event()
        self.never = asyncio.Event()
        self.arrived = asyncio.Event()

    async def handler(self, request: web.Request) -> web.StreamResponse:
        await request.read()
        self.arrived.set()
        if self.part is None:  # nothing at all: the answer has not begun
            try:
                await self.never.wait()
            finally:
                self.closed.set()
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await resp.prepare(request)
        try:
            await resp.write(b"".join(self.part))
            await self.never.wait()
        finally:
            self.closed.set()
        return resp


async def _run(tmp_path, part, path: str, model: str, n_events: int):
    up = Upstream(part)
    app = web.Application()
    app.router.add_post(path, up.handler)
    runner = web.AppRunner(app, access_log=None, handler_cancellation=True)  # sees the close
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    base = f"http://127.0.0.1:{site._server.sockets[0].getsockname()[1]}"
    root = Path(tempfile.mkdtemp(prefix="gw-", dir="/tmp"))
    gw = Gateway(
        root=root,
        env={
            "OPENAI_BASE_URL": base + "/v1",
            "OPENAI_API_KEY": "k",
            "ANTHROPIC_BASE_URL": base,
            "ANTHROPIC_API_KEY": "k",
        },
        prices=PRICES,
        transcript_dir=tmp_path / "t",
    )
    await gw.start()
    events = Events()
    got = b""
    try:
        g = register(gw, events, model=model)
        async with aiohttp.ClientSession() as s:
            post = asyncio.create_task(
                s.post(
                    g.tcp_url + path,
                    json={
                        "model": "x",
                        "stream": True,
                        "max_tokens": 500,
                        "messages": [{"role": "user", "content": "hi"}],
                    },
                    headers={"Authorization": f"Bearer {g.token}", "x-api-key": g.token},
                )
            )
            if part is None:
                while not up.arrived.is_set():  # the call reached the upstream, no answer yet
                    await asyncio.wait_for(up.arrived.wait(), 5)
            else:
                r = await asyncio.wait_for(post, 5)
                assert r.status == 200
                while got.count(b"\n\n") < n_events:
                    got += await asyncio.wait_for(r.content.readany(), 5)
            assert await inflight.cancel(gw, "a1") == 1  # the attempt ends
            await asyncio.wait_for(up.closed.wait(), 5)  # the upstream stream is closed too
            try:
                (await post).close()
            except aiohttp.ClientError:
                pass  # cut before its headers: the agent sees the connection close
        usage = gw.usage("a1")
    finally:
        await gw.aclose()
        await runner.cleanup()
        shutil.rmtree(root, ignore_errors=True)
    return events, usage


async def test_an_anthropic_stream_cut_at_attempt_end_is_metered_with_what_was_received(tmp_path):
    events, usage = await _run(tmp_path, ANTHROPIC_PART, MESSAGES, SONNET, len(ANTHROPIC_PART))
    [ev] = events.of("model.call")
    assert ev["status"] == 499 and ev["cancelled"] is True and ev["partial"] is True
    assert ev["input_tokens"] == 120  # message_start's usage
    assert ev["output_tokens"] == 7  # one per text delta received (message_start said 1)
    assert ev["output_estimated"] is True and ev["cost_usd"] > 0
    assert usage.input_tokens == 120 and usage.output_tokens == 7 and usage.calls == 1
    assert "usage is unknown" not in ev["detail"]


async def test_an_openai_stream_cut_at_attempt_end_counts_its_deltas(tmp_path):
    events, usage = await _run(tmp_path, OPENAI_PART, CHAT, "openai/gpt-4.1-mini", len(OPENAI_PART))
    [ev] = events.of("model.call")
    assert ev["status"] == 499 and ev["cancelled"] is True and ev["partial"] is True
    assert ev["output_tokens"] == 5 and usage.output_tokens == 5 and usage.calls == 1


async def test_a_call_cut_before_its_answer_began_is_metered_by_its_input(tmp_path):
    """Its input was sent (the provider may bill it): charged by the request's size, the
    output 0 (issue 36; it used to be "usage unknown", 0 tokens)."""
    events, usage = await _run(tmp_path, None, CHAT, "openai/gpt-4.1-mini", 0)
    [ev] = events.of("model.call")
    assert ev["status"] == 499 and ev["cancelled"] is True and ev["input_estimated"] is True
    assert ev["input_tokens"] > 0 and ev["output_tokens"] == 0 and usage.tokens == ev["input_tokens"]
