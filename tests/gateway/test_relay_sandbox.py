"""End to end inside a real sandbox with no network: agent -> relay on the sandbox's own
loopback -> the attempt's read-only bind-mounted socket -> gateway -> fake upstream. The
host's key is nowhere the sandbox can read, while the upstream saw it on the call."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.gateway import RELAY_PATH, RELAY_PORT, SANDBOX_RELAY_DIR, SANDBOX_SOCKET_DIR, wrap_agent_argv
from arena.sandbox import Limits, Mount, get_backend
from gw_kit import AGENT_ONE_CALL, HOST_OPENAI_KEY, register

MARK = "openai-DO-NOT-LEAK"  # a piece of the host key (the whole key is never sent in)
LEAK_SCAN = (
    "import glob, os, sys\n"
    f"mark = {MARK!r}.encode()\n"
    "hits = [k for k, v in os.environ.items() if mark in v.encode()]\n"
    "for p in glob.glob('/proc/[0-9]*/environ'):\n"
    "    try:\n"
    "        if mark in open(p, 'rb').read(): hits.append(p)\n"
    "    except OSError: pass\n"
    "for root in ('/run/gauntlet', '/opt/gauntlet', '/workspace', '/tmp', '/etc'):\n"
    "    for d, _, files in os.walk(root):\n"
    "        for f in files:\n"
    "            try:\n"
    "                if mark in open(os.path.join(d, f), 'rb').read(): hits.append(f)\n"
    "            except OSError: pass\n"
    "print('LEAKS', hits)\n"
)


@pytest.mark.parametrize("backend_name", ["local", pytest.param("docker", marks=pytest.mark.docker)])
async def test_agent_in_sandbox_calls_through_relay(backend_name, gateway, upstream, events, tmp_path):
    assert MARK in HOST_OPENAI_KEY and len(MARK) >= 6
    g = register(gateway, events)
    ws = tmp_path / "ws"
    ws.mkdir()
    backend = get_backend(backend_name)
    sb = await backend.create(
        ws,
        Limits(wall_s=30),
        mounts=[Mount(g.socket_dir, SANDBOX_SOCKET_DIR, True), Mount(Path(RELAY_PATH).parent, SANDBOX_RELAY_DIR, True)],
    )
    gateway.allow_uid("a1", sb.uid)  # the socket is the sandbox user's alone (issue 26)
    try:
        agent = ["python3", "-c", AGENT_ONE_CALL + LEAK_SCAN]
        res = await sb.exec(wrap_agent_argv(agent, RELAY_PORT), env=g.sandbox_env(RELAY_PORT), timeout=30)
        out = res.stdout.decode()
        assert res.exit_code == 0, (out, res.stderr.decode())
        assert out.startswith("200 ") and "data: [DONE]" in out
        assert "LEAKS []" in out
        # and the sandbox really has no network: the upstream's port is not reachable
        probe = (
            "import socket\ntry:\n    socket.create_connection(('127.0.0.1', "
            f"{upstream.port}), timeout=2); print('REACHED')\n"
            "except OSError: print('NO ROUTE')\n"
        )
        res2 = await sb.exec(["python3", "-c", probe], timeout=10)
        assert res2.stdout.strip() == b"NO ROUTE"
    finally:
        await sb.close()
    assert upstream.seen[-1].authorization == f"Bearer {HOST_OPENAI_KEY}"
    [ev] = events.of("model.call")
    assert (ev["status"], ev["input_tokens"], ev["output_tokens"]) == (200, 12, 5)
