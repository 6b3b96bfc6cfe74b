"""The cluster's gateway tunnel without Ray (arena/cluster/gwlink.py): the node's end and
the command machine's end joined by an in-process stand-in for the attempt's actor calls.
Everything else is real: the arena's Gateway with the host's key, the fake provider over
HTTP, and relay.py in front of the node's socket, as in a sandbox on a node."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from types import SimpleNamespace

import pytest

from arena.cluster.gwlink import GatewayLink, NodeGateway
from arena.errors import UsageError
from arena.gateway.inflight import INTERNAL
from arena.gateway import RELAY_PATH, Gateway, UsageLimits, read_transcript

sys.path.insert(0, str(Path(__file__).resolve().parent / "fakes"))
from provider import FakeProvider  # noqa: E402

HOST_KEY = "sk-host-tunnel-0a1b2c3d"


class _Actor:
    """What the driver calls on a NodeAttempt, without Ray: ``m.remote(...)`` gives an
    awaitable that ``placer._get`` awaits."""

    def __init__(self, node: NodeGateway) -> None:
        self.gw_pull = SimpleNamespace(remote=lambda acked, wait: node.pull(acked, wait))

        async def push(items):
            node.push(items)

        self.gw_push = SimpleNamespace(remote=push)


class _Placer:
    def __init__(self, gw: Gateway) -> None:
        async def gateway():
            return gw

        self.shared = SimpleNamespace(gateway=gateway)
        self.ray = SimpleNamespace(exceptions=SimpleNamespace(ActorUnavailableError=ConnectionAbortedError))

    async def _get(self, ref):
        return await ref


def _attempt(limits: UsageLimits) -> SimpleNamespace:
    support = SimpleNamespace(model=lambda: "openai/fake-model", limits=lambda: limits)
    return SimpleNamespace(id="a-remote1", support=support)


def _call(base: str, token: str, stream: bool = False) -> tuple[int, bytes]:
    body = {"model": "x", "messages": [{"role": "user", "content": "hello there"}], "stream": stream}
    req = urllib.request.Request(
        base + "/v1/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(req, timeout=20) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


async def _tunnel(tmp_path, fp: FakeProvider, limits: UsageLimits):
    gw = Gateway(
        root=Path(f"/tmp/gwl-{tmp_path.name[-12:]}"),
        transcript_dir=tmp_path / "tx",
        env={"OPENAI_BASE_URL": fp.base_url, "OPENAI_API_KEY": HOST_KEY},
    )
    await gw.start()
    link = GatewayLink(_Placer(gw), _attempt(limits))
    info = await link.open()
    node = NodeGateway()
    node.configure(info, Path(f"/tmp/gwn-{tmp_path.name[-12:]}"))
    link.start(_Actor(node))
    return gw, link, node, info


async def test_calls_through_relay_node_socket_and_tunnel(tmp_path):
    seen: list[tuple[str, dict]] = []
    with FakeProvider([{"content": "first answer"}, {"content": "second answer streamed"}, {"content": "never"}]) as fp:
        gw, link, node, info = await _tunnel(tmp_path, fp, UsageLimits(calls=2))
        assert HOST_KEY not in json.dumps(info)  # only the attempt's token goes to the node
        grant = node.register(
            "a-remote1", model="openai/fake-model", limits=UsageLimits(), emit=lambda k, d: seen.append((k, d))
        )
        relay = subprocess.Popen(
            [sys.executable, RELAY_PATH, "--port", "0", "--unix", str(grant.socket_path)],
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            port = int(relay.stdout.readline().split()[1])
            base = f"http://127.0.0.1:{port}"
            status, body = await asyncio.to_thread(_call, base, grant.token)
            assert status == 200 and json.loads(body)["choices"][0]["message"]["content"] == "first answer"
            # pushed ahead of the answer's end (the gateway's in-flight marks are not events)
            assert [k for k, _ in seen if k not in INTERNAL] == ["model.call"]
            status, body = await asyncio.to_thread(_call, base, grant.token, True)
            assert status == 200 and b"streamed" in body and b"[DONE]" in body
            status, body = await asyncio.to_thread(_call, grant.tcp_url, grant.token)  # a host agent's way
            assert status == 429 and json.loads(body)["error"]["limit"] == "calls"
            status, _ = await asyncio.to_thread(_call, base, "gw-not-this-attempt")
            assert status == 401
        finally:
            relay.terminate()
            relay.wait()
        kinds = [k for k, _ in seen if k not in INTERNAL]
        assert kinds == ["model.call", "model.call", "limit.reached", "model.call", "model.call"], kinds
        calls = [d for k, d in seen if k == "model.call"]
        assert [c["status"] for c in calls] == [200, 200, 429, 401]
        assert calls[0]["input_tokens"] > 0 and calls[1]["stream"] is True
        assert [d for k, d in seen if k == "limit.reached"][0] == {"limit": "calls", "used": 2, "allowed": 2}
        assert node.usage("a-remote1").calls == 2 == gw.usage("a-remote1").calls
        assert len(fp.requests) == 2
        assert all(r["headers"]["Authorization"] == f"Bearer {HOST_KEY}" for r in fp.requests)
        await node.unregister("a-remote1")
        await link.close()
        assert not grant.socket_dir.exists()
        calls_kept = read_transcript(tmp_path / "tx", "a-remote1")  # on the command's machine
        assert len(calls_kept) == 3 and HOST_KEY not in json.dumps(calls_kept, default=str)
        await gw.aclose()


async def test_a_refused_grant_is_raised_on_the_node(tmp_path):
    with FakeProvider([]) as fp:
        gw, link, node, info = await _tunnel(tmp_path, fp, UsageLimits(cost_usd=1.0))
        assert "error" in info and "token" not in info
        with pytest.raises(UsageError, match="has no price"):
            node.register(
                "a-remote1", model="openai/fake-model", limits=UsageLimits(cost_usd=1.0), emit=lambda k, d: None
            )
        await link.close()
        await gw.aclose()
