"""The gateway's routes beside Chat Completions and Messages (issue 21).

- ``POST /v1/responses``: the OpenAI Responses API (Codex CLI speaks it), streamed and
  not, for ``openai/...`` attempts; metered like Chat Completions (one ``model.call`` per
  call, tokens from the answer's ``usage``, cached and reasoning tokens reported beside
  them, tool calls as ``model.tool_call``), limited, recorded in the transcript.
- ``POST /v1/messages/count_tokens``: Anthropic's token counter (Claude Code asks it);
  forwarded for ``anthropic/...`` attempts with the host's key, never billed or counted
  as a model call (no tokens are generated).

Authorisation, limits and forwarding are forward.py's, shared with the two first APIs.
"""

from __future__ import annotations

import asyncio
import json
import logging
from functools import partial
from typing import Any

import aiohttp
from aiohttp import web

from arena.gateway import forward, guard
from arena.gateway.inflight import tracked
from arena.gateway.state import GatewayView
from arena.gateway.wire import parse_data
from arena.gateway.wire_responses import ResponsesMeter

log = logging.getLogger(__name__)


def add(gw: GatewayView, app: web.Application) -> None:
    app.router.add_post("/v1/responses", tracked(gw, partial(responses, gw)))
    app.router.add_post("/v1/messages/count_tokens", partial(count_tokens, gw))


def upstream_url(gw: GatewayView, provider: str, path: str) -> tuple[str, dict[str, str]]:
    """``path`` (``/responses``, ``/v1/messages/count_tokens``) on the provider's base URL."""
    url, auth = gw.upstream(provider)
    if provider == "openai":
        return url[: -len("/chat/completions")] + path, auth
    return url[: -len("/v1/messages")] + path, auth


async def responses(gw: GatewayView, request: web.Request) -> web.StreamResponse:
    t0 = gw.now()
    st, on_sock = gw.authorize(request)
    if st is None:
        if on_sock is not None:
            on_sock.send("model.call", forward._call_event(gw, on_sock, 401, t0, None, False))
        return forward._error(401, "invalid_api_key", "unknown or wrong gateway token")
    raw = await request.read()
    meta: dict[str, Any] = {"provider": st.provider, "model": st.model_name, "endpoint": request.path}

    def refuse(resp: web.Response, **extra: object) -> web.Response:
        st.send("model.call", forward._call_event(gw, st, resp.status, t0, None, False, **extra))
        meta.update(status=resp.status, latency_ms=0)
        body = resp.body if isinstance(resp.body, bytes) else b""
        gw.transcript(st, meta, raw, body)
        return resp

    if st.provider != "openai":
        return refuse(forward._error(400, "wrong_api", f"this attempt's model is {st.model}: call /v1/messages"))
    try:
        body = json.loads(raw)
        if not isinstance(body, dict):
            raise ValueError("not an object")
    except (ValueError, RecursionError):
        return refuse(forward._error(400, "invalid_request_error", "the body is not a JSON object"))
    if st.limits.calls is not None and st.usage.calls >= st.limits.calls:
        reached = [("calls", float(st.usage.calls), float(st.limits.calls))]
    else:
        reached = st.usage.reached(st.limits)
    if reached:
        name, used, allowed = reached[0]
        resp = refuse(
            forward._error(
                429,
                "usage_limit",
                f"usage limit reached: {name} used {used} of {allowed}",
                limit=name,
                used=used,
                allowed=allowed,
            ),
            limit=name,
        )
        if name not in st.reported:
            st.reported.add(name)
            st.send("limit.reached", {"limit": name, "used": used, "allowed": allowed})
        return resp
    requested = body.get("model")
    body["model"] = st.model_name
    if requested is not None and requested != st.model_name:
        meta["requested_model"] = requested
    url, auth = upstream_url(gw, "openai", "/responses")
    headers = {k: v for k in forward._PASS_REQ if (v := request.headers.get(k)) is not None}
    headers.update({"Content-Type": "application/json", "Accept-Encoding": "identity", **auth})
    held = guard.reserve(gw, st, body, len(raw), "responses")  # max_output_tokens clamped (issue 26)
    if isinstance(held, tuple):
        return refuse(forward._reserved_out(held), limit=held[0])
    st.usage.calls += 1
    tools: list[str] = []

    def on_tool(name: str) -> None:
        tools.append(name)
        st.send("model.tool_call", {"name": name})

    meter = ResponsesMeter(on_tool)
    meta["tool_calls"] = tools
    assert gw.session is not None
    try:
        up_cm = gw.session.post(url, data=json.dumps(body).encode(), headers=headers)
        up = await up_cm.__aenter__()
    except (aiohttp.ClientError, asyncio.TimeoutError, OSError) as exc:
        st.usage.calls -= 1
        held.settle()
        detail = f"upstream {url} unreachable: {type(exc).__name__}: {exc}"
        st.send("infra.error", {"source": "gateway", "detail": detail})
        return refuse(forward._error(502, "upstream_unreachable", forward.UNREACHABLE))
    except asyncio.CancelledError:
        held.settle()
        forward.cut_before_answer(gw, st, t0, meter, raw, meta)
        raise
    try:
        if up.status in (401, 403):
            st.send(
                "infra.error",
                {"source": "gateway", "detail": f"upstream {url} refused the host's openai key (HTTP {up.status})"},
            )
        out_headers = {k: v for k, v in up.headers.items() if k.lower() not in forward._DROP_RESP}
        if up.headers.get("Content-Type", "").startswith("text/event-stream"):
            return await forward._relay_stream(
                gw, st, request, up, out_headers, "responses", meter, False, t0, raw, meta, tools
            )
        data = await up.read()
        meter.read(meter.body, parse_data(data.decode("utf-8", "replace")))
        resp = web.Response(status=up.status, body=data, headers=out_headers)
        forward._finish(gw, st, up.status, t0, meter, False, raw, data, None, meta)
        return resp
    except (aiohttp.ClientError, asyncio.TimeoutError) as exc:
        detail = f"upstream {url} failed mid-answer: {type(exc).__name__}: {exc}"
        st.send("infra.error", {"source": "gateway", "detail": detail})
        resp = forward._error(502, "upstream_error", forward.FAILED)
        return forward.failed_mid_answer(gw, st, t0, meter, raw, meta, resp)
    except asyncio.CancelledError:
        forward.cut_before_answer(gw, st, t0, meter, raw, meta)  # a stream meters itself
        raise
    finally:
        held.settle()
        await up_cm.__aexit__(None, None, None)


async def count_tokens(gw: GatewayView, request: web.Request) -> web.StreamResponse:
    st, _ = gw.authorize(request)
    if st is None:
        return forward._error(401, "invalid_api_key", "unknown or wrong gateway token", "anthropic")
    if st.provider != "anthropic":
        return forward._error(400, "wrong_api", f"this attempt's model is {st.model}: no count_tokens", "anthropic")
    raw = await request.read()
    try:
        body = json.loads(raw)
        if not isinstance(body, dict):
            raise ValueError("not an object")
    except (ValueError, RecursionError):
        return forward._error(400, "invalid_request_error", "the body is not a JSON object", "anthropic")
    body["model"] = st.model_name
    url, auth = upstream_url(gw, "anthropic", "/v1/messages/count_tokens")
    headers = {k: v for k in forward._PASS_REQ if (v := request.headers.get(k)) is not None}
    headers.update({"Content-Type": "application/json", "Accept-Encoding": "identity", **auth})
    headers.setdefault("anthropic-version", "2023-06-01")
    assert gw.session is not None
    try:
        async with gw.session.post(url, data=json.dumps(body).encode(), headers=headers) as up:
            data = await up.read()
            ctype = up.headers.get("Content-Type", "application/json")
            return web.Response(status=up.status, body=data, headers={"Content-Type": ctype})
    except (aiohttp.ClientError, asyncio.TimeoutError, OSError) as exc:
        log.warning("gateway: count_tokens upstream %s: %s: %s", url, type(exc).__name__, exc)
        return forward._error(502, "upstream_unreachable", forward.UNREACHABLE, "anthropic")
