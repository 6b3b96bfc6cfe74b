"""The gateway forwards both APIs, streamed and not, to the host's upstream, and meters
them: token counts, tool calls, host key in place of the attempt's token."""

from __future__ import annotations

import asyncio
import os

import aiohttp
import pytest

from gw_kit import HOST_ANTHROPIC_KEY, HOST_OPENAI_KEY, call, register
from gw_upstream import ANTHROPIC_TOOL, OPENAI_TOOL

CHAT = "/v1/chat/completions"
MSGS = "/v1/messages"
ASK = {"model": "gpt-4.1-mini", "messages": [{"role": "user", "content": "hi"}]}
ASK_ANT = {"model": "claude-sonnet-4-20250514", "max_tokens": 100, "messages": [{"role": "user", "content": "hi"}]}
SONNET = "anthropic/claude-sonnet-4-20250514"


async def test_openai_not_streamed_through_the_attempt_socket(gateway, upstream, events):
    g = register(gateway, events)
    r = await call(CHAT, ASK, token=g.token, sock=g.socket_path)
    assert r.status == 200
    assert r.json()["choices"][0]["message"]["content"] == "Hello there, agent."
    # the upstream saw the host's key, never the attempt's token
    assert upstream.seen[-1].authorization == f"Bearer {HOST_OPENAI_KEY}"
    assert g.token not in str(upstream.seen[-1])
    [ev] = events.of("model.call")
    assert ev["provider"] == "openai" and ev["model"] == "gpt-4.1-mini"
    assert (ev["input_tokens"], ev["output_tokens"], ev["status"]) == (12, 5, 200)
    assert ev["latency_ms"] >= 0 and ev["stream"] is False
    assert ev["cost_usd"] == pytest.approx((12 * 0.40 + 5 * 1.60) / 1e6)
    u = gateway.usage("a1")
    assert (u.input_tokens, u.output_tokens, u.tokens, u.calls) == (12, 5, 17, 1)


async def test_openai_streamed_counts_tokens_and_hides_the_injected_usage_chunk(gateway, upstream, events):
    g = register(gateway, events)
    r = await call(CHAT, {**ASK, "stream": True}, token=g.token, url=g.tcp_url)
    assert r.status == 200 and r.headers["Content-Type"].startswith("text/event-stream")
    chunks = r.sse()
    assert chunks[-1] == "[DONE]"
    text = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks[:-1])
    assert text == "Hello there, agent."
    assert all(c["choices"] for c in chunks[:-1])  # the agent did not ask for usage
    assert upstream.seen[-1].body["stream_options"] == {"include_usage": True}
    [ev] = events.of("model.call")
    assert (ev["input_tokens"], ev["output_tokens"], ev["stream"]) == (12, 5, True)


async def test_openai_streamed_usage_kept_when_the_agent_asked(gateway, upstream, events):
    g = register(gateway, events)
    body = {**ASK, "stream": True, "stream_options": {"include_usage": True}}
    r = await call(CHAT, body, token=g.token, url=g.tcp_url)
    usage = [c for c in r.sse()[:-1] if not c["choices"]]
    assert usage[0]["usage"]["prompt_tokens"] == 12


async def test_openai_tool_calls_not_streamed_and_streamed(gateway, upstream, events):
    g = register(gateway, events)
    upstream.replies = [OPENAI_TOOL, OPENAI_TOOL]
    r = await call(CHAT, ASK, token=g.token, sock=g.socket_path)
    assert r.json()["choices"][0]["message"]["tool_calls"][0]["function"]["name"] == "bash"
    r = await call(CHAT, {**ASK, "stream": True}, token=g.token, sock=g.socket_path)
    names = [
        tc["function"].get("name") for c in r.sse()[:-1] for tc in c["choices"][0]["delta"].get("tool_calls") or []
    ]
    assert [n for n in names if n] == ["bash", "read_file"]
    assert [e["name"] for e in events.of("model.tool_call")] == ["bash", "read_file"] * 2
    assert [e["input_tokens"] for e in events.of("model.call")] == [40, 40]


async def test_anthropic_not_streamed_and_streamed_with_tool_use(gateway, upstream, events):
    g = register(gateway, events, model=SONNET)
    upstream.replies = [ANTHROPIC_TOOL]
    r = await call(MSGS, ASK_ANT, token=g.token, sock=g.socket_path, anthropic=True)
    assert r.status == 200 and r.json()["content"][1]["name"] == "str_replace_editor"
    assert upstream.seen[-1].x_api_key == HOST_ANTHROPIC_KEY
    assert upstream.seen[-1].authorization is None
    r = await call(MSGS, {**ASK_ANT, "stream": True}, token=g.token, sock=g.socket_path, anthropic=True)
    kinds = [e["type"] for e in r.sse()]
    assert kinds[0] == "message_start" and kinds[-1] == "message_stop"
    calls = events.of("model.call")
    assert [(c["input_tokens"], c["output_tokens"], c["stream"]) for c in calls] == [(55, 30, False), (20, 7, True)]
    assert [e["name"] for e in events.of("model.tool_call")] == ["str_replace_editor"]
    assert calls[0]["cost_usd"] == pytest.approx((55 * 3 + 30 * 15) / 1e6)
    assert gateway.usage("a1").tokens == 55 + 30 + 20 + 7


async def test_streamed_answer_is_passed_on_before_the_upstream_finishes(gateway, upstream, events):
    g = register(gateway, events)
    upstream.hold = asyncio.Event()
    async with aiohttp.ClientSession() as s:
        async with s.post(
            g.tcp_url + CHAT, json={**ASK, "stream": True}, headers={"Authorization": f"Bearer {g.token}"}
        ) as r:
            first = await asyncio.wait_for(r.content.readuntil(b"\n\n"), 5)
            assert b'"role": "assistant"' in first  # arrived while the upstream holds
            assert events.of("model.call") == []
            upstream.hold.set()
            rest = await asyncio.wait_for(r.read(), 5)
    assert rest.endswith(b"data: [DONE]\n\n")
    assert events.of("model.call")[0]["output_tokens"] == 5


async def test_granted_model_is_forwarded_whatever_the_agent_names(gateway, upstream, events):
    g = register(gateway, events)
    await call(CHAT, {**ASK, "model": "gpt-4o"}, token=g.token, url=g.tcp_url)
    assert upstream.seen[-1].body["model"] == "gpt-4.1-mini"


async def test_wrong_api_for_the_attempts_provider_is_refused(gateway, upstream, events):
    g = register(gateway, events)
    r = await call(MSGS, ASK_ANT, token=g.token, url=g.tcp_url, anthropic=True)
    assert r.status == 400 and "/v1/chat/completions" in r.json()["error"]["message"]
    assert upstream.seen == []


async def test_models_endpoint_lists_the_granted_model(gateway, events):
    g = register(gateway, events)
    async with aiohttp.ClientSession() as s:
        async with s.get(g.tcp_url + "/v1/models", headers={"Authorization": f"Bearer {g.token}"}) as r:
            assert (await r.json())["data"][0]["id"] == "gpt-4.1-mini"


async def test_host_keys_are_nowhere_in_the_grant_or_socket_dir(gateway, events):
    g = register(gateway, events)
    env = g.sandbox_env(4000)
    assert env["OPENAI_API_KEY"] == env["ANTHROPIC_API_KEY"] == g.token
    assert env["OPENAI_BASE_URL"] == "http://127.0.0.1:4000/v1"
    assert HOST_OPENAI_KEY not in repr(env) + repr(g) + repr(g.host_env())
    assert os.listdir(g.socket_dir) == ["gateway.sock"]
    assert os.stat(g.socket_dir).st_mode & 0o777 == 0o755
