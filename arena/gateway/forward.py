"""One model call through the gateway: authorise, check limits, forward, meter, record.

Streamed answers are passed on event by event as they arrive (never buffered whole). For
a streamed OpenAI call the gateway asks for ``stream_options.include_usage`` to learn the
token counts, and drops that extra usage-only chunk again when the agent had not asked
for it. The body's ``model`` is set to the attempt's granted model, so an agent spends
its budget on the model it is entered with. A client that hangs up mid-stream ends the
upstream read at once (the connection is closed, so the provider stops generating); the
call is marked ``client_gone``. A call still streaming when its attempt ends
(``inflight.cancel``) is cut the same way and recorded as ``status: 499, cancelled: true``.

A call that ends before its provider reported the usage — the client hung up, the upstream
broke, the attempt ended (a stream reports its usage last: OpenAI in a last chunk, the
Responses API in ``response.completed``, Anthropic its output in ``message_delta``) — is
metered by the best estimate available (``Meter.estimate``, issue 36): the input the stream
reported, else the request's size (``BYTES_PER_TOKEN`` bytes a token, the guess the
reservation made); the output the stream reported, at least one token per delta event
received; ``partial: true`` and ``input_estimated`` / ``output_estimated`` say so. It is
charged against the limits at once (the next call finds them reached), and the call's
reservation is settled only after that.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, Callable, cast

import aiohttp
from aiohttp import web

from arena.gateway import guard
from arena.gateway.inflight import CANCELLED_STATUS
from arena.gateway.state import AttemptState, GatewayView
from arena.gateway.transcript import CALL_CAP
from arena.gateway.wire import Meter, SSESplitter, parse_data
from arena.steps.preview import preview, tools_field

_PASS_REQ = ("accept", "anthropic-version", "anthropic-beta", "openai-beta", "user-agent")
_DROP_RESP = {
    "content-length",
    "content-encoding",
    "transfer-encoding",
    "connection",
    "keep-alive",
    "set-cookie",
    "date",
    "server",
}


# An event is parsed only if it may carry usage or a tool call (the rest pass untouched).
_METERED = {
    "openai": (b'"usage"', b'"tool_calls"', b'"function_call"'),
    "anthropic": (b"message_start", b"message_delta", b"content_block_start"),
}


# What the agent is told when the upstream fails: never the host's upstream URL or address
# (those go to the operator, in the infra.error event).
UNREACHABLE = "the model provider could not be reached (the operator is told the details)"
FAILED = "the model provider failed while answering (the operator is told the details)"


def _error(status: int, kind: str, message: str, provider: str = "openai", **extra: object) -> web.Response:
    body: dict[str, Any] = {"error": {"type": kind, "message": message, **extra}}
    if provider == "anthropic":
        body = {"type": "error", **body}
    return web.json_response(body, status=status)


def _call_event(
    gw: GatewayView, st: AttemptState, status: int, t0: float, meter: Meter | None, stream: bool, **extra: object
) -> dict[str, Any]:
    inp = meter.input if meter else 0
    out = meter.output if meter else 0
    ev: dict[str, Any] = {
        "provider": st.provider,
        "model": st.model_name,
        "input_tokens": inp,
        "output_tokens": out,
        "latency_ms": round((gw.now() - t0) * 1000, 2),
        "status": status,
        "stream": stream,
        **extra,
    }
    ev.update(getattr(meter, "details", None) or {})  # the Responses API's cached/reasoning tokens
    if meter is not None and meter.malformed:
        ev["malformed"] = True  # relayed as it came; metered as far as it could be read
    if meter is not None and (inp or out):
        st.usage.input_tokens += inp or 0
        st.usage.output_tokens += out or 0
        cost = gw.prices.cost(st.model, inp or 0, out or 0)
        if cost is not None:
            ev["cost_usd"] = round(cost, 8)
            st.usage.cost_usd = (st.usage.cost_usd or 0.0) + cost
    elif gw.prices.get(st.model) is not None and st.usage.cost_usd is None:
        st.usage.cost_usd = 0.0
    return ev


def _report_limits(st: AttemptState) -> None:
    for name, used, allowed in st.usage.reached(st.limits):
        if name not in st.reported:
            st.reported.add(name)
            st.send("limit.reached", {"limit": name, "used": used, "allowed": allowed})


async def models(gw: GatewayView, request: web.Request) -> web.StreamResponse:
    st, _ = gw.authorize(request)
    if st is None:
        return _error(401, "invalid_api_key", "unknown or wrong gateway token")
    return web.json_response(
        {"object": "list", "data": [{"id": st.model_name, "object": "model", "owned_by": st.provider}]}
    )


async def handle(gw: GatewayView, request: web.Request, provider: str) -> web.StreamResponse:
    t0 = gw.now()
    st, on_sock = gw.authorize(request)
    if st is None:
        if on_sock is not None:  # a refused call on an attempt's own socket is its event
            on_sock.send("model.call", _call_event(gw, on_sock, 401, t0, None, False))
        return _error(401, "invalid_api_key", "unknown or wrong gateway token", provider)
    raw = await request.read()
    meta: dict[str, Any] = {"provider": st.provider, "model": st.model_name, "endpoint": request.path}

    def refuse(resp: web.Response, **extra: object) -> web.Response:
        st.send("model.call", _call_event(gw, st, resp.status, t0, None, False, **extra))
        meta.update(status=resp.status, latency_ms=0)
        gw.transcript(st, meta, raw, cast(bytes, resp.body or b""))  # a json_response: bytes
        return resp

    if provider != st.provider:
        want = "/v1/chat/completions" if st.provider == "openai" else "/v1/messages"
        return refuse(_error(400, "wrong_api", f"this attempt's model is {st.model}: call {want}", provider))
    try:
        body = json.loads(raw)
        if not isinstance(body, dict):
            raise ValueError("not an object")
    except (ValueError, RecursionError):  # nested past the parser's depth: a clean 400
        return refuse(_error(400, "invalid_request_error", "the body is not a JSON object", provider))
    reached: list[tuple[str, float, float]]
    if st.limits.calls is not None and st.usage.calls >= st.limits.calls:
        reached = [("calls", st.usage.calls, st.limits.calls)]
    else:
        reached = st.usage.reached(st.limits)
    if reached:
        name, used, allowed = reached[0]
        resp = refuse(
            _error(
                429,
                "usage_limit",
                f"usage limit reached: {name} used {used} of {allowed}",
                provider,
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
    held = guard.reserve(gw, st, body, len(raw), provider)  # max_tokens clamped to what is left
    if isinstance(held, tuple):
        return refuse(_reserved_out(held, provider), limit=held[0])
    try:
        return await _forward(gw, st, request, provider, body, raw, meta, t0, refuse)
    finally:
        held.settle()


def _reserved_out(held: tuple[str, float, float], provider: str = "openai") -> web.Response:
    name, used, allowed = held
    return _error(
        429,
        "usage_limit",
        f"usage limit: {name} {used} of {allowed} used or reserved by calls under way; retry when they end",
        provider,
        limit=name,
        used=used,
        allowed=allowed,
    )


async def _forward(
    gw: GatewayView,
    st: AttemptState,
    request: web.Request,
    provider: str,
    body: dict[str, Any],
    raw: bytes,
    meta: dict[str, Any],
    t0: float,
    refuse: Callable[..., web.Response],
) -> web.StreamResponse:
    requested = body.get("model")
    body["model"] = st.model_name
    if requested is not None and requested != st.model_name:
        meta["requested_model"] = requested
    stream = bool(body.get("stream"))
    hide_usage = False
    if stream and provider == "openai":
        so = body.get("stream_options")
        so = so if isinstance(so, dict) else {}
        hide_usage = so.get("include_usage") is not True
        body["stream_options"] = {**so, "include_usage": True}
    url, auth = gw.upstream(provider)
    headers = {k: v for k in _PASS_REQ if (v := request.headers.get(k)) is not None}
    headers.update({"Content-Type": "application/json", "Accept-Encoding": "identity", **auth})
    if provider == "anthropic":
        headers.setdefault("anthropic-version", "2023-06-01")
    st.usage.calls += 1  # reserved now so concurrent calls cannot pass the calls limit
    tools: list[str] = []

    def on_tool(name: str) -> None:
        tools.append(name)
        st.send("model.tool_call", {"name": name})

    meter = Meter(on_tool)
    meta["tool_calls"] = tools
    assert gw.session is not None
    try:
        up_cm = gw.session.post(url, data=json.dumps(body).encode(), headers=headers)
        up = await up_cm.__aenter__()
    except (aiohttp.ClientError, asyncio.TimeoutError, OSError) as exc:
        st.usage.calls -= 1
        detail = f"upstream {url} unreachable: {type(exc).__name__}: {exc}"
        st.send("infra.error", {"source": "gateway", "detail": detail})  # the operator's: names the host
        return refuse(_error(502, "upstream_unreachable", UNREACHABLE, provider))
    except asyncio.CancelledError:
        cut_before_answer(gw, st, t0, meter, raw, meta)
        raise
    try:
        if up.status in (401, 403):
            st.send(
                "infra.error",
                {"source": "gateway", "detail": f"upstream {url} refused the host's {provider} key (HTTP {up.status})"},
            )
        ctype = up.headers.get("Content-Type", "")
        out_headers = {k: v for k, v in up.headers.items() if k.lower() not in _DROP_RESP}
        if ctype.startswith("text/event-stream"):
            return await _relay_stream(
                gw, st, request, up, out_headers, provider, meter, hide_usage, t0, raw, meta, tools
            )
        data = await up.read()
        obj = parse_data(data.decode("utf-8", "replace"))
        meter.read(meter.openai_body if provider == "openai" else meter.anthropic_body, obj)
        resp = web.Response(status=up.status, body=data, headers=out_headers)
        _finish(gw, st, up.status, t0, meter, False, raw, data, None, meta)
        return resp
    except (aiohttp.ClientError, asyncio.TimeoutError) as exc:
        detail = f"upstream {url} failed mid-answer: {type(exc).__name__}: {exc}"
        st.send("infra.error", {"source": "gateway", "detail": detail})
        return failed_mid_answer(gw, st, t0, meter, raw, meta, _error(502, "upstream_error", FAILED, provider))
    except asyncio.CancelledError:
        cut_before_answer(gw, st, t0, meter, raw, meta)  # a stream meters itself (``_cut``)
        raise
    finally:
        await up_cm.__aexit__(None, None, None)


def failed_mid_answer(
    gw: GatewayView, st: AttemptState, t0: float, meter: Meter, raw: bytes, meta: dict, resp: web.Response
) -> web.Response:
    """The upstream took the call and broke while answering: the provider may have billed
    it, so it is metered by the estimate (issue 36), never at 0."""
    marks = meter.estimate(len(raw), 0)
    _finish(
        gw, st, resp.status, t0, meter, False, raw, cast(bytes, resp.body or b""), None, meta, incomplete=True, **marks
    )
    return resp


def cut_before_answer(gw: GatewayView, st: AttemptState, t0: float, meter: Meter, raw: bytes, meta: dict) -> None:
    """The attempt ended (``inflight.cancel``) while the provider was answering a call not
    streamed: its input was sent and may be billed, so it is metered by the estimate."""
    task = asyncio.current_task()
    if task is None or not getattr(task, "_gauntlet_cancelled", False) or getattr(task, "_gauntlet_metered", False):
        return
    marks = meter.estimate(len(raw), 0)
    detail = "the attempt ended while this call was under way; metered by the estimate of its input"
    _finish(gw, st, CANCELLED_STATUS, t0, meter, False, raw, b"", None, meta, cancelled=True, **marks, detail=detail)
    task._gauntlet_metered = True  # type: ignore[attr-defined]  # read by inflight.tracked


def _finish(
    gw: GatewayView,
    st: AttemptState,
    status: int,
    t0: float,
    meter: Meter,
    stream: bool,
    raw: bytes,
    response: bytes,
    response_len: int | None,
    meta: dict,
    **extra: object,
) -> None:
    ev = _call_event(gw, st, status, t0, meter, stream, **extra)
    # what it said and called, in brief, for screens (arena/steps/preview.py)
    ev.update(preview(meta.get("endpoint"), st.provider, response, stream), **tools_field(meta.get("tool_calls")))
    st.send("model.call", ev)
    _report_limits(st)
    meta.update(
        status=status,
        latency_ms=ev["latency_ms"],
        stream=stream,
        input_tokens=ev["input_tokens"],
        output_tokens=ev["output_tokens"],
    )
    if "cost_usd" in ev:
        meta["cost_usd"] = ev["cost_usd"]  # the transcript's readers show each call's cost
    gw.transcript(st, meta, raw, response, response_len)


async def _relay_stream(
    gw: GatewayView,
    st: AttemptState,
    request: web.Request,
    up: aiohttp.ClientResponse,
    headers: dict,
    provider: str,
    meter: Meter,
    hide_usage: bool,
    t0: float,
    raw: bytes,
    meta: dict,
    tools: list[str],
) -> web.StreamResponse:
    resp = web.StreamResponse(status=up.status, headers=headers)
    await resp.prepare(request)
    split = SSESplitter()
    kept = bytearray()
    total = 0
    client_gone = False
    extra: dict[str, Any] = {}
    # a third API (routes.py: Responses) brings its own meter's stream_event and keys
    on_event = {"openai": meter.openai_chunk, "anthropic": meter.anthropic_event}.get(provider) or meter.stream_event
    keys = _METERED.get(provider) or meter.stream_keys
    deltas = 0  # delta events received: each carries at least one generated token
    try:
        async for chunk in up.content.iter_any():
            total += len(chunk)
            if len(kept) <= CALL_CAP:
                kept += chunk[: CALL_CAP + 1 - len(kept)]
            out = []
            for ev_raw, data in split.feed(chunk):
                if b"delta" in ev_raw:
                    deltas += 1
                if not any(k in ev_raw for k in keys):
                    out.append(ev_raw)  # plain text deltas: nothing to meter, not parsed
                    continue
                obj = parse_data(data)
                meter.read(on_event, obj)
                if hide_usage and isinstance(obj, dict) and obj.get("usage") and not obj.get("choices"):
                    continue  # the usage chunk only the gateway asked for
                out.append(ev_raw)
            if out and not client_gone:
                try:
                    await resp.write(b"".join(out))
                except (ConnectionError, aiohttp.ClientConnectionResetError):
                    client_gone = True  # stop reading: closing the stream stops the generation
                    break
        rest = split.flush()
        if rest and not client_gone:
            for ev_raw, data in rest:
                meter.read(on_event, parse_data(data))
            await resp.write(b"".join(r for r, _ in rest))
        status = up.status
    except (aiohttp.ClientError, asyncio.TimeoutError) as exc:
        st.send("infra.error", {"source": "gateway", "detail": f"upstream stream broke: {type(exc).__name__}: {exc}"})
        status, extra = 502, {"incomplete": True}
    except (ConnectionError, aiohttp.ClientConnectionResetError):
        client_gone = True
        status = up.status
    except asyncio.CancelledError:
        task = asyncio.current_task()
        if task is not None and getattr(task, "_gauntlet_cancelled", False):
            _cut(gw, st, t0, meter, raw, bytes(kept), total, meta, deltas)
            task._gauntlet_metered = True  # type: ignore[attr-defined]  # read by inflight.tracked
        raise
    if client_gone:
        extra["client_gone"] = True
    if client_gone or status == 502:  # cut before the usage came: the best estimate, charged now
        extra.update(meter.estimate(len(raw), deltas))
    _finish(gw, st, status, t0, meter, True, raw, bytes(kept), total, meta, **extra)
    if not client_gone:
        try:
            await resp.write_eof()
        except (ConnectionError, aiohttp.ClientConnectionResetError):
            pass
    return resp


def _cut(
    gw: GatewayView,
    st: AttemptState,
    t0: float,
    meter: Meter,
    raw: bytes,
    kept: bytes,
    total: int,
    meta: dict,
    deltas: int,
) -> None:
    """Record a stream cut because its attempt ended: metered by the estimate (``Meter.estimate``)."""
    marks = meter.estimate(len(raw), deltas)
    _finish(
        gw,
        st,
        CANCELLED_STATUS,
        t0,
        meter,
        True,
        raw,
        kept,
        total,
        meta,
        cancelled=True,
        **marks,
        detail="the attempt ended while this call was streaming; metered with what was received "
        f"({total} bytes, {deltas} delta events)",
    )
