"""What the gateway refuses: wrong tokens (401), calls past a usage limit (429 and
limit.reached), and an unreachable upstream (502 and infra.error, not the agent's fault)."""

from __future__ import annotations

import socket

import aiohttp
import pytest

from arena.errors import UsageError
from arena.gateway import Gateway, UsageLimits
from gw_kit import PRICES, call, register
from gw_upstream import OPENAI_TOOL

CHAT = "/v1/chat/completions"
ASK = {"model": "gpt-4.1-mini", "messages": [{"role": "user", "content": "hi"}]}


async def test_wrong_token_is_401_on_tcp_and_on_the_socket(gateway, upstream, events):
    g = register(gateway, events)
    r = await call(CHAT, ASK, token="sk-guess", url=g.tcp_url)
    assert r.status == 401 and r.json()["error"]["type"] == "invalid_api_key"
    r = await call(CHAT, ASK, token="sk-guess", sock=g.socket_path)
    assert r.status == 401
    assert upstream.seen == []
    # the socket and the TCP listener are both the attempt's own: each refusal its event
    assert [e["status"] for e in events.of("model.call")] == [401, 401]
    assert gateway.usage("a1").calls == 0


async def test_a_socket_serves_only_its_own_attempt(gateway, upstream, events):
    a = register(gateway, events, "a")
    b = register(gateway, events, "b")
    assert a.socket_dir != b.socket_dir
    r = await call(CHAT, ASK, token=b.token, sock=a.socket_path)  # b's token, a's socket
    assert r.status == 401 and upstream.seen == []
    assert gateway.usage("b").calls == 0
    assert (await call(CHAT, ASK, token=b.token, sock=b.socket_path)).status == 200


async def test_unregistered_attempt_token_is_refused_and_socket_gone(gateway, events):
    g = register(gateway, events)
    await gateway.unregister("a1")
    assert not g.socket_dir.exists()
    with pytest.raises(aiohttp.ClientConnectionError):  # its own listener is closed too
        await call(CHAT, ASK, token=g.token, url=g.tcp_url)
    other = register(gateway, events, "a2")  # and the token is nothing on another's
    r = await call(CHAT, ASK, token=g.token, url=other.tcp_url)
    assert r.status == 401
    assert gateway.usage("a1").calls == 0  # usage stays readable


async def test_token_limit_crossed_then_refused_with_429(gateway, upstream, events):
    g = register(gateway, events, tokens=100)
    upstream.replies = [OPENAI_TOOL, OPENAI_TOOL]  # 58 tokens each
    assert (await call(CHAT, ASK, token=g.token, url=g.tcp_url)).status == 200
    assert events.of("limit.reached") == []
    assert (await call(CHAT, ASK, token=g.token, url=g.tcp_url)).status == 200
    assert events.of("limit.reached") == [{"limit": "tokens", "used": 116, "allowed": 100}]
    r = await call(CHAT, ASK, token=g.token, url=g.tcp_url)
    assert r.status == 429
    err = r.json()["error"]
    assert (err["type"], err["limit"], err["used"], err["allowed"]) == ("usage_limit", "tokens", 116, 100)
    assert len(upstream.seen) == 2  # the refused call never left the gateway
    assert [e["status"] for e in events.of("model.call")] == [200, 200, 429]
    assert len(events.of("limit.reached")) == 1  # once per limit


async def test_calls_limit_zero_refuses_the_first_call(gateway, upstream, events):
    g = register(gateway, events, calls=0)
    r = await call(CHAT, ASK, token=g.token, url=g.tcp_url)
    assert r.status == 429 and r.json()["error"]["limit"] == "calls"
    assert events.of("limit.reached") == [{"limit": "calls", "used": 0, "allowed": 0}]


async def test_cost_limit_on_a_priced_model(gateway, upstream, events):
    g = register(gateway, events, cost_usd=0.00002)  # one call costs 0.0000128
    assert (await call(CHAT, ASK, token=g.token, url=g.tcp_url)).status == 200
    assert (await call(CHAT, ASK, token=g.token, url=g.tcp_url)).status == 200
    r = await call(CHAT, ASK, token=g.token, url=g.tcp_url)
    assert r.status == 429 and r.json()["error"]["limit"] == "cost_usd"
    [lim] = events.of("limit.reached")
    assert lim["limit"] == "cost_usd" and lim["used"] == pytest.approx(2 * 0.0000128)


async def test_cost_limit_on_an_unpriced_model_is_a_usage_error(gateway, events):
    with pytest.raises(UsageError, match="no price"):
        gateway.register("x", model="openai/my-own-model", limits=UsageLimits(cost_usd=1.0), emit=events)
    with pytest.raises(UsageError, match="provider"):
        gateway.register("y", model="gpt-4", limits=UsageLimits(), emit=events)


async def test_unpriced_model_has_no_cost(gateway, upstream, events):
    g = register(gateway, events, model="openai/my-own-model")
    await call(CHAT, ASK, token=g.token, url=g.tcp_url)
    [ev] = events.of("model.call")
    assert "cost_usd" not in ev and ev["input_tokens"] == 12
    assert gateway.usage("a1").cost_usd is None


def _free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


async def test_upstream_down_is_502_and_infra_error(tmp_path, events):
    env = {"OPENAI_BASE_URL": f"http://127.0.0.1:{_free_port()}/v1", "OPENAI_API_KEY": "sk-down-SECRET"}
    gw = Gateway(root=tmp_path / "g", env=env, prices=PRICES)
    await gw.start()
    try:
        g = register(gw, events)
        r = await call(CHAT, ASK, token=g.token, sock=g.socket_path)
        assert r.status == 502 and r.json()["error"]["type"] == "upstream_unreachable"
        [infra] = events.of("infra.error")
        assert infra["source"] == "gateway" and "unreachable" in infra["detail"]
        assert "sk-down-SECRET" not in infra["detail"] + r.body.decode()
        assert [e["status"] for e in events.of("model.call")] == [502]
        assert gw.usage("a1").calls == 0  # a call never served is not counted
    finally:
        await gw.aclose()
