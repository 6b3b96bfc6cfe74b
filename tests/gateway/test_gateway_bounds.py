"""Issue 26, items 3 and 4: the gateway is bounded, and its limits hold under parallel calls.

Real HTTP on loopback against a real gateway and the fake upstream:

- a body over the bound is refused with 413 before it is read (the client has sent only
  its headers), chunked bodies are cut at the bound; a flood of 24 parallel 60 MB bodies
  from another process leaves the arena's memory where it was;
- calls of one attempt past its bound of calls at once get 429 with one ``bound.reached``;
- 50 parallel calls against a 40-token limit use at most the limit plus one call; a
  ``max_tokens`` of a million is clamped to what the limit leaves, a missing one set.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from arena.gateway import Gateway, UsageLimits
from arena.gateway.guard import GatewayBounds, waiting
from gw_kit import PRICES, Events, call, gateway_env, register
from gw_upstream import ANTHROPIC_TEXT, OPENAI_TEXT

CHAT = "/v1/chat/completions"
ASK = {"model": "gpt-4.1-mini", "messages": [{"role": "user", "content": "hi"}]}


@pytest.fixture
async def make_gateway(upstream, tmp_path):
    made = []

    async def make(**bounds) -> Gateway:
        root = Path(tempfile.mkdtemp(prefix="gw-", dir="/tmp"))
        gw = Gateway(
            root=root,
            env=gateway_env(upstream),
            prices=PRICES,
            transcript_dir=tmp_path / "transcripts",
            bounds=GatewayBounds(**bounds),
        )
        await gw.start()
        made.append((gw, root))
        return gw

    yield make
    for gw, root in made:
        await gw.aclose()
        shutil.rmtree(root, ignore_errors=True)


async def _raw_post(port: int, token: str, length: int, send: int) -> tuple[bytes, int]:
    """POST with ``Content-Length: length`` sending only ``send`` bytes of body; returns
    the status line and how many body bytes the gateway let through before answering."""
    r, w = await asyncio.open_connection("127.0.0.1", port)
    w.write(
        f"POST {CHAT} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {length}\r\n\r\n".encode()
    )
    w.write(b"x" * send)
    await w.drain()
    status = await asyncio.wait_for(r.readline(), 10)
    w.close()
    return status, send


async def test_body_over_the_bound_is_413_before_it_is_read(make_gateway, upstream):
    gw = await make_gateway(body_bytes=1 << 20)
    events = Events()
    g = register(gw, events)
    port = int(g.tcp_url.rsplit(":", 1)[1])
    status, _ = await _raw_post(port, g.token, 60 << 20, 0)  # headers only: never the 60 MB
    assert status.split()[1] == b"413"
    # chunked, no length given: cut at the bound
    big = {**ASK, "messages": [{"role": "user", "content": "y" * (2 << 20)}]}
    r = await call(CHAT, big, token=g.token, url=g.tcp_url)
    assert r.status == 413 and r.json()["error"]["type"] == "request_too_large"
    assert upstream.seen == []
    [b] = events.of("bound.reached")
    assert (b["bound"], b["allowed"]) == ("gateway_body", 1 << 20)
    assert (await call(CHAT, ASK, token=g.token, url=g.tcp_url)).status == 200  # normal calls go on


FLOOD = r"""
import select, socket, sys, threading
port, token, n = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
chunk = b"z" * (1 << 20)
out = []
def one(i):
    s = socket.create_connection(("127.0.0.1", port))
    chunked = i % 2
    head = (f"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n"
            "Content-Type: application/json\r\n")
    head += "Transfer-Encoding: chunked\r\n\r\n" if chunked else f"Content-Length: {60 << 20}\r\n\r\n"
    s.sendall(head.encode())
    try:
        for _ in range(60):
            s.sendall(b"100000\r\n" + chunk + b"\r\n" if chunked else chunk)
            if select.select([s], [], [], 0)[0]:
                break  # answered already: the rest would be refused the same
    except OSError:
        pass
    try:
        out.append(s.recv(64).split()[1].decode())
    except (OSError, IndexError):
        out.append("closed")
ts = [threading.Thread(target=one, args=(i,)) for i in range(n)]
for t in ts: t.start()
for t in ts: t.join()
print(" ".join(sorted(out)))
"""


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


async def test_flood_of_60mb_bodies_leaves_memory_bounded(make_gateway, upstream):
    gw = await make_gateway()
    events = Events()
    g = register(gw, events)
    port = g.tcp_url.rsplit(":", 1)[1]
    before = _rss_mb()
    peak = [before]
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", FLOOD, port, g.token, "24", stdout=subprocess.PIPE
    )
    while proc.returncode is None:
        try:
            await asyncio.wait_for(proc.wait(), 0.05)
        except asyncio.TimeoutError:
            pass
        peak.append(_rss_mb())
    out = (await proc.stdout.read()).decode().split()
    assert len(out) == 24 and set(out) <= {"413", "429", "closed"}, out
    assert upstream.seen == []
    growth = max(peak) - before
    print(f"flood: arena RSS {before:.0f} MB -> peak {max(peak):.0f} MB; answers {sorted(set(out))}")
    assert growth < 150, f"the arena grew {growth:.0f} MB under the flood"  # was 4.6 GB


async def test_calls_of_one_attempt_at_once_are_bounded(make_gateway, upstream):
    gw = await make_gateway(per_attempt=4, per_attempt_queue=2)
    events = Events()
    g = register(gw, events)
    upstream.hold = asyncio.Event()
    calls = [asyncio.ensure_future(call(CHAT, {**ASK, "stream": True}, token=g.token, url=g.tcp_url)) for _ in range(4)]
    while len(upstream.seen) < 4:
        await asyncio.sleep(0.01)
    queued = [asyncio.ensure_future(call(CHAT, ASK, token=g.token, url=g.tcp_url)) for _ in range(2)]
    while waiting(gw, "a1") < 2:
        await asyncio.sleep(0.01)
    extra = [await call(CHAT, ASK, token=g.token, url=g.tcp_url) for _ in range(3)]
    assert [r.status for r in extra] == [429] * 3
    assert extra[0].json()["error"]["type"] == "too_many_concurrent_calls"
    assert extra[0].headers.get("Retry-After") == "1"
    upstream.hold.set()
    assert [r.status for r in await asyncio.gather(*calls, *queued)] == [200] * 6  # the queue's too
    [b] = events.of("bound.reached")
    assert (b["bound"], b["allowed"]) == ("gateway_calls_at_once", 4)
    assert (await call(CHAT, ASK, token=g.token, url=g.tcp_url)).status == 200


async def test_parallel_calls_hold_a_40_token_limit(make_gateway, upstream):
    gw = await make_gateway(per_attempt=64, total=64)
    events = Events()
    g = register(gw, events, tokens=40)
    one_call = OPENAI_TEXT["usage"]["total_tokens"]  # 17: what the fake answers each call
    rs = await asyncio.gather(*[call(CHAT, ASK, token=g.token, url=g.tcp_url) for _ in range(50)])
    ok = [r for r in rs if r.status == 200]
    used = gw.usage("a1").tokens
    assert used <= 40 + one_call, f"{len(ok)} calls used {used} tokens against 40"  # was 900
    assert {r.status for r in rs} <= {200, 429}
    assert 1 <= len(ok) <= 3
    # calls after them go on while something is left, then the limit holds
    for _ in range(5):
        if (await call(CHAT, ASK, token=g.token, url=g.tcp_url)).status == 429:
            break
    assert gw.usage("a1").tokens <= 40 + one_call
    assert (await call(CHAT, ASK, token=g.token, url=g.tcp_url)).status == 429
    assert events.of("limit.reached")[0]["limit"] == "tokens"


async def test_max_tokens_clamped_to_what_is_left_and_set_when_missing(make_gateway, upstream):
    gw = await make_gateway()
    events = Events()
    g = register(gw, events, tokens=400)
    await call(CHAT, {**ASK, "max_tokens": 1_000_000}, token=g.token, url=g.tcp_url)
    sent = upstream.seen[-1].body
    assert 1 <= sent["max_tokens"] <= 400 - len(json.dumps(ASK)) // 3
    await call(CHAT, ASK, token=g.token, url=g.tcp_url)  # none asked: one is set
    assert 1 <= upstream.seen[-1].body["max_completion_tokens"] < 400
    ga = gw.register("ant", model="anthropic/claude-sonnet-4-20250514", limits=UsageLimits(tokens=300), emit=Events())
    await call(
        "/v1/messages",
        {"model": "x", "max_tokens": 64000, "messages": [{"role": "user", "content": "hi"}]},
        token=ga.token,
        url=ga.tcp_url,
        anthropic=True,
    )
    assert 1 <= upstream.seen[-1].body["max_tokens"] < 300
    assert ANTHROPIC_TEXT["usage"]["input_tokens"] > 0
    # no limit: untouched
    gn = gw.register("free", model="openai/gpt-4.1-mini", limits=UsageLimits(), emit=Events())
    await call(CHAT, {**ASK, "max_tokens": 5000}, token=gn.token, url=gn.tcp_url)
    assert upstream.seen[-1].body["max_tokens"] == 5000
    assert "max_completion_tokens" not in upstream.seen[-1].body


async def test_cost_limit_holds_under_parallel_calls(make_gateway, upstream):
    gw = await make_gateway(per_attempt=64, total=64)
    g = register(gw, Events(), cost_usd=0.00002)  # gpt-4.1-mini: 12 in + 5 out = $0.0000128 a call
    rs = await asyncio.gather(*[call(CHAT, ASK, token=g.token, url=g.tcp_url) for _ in range(30)])
    cost = gw.usage("a1").cost_usd
    assert cost is not None and cost <= 0.00002 + 0.0000128, (cost, [r.status for r in rs])
