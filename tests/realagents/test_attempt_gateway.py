"""The gateway and observation inside real attempts (CONTRACT §8), with command agents
(agent files with a `model:`) and a fake provider of the test's own: the host's key is
nowhere in the sandbox, a token limit ends the attempt, an upstream that is down is an
infra error, short programs, reads and live output are observed, host agents are marked."""

from __future__ import annotations

import asyncio
import textwrap

import pytest
import yaml

from arena import events as ev
from arena.challenge import load_challenge
from arena.sandbox import quota
from attempt_kit import CALC_FIXED, make_package, of, open_arena, stored
from provider import FakeProvider

HOST_KEY = "sk-host-SECRET-a1b2c3d4e5f6"
CALL = textwrap.dedent("""
    import json, os, urllib.request, urllib.error
    def call(text="hi"):
        req = urllib.request.Request(os.environ["OPENAI_BASE_URL"] + "/chat/completions",
            data=json.dumps({"model": "fake-model", "messages": [{"role": "user", "content": text}]}).encode(),
            headers={"Authorization": "Bearer " + os.environ["OPENAI_API_KEY"], "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"{}")
""")
SCAN = CALL + textwrap.dedent("""
    import pathlib, sys
    secret = sys.argv[1].encode()
    hits = []
    if any(secret in v.encode() for v in os.environ.values()):
        hits.append("environ")
    for p in pathlib.Path("/proc").glob("[0-9]*/environ"):
        try:
            if secret in p.read_bytes():
                hits.append(str(p))
        except OSError:
            pass
    for top in ("/gauntlet", "/run", "/opt/gauntlet", "/workspace", "/tmp", "/etc"):
        for f in pathlib.Path(top).rglob("*"):
            try:
                if f.is_file() and not f.is_symlink() and f.stat().st_size < 4_000_000 and secret in f.read_bytes():
                    hits.append(str(f))
            except OSError:
                pass
    status, body = call()
    print("HITS", json.dumps(hits))
    print("CALL", status, body.get("choices", [{}])[0].get("message", {}).get("content"))
""")


def _agent(tmp_path, name, program, *args, where="sandbox", limits=None):
    data = {
        "name": name,
        "where": where,
        "model": "openai/fake-model",
        "command": ["python3", "-u", "-c", program, *args],
    }
    if limits:
        data["limits"] = limits
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data))
    return str(path)


def _out(events) -> str:
    return "\n".join(e.data["text"] for e in of(events, ev.AGENT_OUTPUT))


async def _run(tmp_path, agent, sandbox="local", time_scale=1.0):
    pkg = make_package(tmp_path / "pkg", fmt="sprint")
    arena = await open_arena(tmp_path, None, sandbox=sandbox)
    try:
        a = arena.attempt(load_challenge(pkg), agent, time_scale=time_scale)
        status = await arena.run_one(a)
        return a, status, await stored(arena, a.id)
    finally:
        await arena.close()


@pytest.fixture
def provider(monkeypatch):
    with FakeProvider([{"content": "hello from the fake model"}] * 50) as fp:
        monkeypatch.setenv("OPENAI_BASE_URL", fp.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", HOST_KEY)
        yield fp


@pytest.mark.parametrize("sandbox", ["local", pytest.param("docker", marks=pytest.mark.docker)])
async def test_host_key_is_nowhere_in_the_sandbox_while_the_upstream_sees_it(tmp_path, provider, sandbox):
    a, status, events = await _run(tmp_path, _agent(tmp_path, "scanner", SCAN, HOST_KEY), sandbox)
    out = _out(events)
    assert status == "finished", out
    assert "HITS []" in out, out
    assert "CALL 200 hello from the fake model" in out, out
    assert provider.requests and all(r["headers"]["Authorization"] == f"Bearer {HOST_KEY}" for r in provider.requests)
    call = of(events, ev.MODEL_CALL)
    assert len(call) == len(provider.requests) and call[0].data["status"] == 200
    assert call[0].data["input_tokens"] >= 1 and call[0].data["output_tokens"] >= 1


async def test_token_limit_answers_429_and_ends_the_attempt_with_its_last_valid_submission(tmp_path, provider):
    prog = CALL + textwrap.dedent(f"""
        import pathlib, subprocess, time
        pathlib.Path("calc.py").write_text({CALC_FIXED!r})
        subprocess.run(["gauntlet-agent", "submit"], capture_output=True)
        for i in range(40):
            status, body = call("spend " * 20)
            print("CALL", i, status, json.dumps(body.get("error", {{}})))
            if status == 429:
                break
        time.sleep(60)  # the attempt must end now, not when this agent stops
    """)
    # x10: its submit returns once the sprint's 30 s double-submit window has passed (3 s)
    spender = _agent(tmp_path, "spender", prog, limits={"tokens": 100})
    a, status, events = await _run(tmp_path, spender, time_scale=10)
    assert status == "finished"
    # the body of the 429 (naming the limit) is the gateway's own test; here: it was refused
    # and the attempt ended on it (the agent, still calling, is stopped at once)
    reached = of(events, ev.LIMIT_REACHED)
    assert reached and reached[0].data["limit"] == "tokens" and reached[0].data["allowed"] == 100
    assert reached[0].data["used"] >= 100
    finished = of(events, ev.ATTEMPT_FINISHED)[0].data
    assert finished["scored_submission"] == 1 and "usage limit" in finished["reason"]
    assert of(events, ev.SUBMISSION_JUDGED)[0].data["score"] == 100.0
    calls = of(events, ev.MODEL_CALL)
    assert calls[-1].data["status"] == 429 and all(c.data["status"] == 200 for c in calls[:-1])
    assert len(provider.requests) == len(calls) - 1  # the refused call never went upstream


async def test_an_upstream_that_is_down_is_an_infra_error(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # discard port: refused
    monkeypatch.setenv("OPENAI_API_KEY", HOST_KEY)
    prog = CALL + "print('CALL', *call())\nimport time; time.sleep(60)\n"
    a, status, events = await _run(tmp_path, _agent(tmp_path, "caller", prog))
    assert status == "infra_error"
    infra = of(events, ev.INFRA_ERROR)
    assert infra and infra[0].data["source"] == "gateway"
    assert not [e for e in of(events, ev.AGENT_EXITED) if e.data.get("exit_code")]  # not the agent's failure


@pytest.mark.parametrize("sandbox", ["local", pytest.param("docker", marks=pytest.mark.docker)])
async def test_short_programs_reads_and_live_output_are_observed(tmp_path, sandbox):
    program = textwrap.dedent("""
        import os, pathlib, subprocess, sys, time
        subprocess.run(["cat", "calc.py"], stdout=subprocess.DEVNULL)
        subprocess.run(["sh", "-c", "exit 3"])
        print("ready", flush=True)
        while not pathlib.Path("go").exists():   # the test creates it once it saw "ready"
            time.sleep(0.05)
        print("done", flush=True)
    """)
    path = tmp_path / "obs.yaml"
    path.write_text(yaml.safe_dump({"name": "obs", "where": "sandbox", "command": ["python3", "-c", program]}))
    pkg = make_package(tmp_path / "pkg", fmt="sprint")
    arena = await open_arena(tmp_path, None, sandbox=sandbox)
    seen_ready = asyncio.Event()
    still_running: list[bool] = []
    try:
        a = arena.attempt(load_challenge(pkg), str(path))

        def on_event(e):
            if e.attempt == a.id and e.kind == ev.AGENT_OUTPUT and e.data["text"] == "ready":
                still_running.append(not of(a.events, ev.AGENT_EXITED))
                seen_ready.set()

        unsub = arena.bus.subscribe(on_event)
        task = asyncio.create_task(arena.run_one(a))
        await asyncio.wait_for(seen_ready.wait(), 60)
        (a.workspace / "go").write_text("")
        status = await asyncio.wait_for(task, 120)
        unsub()
        events = await stored(arena, a.id)
    finally:
        await arena.close()
    assert status == "finished" and still_running == [True]
    runs = [e.data for e in of(events, ev.COMMAND_RUN)]
    cat = [r for r in runs if r["argv"][:2] == ["cat", "calc.py"]]
    assert cat and cat[0]["observed"] is True and cat[0]["exit_code"] == 0 and cat[0]["duration_s"] < 1
    assert any(r["argv"] == ["sh", "-c", "exit 3"] and r["exit_code"] == 3 for r in runs), runs
    assert any(e.data == {"path": "calc.py", "observed": True} for e in of(events, ev.FILE_READ))


async def test_host_agent_is_unprivileged_cleared_out_of_the_package_and_flagged(tmp_path, provider):
    prog = CALL + textwrap.dedent("""
        import os, pathlib, sys
        pkg = pathlib.Path(sys.argv[1])
        print("UID", os.getuid())
        print("KEY", os.environ.get("OPENAI_API_KEY", "")[:6], "PYTHONPATH" in os.environ)
        print("PKG", pkg.exists() and any(pkg.iterdir()))
        try:
            open("/etc/shadow").read(); print("SHADOW readable")
        except OSError:
            print("SHADOW refused")
        print("CALL", call()[0])
        pathlib.Path(os.environ["GAUNTLET_WORKSPACE"], "calc.py").write_text("x = 1\\n")
    """)
    pkg_dir = tmp_path / "pkg"
    a, status, events = await _run(tmp_path, _agent(tmp_path, "hosted", prog, str(pkg_dir), where="host"))
    out = _out(events)
    assert status == "finished", out
    assert "SHADOW refused" in out and "PKG False" in out, out
    [uid] = [int(line.split()[1]) for line in out.splitlines() if line.startswith("UID ")]
    assert quota.UID_BASE <= uid < quota.UID_BASE + quota.UID_COUNT, out  # a uid of the attempt's own (issue 26)
    assert "KEY gw-" in out, out  # the grant's token, never the host key
    assert HOST_KEY not in out and "CALL 200" in out, out
    started = of(events, ev.ATTEMPT_STARTED)[0].data
    assert started["unsandboxed"] is True
    assert (a.workspace / "calc.py").read_text() == "x = 1\n"
