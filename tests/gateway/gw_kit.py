"""Helpers of the gateway suite: an event log, a small HTTP client (TCP or an attempt's
unix socket), the gateway's environment and prices."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp
from arena.gateway import Gateway, UsageLimits
from arena.gateway.prices import Price, PriceTable
from gw_upstream import FakeUpstream

HOST_OPENAI_KEY = "sk-host-openai-DO-NOT-LEAK-1234"
HOST_ANTHROPIC_KEY = "sk-ant-host-DO-NOT-LEAK-5678"


@dataclass
class Events:
    items: list[tuple[str, dict]] = field(default_factory=list)

    def __call__(self, kind: str, data: dict) -> None:
        self.items.append((kind, data))

    def of(self, kind: str) -> list[dict]:
        return [d for k, d in self.items if k == kind]


@dataclass
class Reply:
    status: int
    body: bytes
    headers: dict

    def json(self):
        return json.loads(self.body)

    def sse(self) -> list:
        """The ``data:`` payloads of a streamed answer, JSON-decoded where possible."""
        out = []
        for line in self.body.decode().splitlines():
            if line.startswith("data: "):
                d = line[6:]
                out.append(d if d == "[DONE]" else json.loads(d))
        return out


async def call(
    path: str, body: dict, *, token: str, url: str | None = None, sock: Path | None = None, anthropic: bool = False
) -> Reply:
    """POST ``body`` to the gateway at ``url`` (TCP) or through ``sock`` (unix)."""
    headers = {"x-api-key": token} if anthropic else {"Authorization": f"Bearer {token}"}
    conn = aiohttp.UnixConnector(path=str(sock)) if sock else None
    base = url or "http://gateway"
    async with aiohttp.ClientSession(connector=conn) as s:
        async with s.post(base + path, json=body, headers=headers) as r:
            return Reply(r.status, await r.read(), dict(r.headers))


def gateway_env(up: FakeUpstream) -> dict[str, str]:
    return {
        "OPENAI_BASE_URL": up.openai_base,
        "OPENAI_API_KEY": HOST_OPENAI_KEY,
        "ANTHROPIC_BASE_URL": up.anthropic_base,
        "ANTHROPIC_API_KEY": HOST_ANTHROPIC_KEY,
    }


PRICES = PriceTable({"openai/gpt-4.1-mini": Price(0.40, 1.60), "anthropic/claude-sonnet-4-20250514": Price(3.0, 15.0)})


def register(
    gw: Gateway, events: Events, attempt: str = "a1", model: str = "openai/gpt-4.1-mini", tcp: bool = True, **limits
):
    return gw.register(attempt, model=model, limits=UsageLimits(**limits), emit=events, tcp=tcp)


# A stdlib-only "agent": one streamed chat call to the gateway its environment names.
AGENT_ONE_CALL = (
    "import json, os, urllib.request\n"
    "body = {'model': 'gpt-4.1-mini', 'stream': True,\n"
    "        'messages': [{'role': 'user', 'content': 'hi'}]}\n"
    "req = urllib.request.Request(os.environ['OPENAI_BASE_URL'] + '/chat/completions',\n"
    "    data=json.dumps(body).encode(), headers={'Content-Type': 'application/json',\n"
    "    'Authorization': 'Bearer ' + os.environ['OPENAI_API_KEY']})\n"
    "with urllib.request.urlopen(req, timeout=20) as r:\n"
    "    print(r.status, r.read().decode())\n"
)
