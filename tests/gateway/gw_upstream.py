"""A fake model provider for the gateway's tests and benchmark: a real aiohttp server on
127.0.0.1 speaking OpenAI Chat Completions and Anthropic Messages, streamed and not,
replaying canned answers (text or a tool call) and recording what it was sent.

Streams follow the providers' documented shapes: OpenAI sends a role delta, content or
tool-call deltas, a finish chunk, a usage-only chunk (only when the request asked for
``stream_options.include_usage``) and ``data: [DONE]``; Anthropic sends message_start,
content_block_start/delta/stop per block, message_delta (usage) and message_stop.
"""

from __future__ import annotations

import asyncio
import copy
import json
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

OPENAI_TEXT = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "model": "gpt-4.1-mini",
    "choices": [
        {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "Hello there, agent."}}
    ],
    "usage": {"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17},
}
OPENAI_TOOL = {
    "id": "chatcmpl-2",
    "object": "chat.completion",
    "model": "gpt-4.1-mini",
    "choices": [
        {
            "index": 0,
            "finish_reason": "tool_calls",
            "message": {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "call_1", "type": "function", "function": {"name": "bash", "arguments": '{"cmd": "ls"}'}},
                    {
                        "id": "call_2",
                        "type": "function",
                        "function": {"name": "read_file", "arguments": '{"p": "a.py"}'},
                    },
                ],
            },
        }
    ],
    "usage": {"prompt_tokens": 40, "completion_tokens": 18, "total_tokens": 58},
}
ANTHROPIC_TEXT = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-20250514",
    "stop_reason": "end_turn",
    "content": [{"type": "text", "text": "Hello from Claude."}],
    "usage": {"input_tokens": 20, "output_tokens": 7},
}
ANTHROPIC_TOOL = {
    "id": "msg_2",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-20250514",
    "stop_reason": "tool_use",
    "content": [
        {"type": "text", "text": "Let me look."},
        {
            "type": "tool_use",
            "id": "tu_1",
            "name": "str_replace_editor",
            "input": {"command": "view", "path": "/workspace"},
        },
    ],
    "usage": {"input_tokens": 55, "output_tokens": 30},
}


def _sse(obj: Any, event: str | None = None) -> bytes:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(obj)}\n\n".encode()


def openai_chunks(reply: dict, include_usage: bool) -> list[bytes]:
    base = {"id": reply["id"], "object": "chat.completion.chunk", "model": reply["model"]}
    msg = reply["choices"][0]["message"]
    out = [_sse({**base, "choices": [{"index": 0, "delta": {"role": "assistant"}}]})]
    text = msg.get("content") or ""
    for i in range(0, len(text), 4):
        out.append(_sse({**base, "choices": [{"index": 0, "delta": {"content": text[i : i + 4]}}]}))
    for ti, tc in enumerate(msg.get("tool_calls") or []):
        first = {
            "index": ti,
            "id": tc["id"],
            "type": "function",
            "function": {"name": tc["function"]["name"], "arguments": ""},
        }
        out.append(_sse({**base, "choices": [{"index": 0, "delta": {"tool_calls": [first]}}]}))
        args = {"index": ti, "function": {"arguments": tc["function"]["arguments"]}}
        out.append(_sse({**base, "choices": [{"index": 0, "delta": {"tool_calls": [args]}}]}))
    out.append(
        _sse({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": reply["choices"][0]["finish_reason"]}]})
    )
    if include_usage:
        out.append(_sse({**base, "choices": [], "usage": reply["usage"]}))
    out.append(b"data: [DONE]\n\n")
    return out


def anthropic_events(reply: dict) -> list[bytes]:
    start = {
        **reply,
        "content": [],
        "stop_reason": None,
        "usage": {"input_tokens": reply["usage"]["input_tokens"], "output_tokens": 1},
    }
    out = [_sse({"type": "message_start", "message": start}, "message_start")]
    for i, block in enumerate(reply["content"]):
        if block["type"] == "text":
            out.append(
                _sse(
                    {"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}},
                    "content_block_start",
                )
            )
            out.append(
                _sse(
                    {"type": "content_block_delta", "index": i, "delta": {"type": "text_delta", "text": block["text"]}},
                    "content_block_delta",
                )
            )
        else:
            out.append(
                _sse(
                    {"type": "content_block_start", "index": i, "content_block": {**block, "input": {}}},
                    "content_block_start",
                )
            )
            out.append(
                _sse(
                    {
                        "type": "content_block_delta",
                        "index": i,
                        "delta": {"type": "input_json_delta", "partial_json": json.dumps(block["input"])},
                    },
                    "content_block_delta",
                )
            )
        out.append(_sse({"type": "content_block_stop", "index": i}, "content_block_stop"))
    out.append(
        _sse(
            {
                "type": "message_delta",
                "delta": {"stop_reason": reply["stop_reason"]},
                "usage": {"output_tokens": reply["usage"]["output_tokens"]},
            },
            "message_delta",
        )
    )
    out.append(_sse({"type": "message_stop"}, "message_stop"))
    return out


@dataclass
class Seen:
    path: str
    authorization: str | None
    x_api_key: str | None
    body: dict


@dataclass
class FakeUpstream:
    """``replies``: canned answers served in order (then the text answer). ``hold``: when
    set, a stream pauses after its first event until the event is set."""

    replies: list[dict] = field(default_factory=list)
    seen: list[Seen] = field(default_factory=list)
    hold: asyncio.Event | None = None
    port: int = 0
    _runner: web.AppRunner | None = None

    @property
    def openai_base(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def anthropic_base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> "FakeUpstream":
        app = web.Application(client_max_size=64 << 20)
        app.router.add_post("/v1/chat/completions", self._openai)
        app.router.add_post("/v1/messages", self._anthropic)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]
        return self

    async def aclose(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    def _next(self, default: dict) -> dict:
        return copy.deepcopy(self.replies.pop(0) if self.replies else default)

    async def _record(self, request: web.Request) -> dict:
        body = await request.json()
        self.seen.append(
            Seen(request.path, request.headers.get("Authorization"), request.headers.get("x-api-key"), body)
        )
        return body

    async def _stream(self, request: web.Request, parts: list[bytes]) -> web.StreamResponse:
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await resp.prepare(request)
        for i, part in enumerate(parts):
            await resp.write(part)
            if i == 0 and self.hold is not None:
                await self.hold.wait()
        await resp.write_eof()
        return resp

    async def _openai(self, request: web.Request) -> web.StreamResponse:
        body = await self._record(request)
        reply = self._next(OPENAI_TEXT)
        if not body.get("stream"):
            return web.json_response(reply)
        so = body.get("stream_options") or {}
        return await self._stream(request, openai_chunks(reply, so.get("include_usage") is True))

    async def _anthropic(self, request: web.Request) -> web.StreamResponse:
        body = await self._record(request)
        reply = self._next(ANTHROPIC_TEXT)
        if not body.get("stream"):
            return web.json_response(reply)
        return await self._stream(request, anthropic_events(reply))
