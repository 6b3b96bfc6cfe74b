"""The gateway's aiohttp application: every route, each bounded by ``guard`` (body size,
calls at once, new routes included) and counted in flight by ``inflight``."""

from __future__ import annotations

from functools import partial

from aiohttp import web

from arena.gateway import forward, guard, routes
from arena.gateway.guard import GatewayBounds
from arena.gateway.inflight import tracked as track
from arena.gateway.state import GatewayView


def build_app(gw: GatewayView, bounds: GatewayBounds) -> web.Application:
    app = web.Application(client_max_size=bounds.body_bytes, middlewares=[guard.middleware(gw, bounds)])
    app.router.add_post("/v1/chat/completions", track(gw, partial(forward.handle, gw, provider="openai")))
    app.router.add_post("/v1/messages", track(gw, partial(forward.handle, gw, provider="anthropic")))
    routes.add(gw, app)  # the APIs added for issue 21 (Responses, count_tokens)
    app.router.add_get("/v1/models", partial(forward.models, gw))
    return app
