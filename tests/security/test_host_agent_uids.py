"""Issue 26: two host agents (``where: host``) running at once are strangers to each other.

Two real attempts of one arena run a host agent each (bubblewrap + setpriv, as hostrun.py
launches them) with a model, so each holds a gateway token in its environment. Until each
host attempt got a uid of its own, both ran as 65534: B read A's token from
``/proc/<A>/environ``, reached A's agent socket through ``/proc/<A>/root`` and spent A's
token on A's listener (the uid check passed). Now B is refused all three, and each agent
still speaks for its own attempt, on its socket and its gateway.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

sys.path[:0] = [str(Path(__file__).resolve().parents[1] / d) for d in ("", "fakes")]  # attempt_kit, provider

from arena import events as ev  # noqa: E402
from arena.challenge import load_challenge  # noqa: E402
from arena.sandbox import quota  # noqa: E402
from attempt_kit import make_package, of, open_arena, stored  # noqa: E402
from provider import FakeProvider  # noqa: E402

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or not shutil.which("bwrap"), reason="host agents get a uid of their own as root with bwrap"
)

AGENT = textwrap.dedent(r"""
    import json, os, pathlib, socket, sys, time, urllib.request, urllib.error
    def call(url, token):
        req = urllib.request.Request(url + "/chat/completions",
            data=json.dumps({"model": "fake-model", "messages": [{"role": "user", "content": "hi"}]}).encode(),
            headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                return r.status
        except urllib.error.HTTPError as e:
            return e.code
    def speak(path, text):
        try:
            s = socket.socket(socket.AF_UNIX)
            s.connect(path)
            s.sendall(json.dumps({"op": "message", "text": text}).encode() + b"\n")
            return "ok" if b'"ok":true' in s.recv(300) else "refused"
        except OSError as e:
            return type(e).__name__
    role = sys.argv[1]
    print("UID", os.getuid())
    print("OWN", speak(os.environ["GAUNTLET_SOCKET"], role), call(os.environ["OPENAI_BASE_URL"], os.environ["OPENAI_API_KEY"]))
    pathlib.Path("me.json").write_text(json.dumps({"pid": os.getpid()}))
    wait = "target.json" if role == "B" else "go"
    for _ in range(3000):
        if pathlib.Path(wait).exists():
            break
        time.sleep(0.02)
    if role == "B":
        t = json.loads(pathlib.Path("target.json").read_text())
        try:
            env = open(f"/proc/{t['pid']}/environ", "rb").read()
            print("ENVIRON", "token" if t["token"].encode() in env else "read")
        except OSError as e:
            print("ENVIRON", type(e).__name__)
        print("ROOTSOCK", speak(f"/proc/{t['pid']}/root/tmp/gauntlet/agent/agent.sock", "from B"))
        print("HOSTSOCK", speak(t["sock"], "from B"))
        print("THEIRGW", call(t["url"] + "/v1", t["token"]))
        import subprocess
        out = dict(stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        subprocess.Popen(["sleep", "300"], start_new_session=True, **out)  # a daemon left behind
""")


def _agent(tmp_path: Path, name: str) -> str:
    data = {
        "name": name,
        "where": "host",
        "model": "openai/fake-model",
        "command": ["python3", "-u", "-c", AGENT, name],
    }
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data))
    return str(path)


async def _wait_for(path: Path, tasks: list[asyncio.Task]) -> None:
    for _ in range(6000):
        if path.exists() or any(t.done() for t in tasks):
            break
        await asyncio.sleep(0.01)
    assert path.exists(), f"{path.name} never came"


async def test_host_agents_of_two_attempts_cannot_reach_each_other(tmp_path, monkeypatch):
    with FakeProvider([{"content": "hi"}] * 20) as fp:
        monkeypatch.setenv("OPENAI_BASE_URL", fp.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-host-key")
        ch = load_challenge(make_package(tmp_path / "pkg", fmt="sprint"))
        arena = await open_arena(tmp_path, None)
        try:
            a = arena.attempt(ch, _agent(tmp_path, "A"))
            b = arena.attempt(ch, _agent(tmp_path, "B"))
            tasks = [asyncio.create_task(arena.run_one(x)) for x in (a, b)]
            for x in (a, b):
                await _wait_for(x.workspace / "me.json", tasks)
            pool = range(quota.UID_BASE, quota.UID_BASE + quota.UID_COUNT)  # the local sandboxes' uids
            assert a.host_uid != b.host_uid and a.host_uid in pool and b.host_uid in pool
            grant = a.support.grant
            target = {"pid": json.loads((a.workspace / "me.json").read_text())["pid"], "token": grant.token}
            target |= {"url": grant.tcp_url, "sock": str(a.agent_dir / "agent.sock")}
            (b.workspace / "target.json").write_text(json.dumps(target))
            status_b = await asyncio.wait_for(tasks[1], 120)
            (a.workspace / "go").write_text("")
            status_a = await asyncio.wait_for(tasks[0], 120)
            events = {x.id: await stored(arena, x.id) for x in (a, b)}
        finally:
            await arena.close()
    out = {x: "\n".join(e.data["text"] for e in of(events[x.id], ev.AGENT_OUTPUT)) for x in (a, b)}
    assert (status_a, status_b) == ("finished", "finished"), out
    for x in (a, b):
        assert f"UID {x.host_uid}" in out[x] and "OWN ok 200" in out[x], out[x]
        assert [e.data["text"] for e in of(events[x.id], ev.AGENT_MESSAGE)] == [x.agent.file.name]
    assert "ENVIRON PermissionError" in out[b], out[b]  # A's token stays A's
    assert "ROOTSOCK PermissionError" in out[b], out[b]  # A's agent socket through /proc/<A>/root
    assert "HOSTSOCK FileNotFoundError" in out[b], out[b]  # its host path is hidden
    assert "THEIRGW 401" in out[b], out[b]  # even given A's token, B's uid is refused on A's listener
    [w] = [e.data for e in of(events[a.id], ev.INTEGRITY_FINDING) if e.data.get("check") == "gateway_token_stolen"]
    assert f"uid {b.host_uid}" in w["detail"]
    for x in (a, b):  # each uid is freed, and nothing runs as it any more (B's daemon is killed)
        held = quota._uid_dir() / str(x.host_uid)
        if held.exists():  # taken since by another sandbox (CI runs two pytest processes at once)
            assert held.read_text().strip() != x._host_sid, x.agent.file.name
        else:
            assert _alive_as(x.host_uid) == [], x.agent.file.name


def _alive_as(uid: int) -> list[str]:
    out = []
    for p in Path("/proc").glob("[0-9]*/status"):
        try:
            f = dict(ln.split(":", 1) for ln in p.read_text().splitlines() if ":" in ln)
        except OSError:
            continue
        if int(f["Uid"].split()[0]) == uid and not f["State"].strip().startswith("Z"):
            out.append(p.parent.name)
    return out
