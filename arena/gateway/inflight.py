"""Model calls in flight through the gateway (issue 21: liveness that fits real agents).

Every model route is wrapped by ``tracked(handler)``: while a call of an attempt is
under way the attempt is told so (``CALL_BEGIN`` / ``CALL_END`` through the attempt's
``emit``, never stored as events), so an agent waiting on its model is not taken for hung.
``cancel(gw, attempt)`` ends the calls still under way when the attempt ends: each leaves
one ``model.call`` with ``status: 499, cancelled: true`` *before* the attempt's own end,
instead of a record billed and stored after the attempt finished. A call the provider had
received is metered by forward.py's best estimate (issue 36): a streaming one with what it
received (``_cut``), one with nothing received yet by its input (``cut_before_answer``: the
request's size); both ``partial: true``. Only a call cut before it reached the provider
is recorded with 0 tokens (nothing was sent to be billed).
"""

from __future__ import annotations

import asyncio
from typing import Awaitable, Callable

from aiohttp import web

from arena.gateway.state import AttemptState, GatewayView, InFlight  # noqa: F401  # InFlight: imported from here too
from arena.usage import CANCELLED_STATUS  # HTTP 499: the attempt ended first (one definition)

CALL_BEGIN = "gateway.call_begin"  # {"endpoint"}: a call of the attempt reached the gateway
CALL_END = "gateway.call_end"  # {"endpoint"}: it ended (answered, refused, failed or cancelled)
INTERNAL = frozenset({CALL_BEGIN, CALL_END})

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def _registry(gw: GatewayView) -> InFlight:
    reg = getattr(gw, "inflight", None)
    if reg is None:
        reg = InFlight()
        gw.inflight = reg  # type: ignore[attr-defined]  # set once, on first use
    return reg


def tracked(gw: GatewayView, handler: Handler) -> Handler:
    """``handler`` with its calls counted as in flight for the attempt that made them."""

    async def run(request: web.Request) -> web.StreamResponse:
        st, _ = gw.authorize(request)
        if st is None:  # refused at once by the handler itself
            return await handler(request)
        task = asyncio.current_task()
        assert task is not None
        reg = _registry(gw).calls.setdefault(st.name, set())
        reg.add(task)
        endpoint = request.path
        st.send(CALL_BEGIN, {"endpoint": endpoint})
        try:
            return await handler(request)
        except asyncio.CancelledError:
            if getattr(task, "_gauntlet_cancelled", False) and not getattr(task, "_gauntlet_metered", False):
                _cancelled_call(gw, st, endpoint)  # nothing received yet (a streamed one meters itself)
            raise
        finally:
            reg.discard(task)
            st.send(CALL_END, {"endpoint": endpoint})

    return run


def _cancelled_call(gw: GatewayView, st: AttemptState, endpoint: str) -> None:
    st.send(
        "model.call",
        {
            "provider": st.provider,
            "model": st.model_name,
            "input_tokens": 0,
            "output_tokens": 0,
            "latency_ms": None,
            "status": CANCELLED_STATUS,
            "cancelled": True,
            "endpoint": endpoint,
            "detail": "the attempt ended before this call reached the provider: nothing to meter",
        },
    )


async def cancel(gw: GatewayView, attempt: str) -> int:
    """End ``attempt``'s calls still under way (each recorded as cancelled); how many."""
    tasks = list(_registry(gw).calls.get(attempt, ()))
    for t in tasks:
        t._gauntlet_cancelled = True  # type: ignore[attr-defined]  # read by tracked()
        t.cancel()
    if tasks:
        await asyncio.gather(*tasks, return_exceptions=True)
    return len(tasks)
