"""Issue 26, item 2: an attempt's agent socket speaks for that attempt alone.

A real attempt runs (both backends) with an agent inside its sandbox that talks on
``/gauntlet/agent.sock``; meanwhile a host process of another uid (``setpriv --reuid
65534``, outside every sandbox) tries to connect to the same socket and store an
``agent.message`` in the attempt. It is refused (the socket is the sandbox uid's, mode
0600; a peer of another uid is refused even were the mode wider); the agent's own
requests still work; nothing of the foreign process is stored.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # attempt_kit

from arena import events as ev  # noqa: E402
from arena.agents.server import AgentServer  # noqa: E402
from arena.challenge import load_challenge  # noqa: E402
from arena.clock import ManualTime  # noqa: E402
from attempt_kit import drive, make_package, of, open_arena, stored  # noqa: E402

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="foreign uids need root (setpriv)")
BACKENDS = ["local", pytest.param("docker", marks=pytest.mark.docker)]
PY = "/usr/bin/python3"

AGENT = r"""
import json, os, socket, time
s = socket.socket(socket.AF_UNIX)
s.connect("/gauntlet/agent.sock")
f = s.makefile("rwb")
f.write(b'{"op":"message","text":"mine"}\n'); f.flush()
open("/workspace/own.out", "w").write(f.readline().decode())
open("/workspace/ready", "w").write("")
for _ in range(1500):  # at most 30 s for the test's foreign uid to try
    if os.path.exists("/workspace/go"):
        break
    time.sleep(0.02)
"""

INJECT = r"""
import socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1])
except OSError as e:
    print(type(e).__name__)
    sys.exit(0)
try:
    s.sendall(b'{"op":"message","text":"injected by a stranger"}\n')
except OSError:
    pass  # a refusing server may have closed already: its reply is still to be read
try:
    print("reply", s.recv(200).decode().strip() or "none")
except OSError as e:
    print(type(e).__name__)
"""


def _inject(uid: int, path: Path) -> str:
    r = subprocess.run(
        ["setpriv", "--reuid", str(uid), "--regid", str(uid), "--clear-groups", PY, "-c", INJECT, str(path)],
        capture_output=True,
        text=True,
        timeout=20,
    )
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


@pytest.mark.parametrize("sandbox", BACKENDS)
async def test_foreign_uid_cannot_speak_for_a_running_attempt(tmp_path, sandbox):
    pkg = make_package(
        tmp_path / "pkg",
        fmt="sprint",
        agents={"talker": [{"overlay": "agents/talker"}, {"run": "python3 /workspace/talker.py"}]},
    )
    (pkg / "agents" / "talker").mkdir()
    (pkg / "agents" / "talker" / "talker.py").write_text(AGENT)
    ch = load_challenge(pkg)
    clock = ManualTime()
    arena = await open_arena(tmp_path, clock, sandbox=sandbox)
    try:
        a = arena.attempt(ch, "scripted:talker")
        run = asyncio.ensure_future(drive(arena, [a], clock, step=5.0))
        ws = arena.shared.workspaces / a.id
        for _ in range(3000):
            if (ws / "ready").exists() or run.done():
                break
            await asyncio.sleep(0.01)
        assert (ws / "ready").exists(), "the agent never got going"
        sock = arena.shared.agent_dir(a.id) / "agent.sock"
        st = os.stat(sock)
        assert st.st_mode & 0o777 == 0o600 and st.st_uid == a.sandbox.uid
        got = await asyncio.to_thread(_inject, 65534, sock)
        assert got in ("PermissionError", "reply"), got  # refused at connect
        assert got == "PermissionError", got
        os.chmod(sock, 0o666)  # and were the mode wider, the peer's uid is checked
        got = await asyncio.to_thread(_inject, 65534, sock)
        assert got.startswith("reply") and '"forbidden"' in got, got
        (ws / "go").write_text("")
        statuses = await asyncio.wait_for(run, 120)
        events = await stored(arena, a.id)
    finally:
        await arena.close()
    assert statuses == ["finished"]
    assert '"ok":true' in (ws / "own.out").read_text()  # the agent's own socket works
    texts = [e.data.get("text") for e in of(events, ev.AGENT_MESSAGE)]
    assert texts == ["mine"], texts


async def test_agent_server_refuses_other_uids_but_the_arenas(tmp_path):
    async def echo(req):
        return {"ok": True, "op": req["op"]}

    path = Path("/tmp") / f"as-{os.getpid()}.sock"
    server = AgentServer(path, echo)
    await server.start()
    try:
        assert os.stat(path).st_mode & 0o777 == 0o600  # nobody but the arena before allow_uid
        assert await asyncio.to_thread(_inject, 45678, path) == "PermissionError"
        server.allow_uid(45678)
        assert os.stat(path).st_uid == 45678
        got = await asyncio.to_thread(_inject, 45678, path)
        assert got.startswith("reply") and '"ok":true' in got, got
        assert await asyncio.to_thread(_inject, 65534, path) == "PermissionError"
        reader, writer = await asyncio.open_unix_connection(str(path))  # the arena's own uid
        writer.write(b'{"op":"status"}\n')
        assert b'"ok":true' in await reader.readline()
        writer.close()
    finally:
        await server.close()
