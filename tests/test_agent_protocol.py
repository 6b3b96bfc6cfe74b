"""The agent socket (JSON lines) and the dependency-free client."""

from __future__ import annotations

import ast
import asyncio
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import yaml

from arena.agents import client
from arena.agents.server import MAX_REQUEST, AgentServer


@pytest.fixture
def sock_path():
    d = tempfile.mkdtemp(prefix="gt-", dir="/tmp")
    yield Path(d) / "s.sock"


async def _echo(req):
    if req["op"] == "boom":
        raise RuntimeError("handler bug")
    if req["op"] == "refuse":
        return {"ok": False, "code": "budget_spent", "reason": "no submissions left"}
    return {"ok": True, "op": req["op"], "n": req.get("n")}


async def _talk(path: Path, payloads: list[bytes]) -> list[dict]:
    reader, writer = await asyncio.open_unix_connection(str(path))
    replies = []
    for p in payloads:
        writer.write(p)
        await writer.drain()
        replies.append(json.loads(await reader.readline()))
    writer.close()
    return replies


async def test_requests_get_one_reply_each_and_bad_ones_keep_the_connection(sock_path):
    server = AgentServer(sock_path, _echo)
    await server.start()
    try:
        big = b'{"op":"status","pad":"' + b"x" * (MAX_REQUEST + 10) + b'"}\n'
        replies = await _talk(
            sock_path,
            [
                b'{"op":"status"}\n',
                b"not json\n",
                b'["op"]\n',
                b'{"op": 3}\n',
                big,
                b'{"op":"boom"}\n',
                b'{"op":"refuse"}\n',
                b'{"op":"feedback","n":2}\n',
            ],
        )
    finally:
        await server.close()
    assert replies[0] == {"ok": True, "op": "status", "n": None}
    assert replies[1]["ok"] is False and replies[1]["code"] == "bad_request"
    assert replies[2]["code"] == "bad_request" and replies[3]["code"] == "bad_request"
    assert replies[4] == {"ok": False, "code": "too_large", "reason": f"request larger than {MAX_REQUEST} bytes"}
    assert replies[5]["code"] == "internal" and "handler bug" in replies[5]["reason"]
    assert replies[6] == {"ok": False, "code": "budget_spent", "reason": "no submissions left"}
    assert replies[7]["n"] == 2  # the stream stayed in sync after the oversized line
    assert not sock_path.exists()


async def test_oversized_request_split_across_writes(sock_path):
    server = AgentServer(sock_path, _echo, max_request=1000)
    await server.start()
    try:
        reader, writer = await asyncio.open_unix_connection(str(sock_path))
        for _ in range(5):
            writer.write(b"y" * 700)
            await writer.drain()
        writer.write(b'\n{"op":"status"}\n')
        first = json.loads(await reader.readline())
        second = json.loads(await reader.readline())
        writer.close()
    finally:
        await server.close()
    assert first["code"] == "too_large"
    assert second["ok"] is True and second["op"] == "status"


def test_client_is_stdlib_only():
    tree = ast.parse(Path(client.__file__).read_text())
    mods = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            mods |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            mods.add((node.module or "").split(".")[0])
    assert mods <= set(sys.stdlib_module_names) | {"__future__"}, mods


@pytest.mark.parametrize(
    "doc",
    [
        {
            "submission": 2,
            "tests": {"total": 3, "failures": [{"name": "test_x", "message": "a: b\n  c"}]},
            "notices": ["Submission identical to previous iteration."],
            "empty": [],
            "none": None,
        },
        {"briefing": "# Title\n\nDo: this\n  - and that\n", "yes": "no", "k: v": True, "f": 1.5},
        {"odd": " leading space\nline", "ctrl": "bell\x07", "tail": "x\n\n", "u": "é — ü"},
    ],
)
def test_yaml_emitter_round_trips(doc):
    assert yaml.safe_load(client.to_yaml(doc)) == doc


def test_client_usage_errors():
    with pytest.raises(ValueError, match="unknown verb"):
        client.build_request("frobnicate", [])
    with pytest.raises(ValueError, match="submission number"):
        client.build_request("feedback", ["two"])
    with pytest.raises(ValueError, match="no arguments"):
        client.build_request("status", ["x"])
    assert client.build_request("feedback", ["3"]) == {"op": "feedback", "n": 3}
    assert client.build_request("message", ["all", "done"]) == {"op": "message", "text": "all done"}


async def test_client_subprocess_prints_yaml_and_exit_codes(sock_path):
    server = AgentServer(sock_path, _echo)
    await server.start()
    env = {**os.environ, "GAUNTLET_SOCKET": str(sock_path)}
    script = Path(client.__file__)
    try:

        async def run(*args, env=env):
            p = await asyncio.create_subprocess_exec(
                sys.executable, str(script), *args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
            )
            out, err = await p.communicate()
            return p.returncode, out.decode(), err.decode()

        code, out, _ = await run("status")
        assert code == 0 and yaml.safe_load(out) == {"ok": True, "op": "status", "n": None}
        code, out, err = await run("feedback", "x")
        assert code == 2 and "submission number" in err
        code, out, err = await run("status", env={k: v for k, v in env.items() if k != "GAUNTLET_SOCKET"})
        assert code == 2 and "GAUNTLET_SOCKET" in err
        code, out, err = await run("--socket", "/nonexistent/sock", "status")
        assert code == 2 and "cannot talk" in err
    finally:
        await server.close()


async def test_client_refusal_exit_code_1(sock_path):
    async def refuse(req):
        return {"ok": False, "code": "cooldown", "reason": "wait 30s"}

    server = AgentServer(sock_path, refuse)
    await server.start()
    try:
        p = await asyncio.create_subprocess_exec(
            sys.executable,
            client.__file__,
            "submit",
            env={**os.environ, "GAUNTLET_SOCKET": str(sock_path)},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        out, _ = await p.communicate()
    finally:
        await server.close()
    assert p.returncode == 1
    assert yaml.safe_load(out) == {"ok": False, "code": "cooldown", "reason": "wait 30s"}
