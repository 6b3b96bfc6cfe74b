"""relay.py as a real process: TCP on loopback -> the attempt's unix socket, streamed,
many connections at once, and in front of an agent it execs."""

from __future__ import annotations

import asyncio
import socket
import sys

import aiohttp

from arena.gateway import RELAY_PATH, relay_command, wrap_agent_argv
from gw_kit import AGENT_ONE_CALL, call, register

CHAT = "/v1/chat/completions"
ASK = {"model": "gpt-4.1-mini", "messages": [{"role": "user", "content": "hi"}]}


async def _start_relay(sock) -> tuple[asyncio.subprocess.Process, int]:
    argv = relay_command(0, str(sock), relay=RELAY_PATH, python=sys.executable)
    proc = await asyncio.create_subprocess_exec(*argv, stdout=asyncio.subprocess.PIPE)
    line = await asyncio.wait_for(proc.stdout.readline(), 10)
    assert line.startswith(b"READY "), line
    return proc, int(line.split()[1])


async def test_relay_forwards_streamed_and_concurrent_calls(gateway, upstream, events):
    g = register(gateway, events)
    proc, port = await _start_relay(g.socket_path)
    try:
        url = f"http://127.0.0.1:{port}"
        r = await call(CHAT, {**ASK, "stream": True}, token=g.token, url=url)
        assert r.status == 200 and r.sse()[-1] == "[DONE]"
        replies = await asyncio.gather(*[call(CHAT, ASK, token=g.token, url=url) for _ in range(20)])
        assert [x.status for x in replies] == [200] * 20
        async with aiohttp.ClientSession() as s:  # keep-alive: many calls on one link
            for _ in range(5):
                async with s.post(url + CHAT, json=ASK, headers={"Authorization": f"Bearer {g.token}"}) as resp:
                    assert resp.status == 200 and (await resp.json())["usage"]
        assert len(events.of("model.call")) == 26
        assert gateway.usage("a1").tokens == 26 * 17
    finally:
        proc.terminate()
        await proc.wait()


async def test_relay_without_gateway_socket_answers_502(tmp_path):
    proc, port = await _start_relay(tmp_path / "missing.sock")
    try:
        r = await call(CHAT, ASK, token="t", url=f"http://127.0.0.1:{port}")
        assert r.status == 502 and r.json()["error"]["type"] == "relay_error"
    finally:
        proc.terminate()
        await proc.wait()


def _free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def _listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
        return True
    except OSError:
        return False


async def test_wrapped_agent_reaches_the_gateway_and_the_relay_ends_with_it(gateway, upstream, events):
    g = register(gateway, events)
    port = _free_port()
    argv = wrap_agent_argv(
        [sys.executable, "-c", AGENT_ONE_CALL], port, str(g.socket_path), relay=RELAY_PATH, python=sys.executable
    )
    proc = await asyncio.create_subprocess_exec(*argv, stdout=asyncio.subprocess.PIPE, env=g.sandbox_env(port))
    out, _ = await asyncio.wait_for(proc.communicate(), 20)  # EOF: the relay holds no stdout
    assert proc.returncode == 0
    assert out.startswith(b"200 ") and b"data: [DONE]" in out
    assert events.of("model.call")[0]["output_tokens"] == 5
    for _ in range(50):  # the background relay notices its agent is gone (0.5 s poll)
        if not _listening(port):
            break
        await asyncio.sleep(0.1)
    assert not _listening(port)
