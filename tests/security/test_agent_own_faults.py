"""What an agent causes inside its own sandbox is its own failure, never ``infra_error``
(issue 26 item 6): the attempt ends ``finished`` with its last valid submission scored.

- a full workspace and /tmp fail with ENOSPC and leave the agent's processes alive: the
  quota tmpfs pages are charged to the sandbox's memory cgroup, now sized to hold them on
  top of the memory limit (a 128 MB sandbox used to be OOM-killed by its own files: exit
  137, on Docker its container);
- 20,000 files (the inode quota) then a scripted overlay: ENOSPC on the overlay ends the
  attempt as "agent failed: ... its workspace is full" (was infra_error "agent-runner");
- a malformed tool call relayed from the upstream is relayed to the agent as it came and
  metered (``malformed: true``); the agent that trips over it fails on its own (the
  gateway used to answer 500 with a traceback and meter nothing).

Every hostile program runs only inside the sandbox under test, with its limits (the
package's ``sandbox.memory: 128m``, the default 512 MB / 20,000-inode workspace quota).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import textwrap
from pathlib import Path

import pytest
import yaml
from aiohttp import web

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # attempt_kit

from arena import events as ev  # noqa: E402
from arena.challenge import load_challenge  # noqa: E402
from arena.clock import ManualTime  # noqa: E402
from attempt_kit import CALC_FIXED, drive, make_package, of, open_arena, stored  # noqa: E402

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="workspace quotas need root (mount)")
BACKENDS = ["local", pytest.param("docker", marks=pytest.mark.docker)]

# exit 0 only when both quotas answered ENOSPC and the process is still alive
FILL = textwrap.dedent("""
    import errno, os, sys
    def fill(d, files, mb):
        try:
            for j in range(files):
                with open(os.path.join(d, f"fill{j}"), "wb") as f:
                    for _ in range(mb):
                        f.write(b"x" * (1 << 20))
                        f.flush()
        except OSError as e:
            return e.errno
    ws, tmp = fill("/workspace", 4, 200), fill("/tmp", 1, 200)
    sys.exit(0 if (ws, tmp) == (errno.ENOSPC, errno.ENOSPC) else 3)
""")
MANY = textwrap.dedent("""
    import errno, os, sys
    for i in range(30000):
        try:
            open(f"/workspace/f{i}", "w").close()
        except OSError as e:
            sys.exit(0 if e.errno == errno.ENOSPC else 3)
    sys.exit(4)
""")


def _package(tmp_path: Path, agents: dict) -> Path:
    pkg = make_package(tmp_path / "pkg", fmt="sprint", agents=agents)
    m = yaml.safe_load((pkg / "challenge.yaml").read_text())
    m["sandbox"]["memory"] = "128m"
    (pkg / "challenge.yaml").write_text(yaml.safe_dump(m, sort_keys=False))
    for name, text in (("fill.py", FILL), ("many.py", MANY)):
        (pkg / "agents" / "tools" / name).parent.mkdir(parents=True, exist_ok=True)
        (pkg / "agents" / "tools" / name).write_text(text)
    (pkg / "agents" / "extra").mkdir()
    (pkg / "agents" / "extra" / "calc.py").write_text(CALC_FIXED)
    (pkg / "agents" / "extra" / "NOTES.md").write_text("a new file: needs an inode\n")
    return pkg


async def _scripted(tmp_path, sandbox: str, steps: list):
    ch = load_challenge(_package(tmp_path, {"x": steps}))
    clock = ManualTime()
    arena = await open_arena(tmp_path, clock, sandbox=sandbox)
    try:
        a = arena.attempt(ch, "scripted:x")
        (status,) = await asyncio.wait_for(drive(arena, [a], clock, step=5.0), 240)
        events = await stored(arena, a.id)
    finally:
        await arena.close()
    assert not of(events, ev.INFRA_ERROR), of(events, ev.INFRA_ERROR)[0].data
    return status, events


@pytest.mark.parametrize("sandbox", BACKENDS)
async def test_a_full_workspace_is_enospc_not_an_oom_kill(tmp_path, sandbox):
    status, events = await _scripted(
        tmp_path,
        sandbox,
        [
            {"overlay": "agents/fixed"},
            "submit",
            {"overlay": "agents/tools"},
            {"run": "python3 /workspace/fill.py"},
            {"run": "echo alive"},
        ],
    )
    runs = [(e.data["command"], e.data["exit_code"]) for e in of(events, ev.COMMAND_RUN)]
    assert runs == [("python3 /workspace/fill.py", 0), ("echo alive", 0)], runs  # not 137
    fin = events[-1].data
    assert status == "finished" and fin["scored_submission"] == 1, fin


@pytest.mark.parametrize("sandbox", BACKENDS)
async def test_inodes_spent_by_the_agent_fail_its_overlay_as_its_own_failure(tmp_path, sandbox):
    status, events = await _scripted(
        tmp_path,
        sandbox,
        [
            {"overlay": "agents/half"},
            "submit",
            {"overlay": "agents/tools"},
            {"run": "python3 /workspace/many.py"},
            {"overlay": "agents/extra"},
            "submit",
        ],
    )
    assert [e.data["exit_code"] for e in of(events, ev.COMMAND_RUN)] == [0]  # it reached ENOSPC
    fin = events[-1].data
    assert status == "finished" and fin["status"] == "finished", fin
    assert fin["reason"].startswith("agent failed: overlay step 5: its workspace is full"), fin["reason"]
    assert fin["scored_submission"] == 1
    assert len(of(events, ev.SUBMISSION_JUDGED)) == 1


# -- a malformed tool call relayed from the upstream ---------------------------------------
BAD_BODY = {
    "id": "x",
    "choices": [{"index": 0, "message": {"role": "assistant", "tool_calls": 7}}],
    "usage": {"prompt_tokens": 11, "completion_tokens": 3},
}
BAD_CHUNK = {"choices": [{"index": [0], "delta": {"tool_calls": [{"index": {}, "function": {"name": "sh"}}]}}]}
USAGE_CHUNK = {"choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 2}}
AGENT = textwrap.dedent("""
    import json, os, socket, sys, urllib.request
    open("/workspace/calc.py", "w").write(sys.argv[1])
    s = socket.socket(socket.AF_UNIX)
    s.connect("/gauntlet/agent.sock")
    f = s.makefile("rwb")
    f.write(b'{"op": "submit"}\\n'); f.flush()
    print("SUBMITTED", json.loads(f.readline())["ok"], flush=True)
    for stream in (False, True):
        req = urllib.request.Request(os.environ["OPENAI_BASE_URL"] + "/chat/completions",
            data=json.dumps({"model": "m", "stream": stream, "messages": [{"role": "user", "content": "hi"}]}).encode(),
            headers={"Authorization": "Bearer " + os.environ["OPENAI_API_KEY"], "Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=30) as r:
            print("ANSWER", r.status, flush=True)
            body = r.read()
    json.loads(body.split(b"data: ")[1])["choices"][0]["delta"]["tool_calls"][0]["index"] + 1  # trips over it
""")


async def _bad_upstream(request: web.Request) -> web.StreamResponse:
    body = await request.json()
    if not body.get("stream"):
        return web.json_response(BAD_BODY)
    resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
    await resp.prepare(request)
    for chunk in (BAD_CHUNK, USAGE_CHUNK):
        await resp.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
    await resp.write(b"data: [DONE]\n\n")
    await resp.write_eof()
    return resp


@pytest.mark.parametrize("sandbox", BACKENDS)
async def test_a_malformed_tool_call_from_the_upstream_is_the_agents_failure(tmp_path, sandbox, monkeypatch):
    app = web.Application()
    app.router.add_post("/v1/chat/completions", _bad_upstream)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{site._server.sockets[0].getsockname()[1]}/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-host-malformed")
    agent = tmp_path / "agent.yaml"
    agent.write_text(
        yaml.safe_dump(
            {
                "name": "tripper",
                "where": "sandbox",
                "model": "openai/fake-model",
                "command": ["python3", "-u", "-c", AGENT, CALC_FIXED],
            }
        )
    )
    ch = load_challenge(_package(tmp_path, {}))
    arena = await open_arena(tmp_path, None, sandbox=sandbox)  # real time, 60x: the Sprint window is 0.5 s
    try:
        a = arena.attempt(ch, str(agent), time_scale=60)
        status = await asyncio.wait_for(arena.run_one(a), 120)
        events = await stored(arena, a.id)
    finally:
        await arena.close()
        await runner.cleanup()
    out = [e.data["text"] for e in of(events, ev.AGENT_OUTPUT)]
    assert "SUBMITTED True" in out and out.count("ANSWER 200") == 2, out
    calls = [e.data for e in of(events, ev.MODEL_CALL)]
    assert [(c["status"], c["input_tokens"], c["output_tokens"], c.get("malformed")) for c in calls] == [
        (200, 11, 3, True),
        (200, 5, 2, True),
    ], calls
    assert not of(events, ev.INFRA_ERROR)
    fin = events[-1].data
    assert status == "finished" and fin["reason"].startswith("agent failed"), fin
    assert fin["scored_submission"] == 1
