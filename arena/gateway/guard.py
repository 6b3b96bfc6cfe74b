"""The gateway's bounds and budget reservations, in one place for every route (issue 26).

Bounds (``GatewayBounds``; an aiohttp middleware, so a route added later gets them too):

- a request body is at most ``body_bytes``: a larger ``Content-Length`` is refused with
  413 before a byte of the body is read, and a chunked body is cut at the bound (aiohttp's
  ``client_max_size``, which reads no further);
- at most ``per_attempt`` model calls of one attempt and ``total`` of all attempts are
  under way at once; further ones wait their turn (their body unread) up to a bounded
  queue, past which a call is refused with 429 (``Retry-After: 1``). Each bound reached
  leaves one ``bound.reached`` event per attempt.

Reservations (``reserve`` / ``Reservation.settle``): the tokens and cost limits hold under
parallel calls. Before a call is forwarded it reserves its worst case (its input, guessed
from the body's size, plus its ``max_tokens``, which is clamped to what the limits leave
and set when missing); a call that finds nothing left unreserved is refused with 429. The
upstream's usage is counted after; the reservation is then released. So the tokens used
can pass the limit by at most one call's misjudged input plus one token.
"""

from __future__ import annotations

import asyncio
import math
from dataclasses import dataclass
from typing import Any, Awaitable, Callable

from aiohttp import web

from arena.gateway.state import AttemptState, GatewayView

MODEL_ROUTES = frozenset({"/v1/chat/completions", "/v1/messages", "/v1/responses"})
BYTES_PER_TOKEN = 3  # a generous guess of the input's tokens from its JSON size


@dataclass(frozen=True)
class GatewayBounds:
    body_bytes: int = 4 << 20  # a model call's request body (a long context fits in 1-2 MiB)
    per_attempt: int = 8  # model calls of one attempt under way at once
    per_attempt_queue: int = 32  # more of its calls waiting their turn (no body read yet)
    total: int = 48  # model calls of all attempts under way at once
    total_queue: int = 256


def _error(status: int, kind: str, message: str, path: str, **extra: object) -> web.Response:
    body: dict[str, Any] = {"error": {"type": kind, "message": message, **extra}}
    if path.startswith("/v1/messages"):
        body = {"type": "error", **body}
    return web.json_response(body, status=status, headers={"Retry-After": "1"} if status == 429 else None)


def _bound(st: AttemptState, name: str, allowed: float, unit: str, detail: str) -> None:
    if ("bound", name) not in st.flagged:
        st.flagged.add(("bound", name))
        st.send("bound.reached", {"bound": name, "allowed": allowed, "unit": unit, "detail": detail})


Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class _Slots:
    """``n`` calls at once, ``queue`` more waiting their turn (in arrival order)."""

    def __init__(self, n: int, queue: int) -> None:
        self.sem = asyncio.Semaphore(n)
        self.queue = queue
        self.waiting = 0

    def full(self) -> bool:
        return self.sem.locked() and self.waiting >= self.queue

    async def acquire(self) -> None:
        self.waiting += 1
        try:
            await self.sem.acquire()
        finally:
            self.waiting -= 1


def middleware(gw: GatewayView, bounds: GatewayBounds) -> Callable[..., Awaitable[web.StreamResponse]]:
    """The aiohttp middleware enforcing ``bounds`` on every route of ``gw``."""
    mine: dict[str, _Slots] = {}
    total = _Slots(bounds.total, bounds.total_queue)

    @web.middleware
    async def guard(request: web.Request, handler: Handler) -> web.StreamResponse:
        st, _ = gw.authorize(request)
        if st is None:
            return await handler(request)  # refused (401) by the route without reading a body
        path = request.path
        if request.content_length is not None and request.content_length > bounds.body_bytes:
            _bound(st, "gateway_body", bounds.body_bytes, "bytes", "request bodies larger are refused (413)")
            return _error(413, "request_too_large", f"request body larger than {bounds.body_bytes} bytes", path)
        if path not in MODEL_ROUTES:
            return await _run(st, handler, request, bounds)
        slots = mine.get(st.name)
        if slots is None:
            slots = mine[st.name] = _Slots(bounds.per_attempt, bounds.per_attempt_queue)
        for s, name, allowed, what in (
            (slots, "gateway_calls_at_once", bounds.per_attempt, "this attempt's"),
            (total, "gateway_calls_at_once_total", bounds.total, "the arena's"),
        ):
            if s.full():
                _bound(st, name, allowed, "calls", f"{what} model calls under way at once; more wait, then are refused")
                return _error(
                    429, "too_many_concurrent_calls", f"at most {allowed} of {what} model calls at once", path
                )
        got: list[_Slots] = []
        try:
            for s in (slots, total):
                await s.acquire()
                got.append(s)
            return await _run(st, handler, request, bounds)
        finally:
            for s in got:
                s.sem.release()
            if not slots.waiting and not slots.sem.locked() and st.token not in gw._by_token:
                mine.pop(st.name, None)

    guard.slots = mine  # type: ignore[attr-defined]  # read by waiting()
    gw.guard = guard  # type: ignore[attr-defined]
    return guard


def waiting(gw: GatewayView, attempt: str) -> int:
    """How many of ``attempt``'s calls wait for a slot now."""
    slots = getattr(getattr(gw, "guard", None), "slots", {}).get(attempt)
    return slots.waiting if slots is not None else 0


async def _run(st: AttemptState, handler: Handler, request: web.Request, bounds: GatewayBounds) -> web.StreamResponse:
    try:
        return await handler(request)
    except web.HTTPRequestEntityTooLarge:  # a chunked body cut at client_max_size
        _bound(st, "gateway_body", bounds.body_bytes, "bytes", "request bodies larger are refused (413)")
        return _error(413, "request_too_large", f"request body larger than {bounds.body_bytes} bytes", request.path)


# -- reservations -------------------------------------------------------------------------
_MAX_KEYS = {"openai": ("max_completion_tokens", "max_tokens"), "anthropic": ("max_tokens",)}
_SET_KEY = {"openai": "max_completion_tokens", "anthropic": "max_tokens", "responses": "max_output_tokens"}


@dataclass
class Reservation:
    st: AttemptState
    tokens: int
    cost: float
    done: bool = False

    def settle(self) -> None:
        """Release the reservation (the call's real usage is counted by the meter)."""
        if not self.done:
            self.done = True
            self.st.reserved_tokens -= self.tokens
            self.st.reserved_cost -= self.cost


def reserve(
    gw: GatewayView, st: AttemptState, body: dict[str, Any], raw_len: int, api: str
) -> Reservation | tuple[str, float, float]:
    """Reserve the call's worst case against the tokens and cost limits, clamping (or
    setting) its output bound in ``body``; ``api``: ``openai``, ``anthropic`` or
    ``responses``. Returns the reservation, or ``(limit, used+reserved, allowed)`` when
    nothing is left unreserved (refuse the call with 429)."""
    lim = st.limits
    if lim.tokens is None and lim.cost_usd is None:
        return Reservation(st, 0, 0.0)
    est_in = raw_len // BYTES_PER_TOKEN + 1
    keys = _MAX_KEYS.get(api, ("max_output_tokens",))
    asked = [v for k in keys if isinstance(v := body.get(k), int) and not isinstance(v, bool) and v > 0]
    out_cap: float = min(asked) if asked else math.inf
    if lim.tokens is not None:
        left = lim.tokens - st.usage.tokens - st.reserved_tokens
        if left <= 0:
            return ("tokens", float(st.usage.tokens + st.reserved_tokens), float(lim.tokens))
        out_cap = min(out_cap, max(1, left - est_in))
    price = gw.prices.get(st.model)
    if lim.cost_usd is not None and price is not None:
        left_cost = lim.cost_usd - (st.usage.cost_usd or 0.0) - st.reserved_cost
        if left_cost <= 0:
            return ("cost_usd", (st.usage.cost_usd or 0.0) + st.reserved_cost, lim.cost_usd)
        in_cost = gw.prices.cost(st.model, est_in, 0) or 0.0
        per_out = (gw.prices.cost(st.model, 0, 1_000_000) or 0.0) / 1_000_000
        if per_out > 0:
            out_cap = min(out_cap, max(1, math.floor((left_cost - in_cost) / per_out)))
    if math.isinf(out_cap):
        return Reservation(st, 0, 0.0)
    cap = int(out_cap)
    for k in keys:
        if k in body:
            body[k] = min(body[k], cap) if isinstance(body[k], int) and not isinstance(body[k], bool) else cap
    if not any(k in body for k in keys):
        body[_SET_KEY.get(api, "max_output_tokens")] = cap
    tokens = est_in + cap
    if lim.tokens is not None:  # a call reserves at most what is left: the next one waits its turn
        tokens = min(tokens, lim.tokens - st.usage.tokens - st.reserved_tokens)
    cost = (gw.prices.cost(st.model, est_in, cap) or 0.0) if price is not None else 0.0
    if lim.cost_usd is not None:
        cost = min(cost, lim.cost_usd - (st.usage.cost_usd or 0.0) - st.reserved_cost)
    st.reserved_tokens += tokens
    st.reserved_cost += cost
    return Reservation(st, tokens, cost)
