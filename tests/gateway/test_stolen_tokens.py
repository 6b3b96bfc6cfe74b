"""Issue 26, items 1 and 2: a gateway token is worth nothing away from its own attempt.

Real processes of another uid (``setpriv --reuid``) on the host try what a neighbour can:
read a running sandboxed agent's token from /proc, spend a host agent's token from a
foreign uid, spend one attempt's token on another attempt's listener, connect to an
attempt's gateway socket. Each is refused; the presented-elsewhere case is an
``integrity.finding`` of the attempt that presented it.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from pathlib import Path

import pytest

from arena.gateway import RELAY_PATH, RELAY_PORT, SANDBOX_RELAY_DIR, SANDBOX_SOCKET_DIR, wrap_agent_argv
from arena.sandbox import Limits, Mount, get_backend
from gw_kit import call, register

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="foreign uids need root (setpriv)")

CHAT = "/v1/chat/completions"
ASK = {"model": "gpt-4.1-mini", "messages": [{"role": "user", "content": "hi"}]}
FOREIGN_UID = 43210  # no sandbox's, no host agent's
HOST_USER_UID = 1000  # the first account useradd gives on a Debian host
PY = "/usr/bin/python3"  # readable by any uid (the arena's interpreter may not be)


def as_uid(uid: int, code: str, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["setpriv", "--reuid", str(uid), "--regid", str(uid), "--clear-groups", PY, "-c", code, *args],
        capture_output=True,
        text=True,
        timeout=20,
        cwd="/",
        input=stdin,
    )


# Every /proc entry a foreign uid can read, scanned for the token.
SCAN_PROC = r"""
import glob, sys
token = sys.stdin.read().encode()  # never in the scan's own argv
hits = []
for p in glob.glob('/proc/[0-9]*/cmdline') + glob.glob('/proc/[0-9]*/environ'):
    try:
        if token in open(p, 'rb').read():
            hits.append(p)
    except OSError:
        pass
print(len(hits)); print(hits, file=sys.stderr)
"""

# One chat call over TCP: prints the HTTP status.
CALL_TCP = r"""
import sys, urllib.request, urllib.error, json
req = urllib.request.Request(sys.argv[1] + '/v1/chat/completions',
    data=json.dumps({'model': 'x', 'messages': []}).encode(),
    headers={'Content-Type': 'application/json', 'Authorization': 'Bearer ' + sys.argv[2]})
try:
    print(urllib.request.urlopen(req, timeout=10).status)
except urllib.error.HTTPError as e:
    print(e.code)
"""

# Connect to a unix socket: prints "connected" or the error's name.
CONNECT_UNIX = r"""
import socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1]); print('connected')
except OSError as e:
    print(type(e).__name__)
"""


@pytest.mark.parametrize("backend_name", ["local", pytest.param("docker", marks=pytest.mark.docker)])
async def test_running_sandboxed_agents_token_is_not_readable_by_another_uid(backend_name, gateway, events, tmp_path):
    g = register(gateway, events, tcp=False)
    ws = tmp_path / "ws"
    ws.mkdir()
    sb = await get_backend(backend_name).create(
        ws,
        Limits(wall_s=30),
        mounts=[Mount(g.socket_dir, SANDBOX_SOCKET_DIR, True), Mount(Path(RELAY_PATH).parent, SANDBOX_RELAY_DIR, True)],
    )
    gateway.allow_uid("a1", sb.uid)
    try:
        # the agent holds its token in its environment and waits until told to go
        flag = ws / "go"
        agent = [
            "python3",
            "-c",
            "import os, time\n"
            "assert os.environ['OPENAI_API_KEY'].startswith('gw-')\n"
            "while not os.path.exists('/workspace/go'): time.sleep(0.02)\n",
        ]
        run = asyncio.ensure_future(
            sb.exec(wrap_agent_argv(agent, RELAY_PORT), env=g.sandbox_env(RELAY_PORT), timeout=30)
        )
        # a process running inside the sandbox already: the token is somewhere on the host
        for _ in range(500):
            found = await asyncio.to_thread(
                subprocess.run, [PY, "-c", SCAN_PROC], capture_output=True, text=True, input=g.token
            )
            if int(found.stdout) > 0:
                break
            await asyncio.sleep(0.02)
        assert int(found.stdout) > 0, "the agent never started (root's scan found no token)"
        thief = await asyncio.to_thread(as_uid, FOREIGN_UID, SCAN_PROC, stdin=g.token)
        assert thief.returncode == 0, thief.stderr
        assert thief.stdout.strip() == "0", thief.stderr  # not on a command line, no environ it may read
        flag.write_text("")
        res = await run
        assert res.exit_code == 0, res.stderr.decode()
    finally:
        await sb.close()


async def test_sandboxed_attempt_has_no_tcp_listener(gateway, events):
    g = register(gateway, events, tcp=False)
    assert g.tcp_url == ""
    with pytest.raises(RuntimeError, match="without a TCP listener"):
        g.host_env()


async def test_a_token_is_refused_on_another_attempts_listener(gateway, upstream, events):
    from gw_kit import Events

    victim_events, thief_events = Events(), Events()
    victim = register(gateway, victim_events, "victim", calls=3)
    thief = register(gateway, thief_events, "thief")
    statuses = [(await call(CHAT, ASK, token=victim.token, url=thief.tcp_url)).status for _ in range(5)]
    assert statuses == [401] * 5  # was [200, 200, 200, 429, 429]: the victim's budget gone
    assert upstream.seen == []
    assert gateway.usage("victim").calls == 0
    assert victim_events.of("limit.reached") == []
    [f, *_] = thief_events.of("integrity.finding")
    assert (f["severity"], f["check"]) == ("error", "foreign_gateway_token")
    assert "victim" in f["detail"]
    [w, *_] = victim_events.of("integrity.finding")
    assert w["check"] == "gateway_token_stolen"
    # the victim's own calls still go through on its own listener
    assert (await call(CHAT, ASK, token=victim.token, url=victim.tcp_url)).status == 200


async def test_host_token_from_a_foreign_uid_is_refused(gateway, upstream, events):
    g = register(gateway, events)
    gateway.allow_uid("a1", 65534)  # a host agent's uid (each has its own: hostrun.reserve_uid)
    own = await asyncio.to_thread(as_uid, 65534, CALL_TCP, g.tcp_url, g.token)
    assert own.stdout.strip() == "200", own.stderr
    foreign = await asyncio.to_thread(as_uid, FOREIGN_UID, CALL_TCP, g.tcp_url, g.token)
    assert foreign.stdout.strip() == "401", foreign.stderr
    assert len(upstream.seen) == 1
    [w] = events.of("integrity.finding")
    assert w["check"] == "gateway_token_stolen" and f"uid {FOREIGN_UID}" in w["detail"]


async def test_gateway_socket_refuses_a_foreign_uid(gateway, events):
    g = register(gateway, events, tcp=False)
    sandbox_uid = 45678
    gateway.allow_uid("a1", sandbox_uid)
    st = os.stat(g.socket_path)
    assert (st.st_uid, st.st_mode & 0o777) == (sandbox_uid, 0o600)
    assert os.stat(gateway.root).st_mode & 0o777 == 0o700
    foreign = await asyncio.to_thread(as_uid, FOREIGN_UID, CONNECT_UNIX, str(g.socket_path))
    assert foreign.stdout.strip() == "PermissionError", foreign.stderr
    # even were the socket's mode widened, the peer's uid is checked on every request
    os.chmod(g.socket_path, 0o666)
    os.chmod(gateway.root, 0o755)
    code = CONNECT_UNIX.replace(
        "print('connected')",
        "s.sendall(b'GET /v1/models HTTP/1.0\\r\\n"
        "Authorization: Bearer ' + sys.argv[2].encode() + b'\\r\\n\\r\\n'); "
        "print(s.recv(100).split()[1].decode())",
    )
    got = await asyncio.to_thread(as_uid, FOREIGN_UID, code, str(g.socket_path), g.token)
    assert got.stdout.strip() == "401", got.stderr
    ok = await asyncio.to_thread(as_uid, sandbox_uid, code, str(g.socket_path), g.token)
    assert ok.stdout.strip() == "200", ok.stderr
    assert json.dumps(events.of("integrity.finding")).count("gateway_token_stolen") >= 1


@pytest.mark.docker
async def test_docker_token_is_not_readable_by_host_uid_1000(gateway, events, tmp_path):
    """Docker's sandbox uid is one no host account has: the first host user (uid 1000, who
    shared it until issue 26) cannot read the agent's /proc/<pid>/environ, its token."""
    import pwd

    g = register(gateway, events, tcp=False)
    ws = tmp_path / "ws"
    ws.mkdir()
    sb = await get_backend("docker").create(
        ws,
        Limits(wall_s=30),
        mounts=[Mount(g.socket_dir, SANDBOX_SOCKET_DIR, True), Mount(Path(RELAY_PATH).parent, SANDBOX_RELAY_DIR, True)],
    )
    gateway.allow_uid("a1", sb.uid)
    with pytest.raises(KeyError):
        pwd.getpwuid(sb.uid)  # no host account of that uid
    assert sb.uid != HOST_USER_UID
    try:
        agent = ["python3", "-c", "import os, time\nwhile not os.path.exists('/workspace/go'): time.sleep(0.02)\n"]
        run = asyncio.ensure_future(sb.exec(agent, env=g.sandbox_env(RELAY_PORT), timeout=30))
        for _ in range(500):
            found = await asyncio.to_thread(
                subprocess.run, [PY, "-c", SCAN_PROC], capture_output=True, text=True, input=g.token
            )
            if int(found.stdout.split()[0]) > 0:
                break
            await asyncio.sleep(0.02)
        assert int(found.stdout.split()[0]) > 0, "the agent never started (root's scan found no token)"
        thief = await asyncio.to_thread(as_uid, HOST_USER_UID, SCAN_PROC, stdin=g.token)
        (ws / "go").write_text("")
        await run
        assert thief.stdout.strip() == "0", thief.stderr
    finally:
        await sb.close()
