"""Limits cannot be bypassed by hanging up (issue 36, item 2).

A provider reports a stream's usage at its end (OpenAI: a last usage-only chunk; the
Responses API: ``response.completed``; Anthropic: the output in ``message_delta``). A call
that ends before that — the agent hangs up, the upstream breaks, the attempt ends — used
to be metered with what the stream had reported so far: 0 tokens for OpenAI, while the
agent had its answer. Now it is metered by the best estimate available (the input from
the request's size, the output at least one token per delta event received), charged at
once, and the next call finds the limit reached.

A real upstream on loopback (``Drip``) streams one delta per output token allowed, 10 ms
apart, and its usage at the end. The gateway is the same whatever backend ran the agent;
the relay a sandboxed agent talks through is covered on docker by the last test.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
import tempfile
from pathlib import Path

import aiohttp
import pytest
from aiohttp import web

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "gateway"))

from arena.gateway import Gateway  # noqa: E402
from arena.gateway.guard import BYTES_PER_TOKEN  # noqa: E402
from arena.gateway.inflight import cancel  # noqa: E402
from gw_kit import PRICES, Events, register  # noqa: E402

CHAT, RESPONSES, MESSAGES = "/v1/chat/completions", "/v1/responses", "/v1/messages"
APIS = {  # path -> (model, max-tokens key)
    CHAT: ("openai/gpt-4.1-mini", "max_tokens"),
    RESPONSES: ("openai/gpt-4.1-mini", "max_output_tokens"),
    MESSAGES: ("anthropic/claude-sonnet-4-20250514", "max_tokens"),
}
PROMPT = [{"role": "user", "content": "write a long story"}]


def _sse(obj: dict, event: str | None = None) -> bytes:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(obj)}\n\n".encode()


class Drip:
    """A provider streaming ``min(max tokens, 400)`` one-token deltas 10 ms apart, usage
    last; ``break_after``: the connection is dropped after that many deltas."""

    def __init__(self, break_after: int | None = None) -> None:
        self.break_after = break_after
        self.sent: list[int] = []  # deltas sent per call
        self.seen = 0  # calls received

    async def handler(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        self.seen += 1
        path = request.path.removeprefix("/openai").removeprefix("/anthropic")
        n = min(400, int(body.get("max_tokens") or body.get("max_output_tokens") or 400))
        n = min(n, int(body.get("max_completion_tokens") or n))
        if not body.get("stream"):
            for _ in range(3000):  # thinking long (60 s): the attempt ends first, the gateway hangs up
                await asyncio.sleep(0.02)
                if request.transport is None or request.transport.is_closing():
                    break
            return web.json_response({"error": "gone"}, status=500)
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await resp.prepare(request)
        self.sent.append(0)
        inp = 57
        if path == MESSAGES:
            start = {
                "id": "m",
                "type": "message",
                "role": "assistant",
                "usage": {"input_tokens": inp, "output_tokens": 1},
            }
            await resp.write(_sse({"type": "message_start", "message": start}, "message_start"))
        elif path == RESPONSES:
            await resp.write(_sse({"type": "response.created", "response": {"id": "r"}}, "response.created"))
        for i in range(n):
            if self.break_after is not None and i == self.break_after:
                request.transport.abort()  # type: ignore[union-attr]  # the provider's connection drops
                return resp
            await asyncio.sleep(0.01)
            if path == MESSAGES:
                d = {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "w "}}
                await resp.write(_sse(d, "content_block_delta"))
            elif path == RESPONSES:
                d = {"type": "response.output_text.delta", "delta": "w "}
                await resp.write(_sse(d, "response.output_text.delta"))
            else:
                await resp.write(_sse({"choices": [{"index": 0, "delta": {"content": "w "}}]}))
            self.sent[-1] += 1
        if path == MESSAGES:
            await resp.write(_sse({"type": "message_delta", "usage": {"output_tokens": n}}, "message_delta"))
            await resp.write(_sse({"type": "message_stop"}, "message_stop"))
        elif path == RESPONSES:
            usage = {"input_tokens": inp, "output_tokens": n}
            await resp.write(_sse({"type": "response.completed", "response": {"usage": usage}}, "response.completed"))
        else:
            await resp.write(_sse({"choices": [], "usage": {"prompt_tokens": inp, "completion_tokens": n}}))
            await resp.write(b"data: [DONE]\n\n")
        return resp


class Rig:
    def __init__(self, tmp: Path, drip: Drip) -> None:
        self.tmp, self.drip = tmp, drip

    async def __aenter__(self) -> "Rig":
        app = web.Application()
        for p in (CHAT, RESPONSES):
            app.router.add_post("/openai/v1" + p.removeprefix("/v1"), self.drip.handler)
        app.router.add_post("/anthropic" + MESSAGES, self.drip.handler)
        self.runner = web.AppRunner(app, access_log=None)
        await self.runner.setup()
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        env = {
            "OPENAI_BASE_URL": f"http://127.0.0.1:{port}/openai/v1",
            "OPENAI_API_KEY": "k",
            "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port}/anthropic",
            "ANTHROPIC_API_KEY": "k",
        }
        self.root = Path(tempfile.mkdtemp(prefix="gw-", dir="/tmp"))  # short: unix socket paths
        self.gw = Gateway(root=self.root, env=env, prices=PRICES, transcript_dir=self.tmp / "t")
        await self.gw.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.gw.aclose()
        await self.runner.cleanup()
        shutil.rmtree(self.root, ignore_errors=True)


def _headers(path: str, token: str) -> dict[str, str]:
    return {"x-api-key": token} if path == MESSAGES else {"Authorization": f"Bearer {token}"}


def _body(path: str) -> dict:
    if path == RESPONSES:
        return {"model": "x", "stream": True, "input": PROMPT}
    return {"model": "x", "stream": True, "messages": PROMPT}


async def _read_deltas(r: aiohttp.ClientResponse, n: int) -> int:
    """Read the answer until ``n`` deltas arrived (or it ended); how many arrived."""
    got = 0
    while got < n:
        try:
            line = await asyncio.wait_for(r.content.readline(), 10)
        except aiohttp.ClientPayloadError:
            break
        if not line:
            break
        if line.startswith(b"data:") and b"delta" in line and b"message_delta" not in line:
            got += 1
    return got


async def _calls(events: Events, n: int) -> list[dict]:
    for _ in range(500):
        calls = events.of("model.call")
        if len(calls) >= n:
            return calls
        await asyncio.sleep(0.01)
    raise AssertionError(f"{len(events.of('model.call'))} model.call events, expected {n}")


def _estimate_in(path: str) -> int:
    body = _body(path)
    return len(json.dumps(body)) // BYTES_PER_TOKEN  # the gateway's guess is from the raw bytes


@pytest.mark.parametrize("path", list(APIS))
async def test_hanging_up_before_the_usage_is_metered_and_the_limit_holds(tmp_path, path):
    """Tokens limit 200; each call's answer is read for 20 deltas, then the agent hangs up
    (the usage would come last). The calls are charged at once: the limit is reached and
    refused within a few calls; what the agent received is all counted."""
    model, _ = APIS[path]
    async with Rig(tmp_path, Drip()) as rig:
        events = Events()
        g = register(rig.gw, events, model=model, tokens=200)
        received, statuses = 0, []
        async with aiohttp.ClientSession() as s:
            for _ in range(10):
                r = await s.post(g.tcp_url + path, json=_body(path), headers=_headers(path, g.token))
                statuses.append(r.status)
                if r.status == 200:
                    received += await _read_deltas(r, 20)
                r.close()  # the agent hangs up before the end of the stream
                await _calls(events, len(statuses))
        calls = events.of("model.call")
        gone = [c for c in calls if c.get("client_gone")]  # the last may end before 20 deltas
        assert len(gone) >= 2, calls
        for c in gone:
            # today: 0 tokens (OpenAI's usage comes last) or 1 output token (Anthropic's message_start)
            assert (c["output_tokens"] or 0) >= 20 and (c["input_tokens"] or 0) > 0, c
            assert c.get("partial") and c.get("output_estimated"), c
        used = sum(c["input_tokens"] + c["output_tokens"] for c in calls)
        assert used >= received, (used, received)
        assert 429 in statuses, (statuses, used, received)  # the limit held
        assert received <= 200, received
        st = rig.gw._attempts["a1"]
        assert st.usage.tokens == used and st.reserved_tokens == 0  # charged; every reservation settled


@pytest.mark.parametrize("path", list(APIS))
@pytest.mark.parametrize("how", ["upstream_breaks", "attempt_ends"])
async def test_a_stream_cut_by_an_error_or_the_attempts_end_is_metered(tmp_path, path, how):
    model, _ = APIS[path]
    async with Rig(tmp_path, Drip(break_after=30 if how == "upstream_breaks" else None)) as rig:
        events = Events()
        g = register(rig.gw, events, model=model)
        async with aiohttp.ClientSession() as s:
            r = await s.post(g.tcp_url + path, json=_body(path), headers=_headers(path, g.token))
            got = await _read_deltas(r, 25)
            if how == "attempt_ends":
                assert await cancel(rig.gw, "a1") == 1
            else:
                got += await _read_deltas(r, 1000)
            r.close()
        [c] = await _calls(events, 1)
        assert c["status"] == (499 if how == "attempt_ends" else 502), c
        assert (c["output_tokens"] or 0) >= got >= 25, (c, got)
        assert (c["input_tokens"] or 0) >= (57 if path == MESSAGES else _estimate_in(path) // 2), c
        assert c.get("partial") and c.get("output_estimated"), c


@pytest.mark.parametrize("path", list(APIS))
async def test_a_call_not_streamed_cut_by_the_attempts_end_is_metered(tmp_path, path):
    """The provider was still thinking (nothing received) when the attempt ended: the
    input was sent and may be billed, so it is charged by the request's size (was: 0)."""
    model, _ = APIS[path]
    async with Rig(tmp_path, Drip()) as rig:
        events = Events()
        g = register(rig.gw, events, model=model)
        async with aiohttp.ClientSession() as s:
            call = asyncio.ensure_future(
                s.post(g.tcp_url + path, json={**_body(path), "stream": False}, headers=_headers(path, g.token))
            )
            for _ in range(500):
                if rig.drip.seen:
                    break
                await asyncio.sleep(0.01)
            assert await cancel(rig.gw, "a1") == 1
            call.cancel()
        [c] = await _calls(events, 1)
        assert c["status"] == 499 and c.get("cancelled") and c.get("input_estimated"), c
        assert (c["input_tokens"] or 0) >= _estimate_in(path) // 2 and c["output_tokens"] == 0, c
        assert rig.gw._attempts["a1"].usage.tokens == c["input_tokens"]


@pytest.mark.docker
async def test_a_sandboxed_agent_hanging_up_through_the_relay_is_metered(tmp_path):
    """Docker: the agent (in a sandbox with no network, through the relay) reads 20 deltas
    of a streamed chat answer and exits; the gateway meters what it had sent."""
    from arena.gateway import RELAY_PATH, RELAY_PORT, SANDBOX_RELAY_DIR, SANDBOX_SOCKET_DIR, wrap_agent_argv
    from arena.sandbox import Limits, Mount, get_backend

    agent = (
        "import json, os, urllib.request\n"
        f"body = {json.dumps(_body(CHAT))!r}.encode()\n"
        "req = urllib.request.Request(os.environ['OPENAI_BASE_URL'] + '/chat/completions', data=body,\n"
        "    headers={'Content-Type': 'application/json', 'Authorization': 'Bearer ' + os.environ['OPENAI_API_KEY']})\n"
        "r = urllib.request.urlopen(req, timeout=20)\n"
        "got = 0\n"
        "while got < 20:\n"
        "    line = r.readline()\n"
        "    got += line.startswith(b'data:') and b'delta' in line\n"
        "print('GOT', got, flush=True)\n"
        "os._exit(0)\n"
    )
    async with Rig(tmp_path, Drip()) as rig:
        events = Events()
        g = register(rig.gw, events)
        ws = tmp_path / "ws"
        ws.mkdir()
        sb = await get_backend("docker").create(
            ws,
            Limits(wall_s=60),
            mounts=[
                Mount(g.socket_dir, SANDBOX_SOCKET_DIR, True),
                Mount(Path(RELAY_PATH).parent, SANDBOX_RELAY_DIR, True),
            ],
        )
        rig.gw.allow_uid("a1", sb.uid)
        try:
            argv = wrap_agent_argv(["python3", "-c", agent], RELAY_PORT)
            res = await sb.exec(argv, env=g.sandbox_env(RELAY_PORT), timeout=60)
            assert b"GOT 20" in res.stdout, (res.stdout, res.stderr)
            [c] = await _calls(events, 1)
        finally:
            await sb.close()
        assert c.get("client_gone") and (c["output_tokens"] or 0) >= 20 and (c["input_tokens"] or 0) > 0, c
