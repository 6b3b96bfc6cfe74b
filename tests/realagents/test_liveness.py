"""Liveness that fits real agents (issue 21): a model call in flight through the gateway is
activity, a real agent's idle limit counts real seconds whatever the time scale, and a call
still under way when the attempt ends is recorded (cancelled) before attempt.finished,
never billed and stored after it. Real agent processes in the local sandbox, a stand-in
provider that answers when the test says so, the attempt clock stepped by the test."""

from __future__ import annotations

import asyncio
import textwrap
import threading

from arena import events as ev
from arena.challenge import load_challenge
from arena.clock import ManualTime
from attempt_kit import make_package, of, open_arena, stored
from e2e_kit import agent_file, step_clock, until
from provider import FakeProvider

HOST_KEY = "sk-host-liveness-0a1b2c"
CALL = textwrap.dedent("""
    import json, os, sys, urllib.request
    req = urllib.request.Request(os.environ["OPENAI_BASE_URL"] + "/chat/completions",
        data=json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]}).encode(),
        headers={"Authorization": "Bearer " + os.environ["OPENAI_API_KEY"], "Content-Type": "application/json"})
    print("CALLING", flush=True)
    with urllib.request.urlopen(req, timeout=300) as r:
        print("ANSWER", r.status, json.loads(r.read())["choices"][0]["message"]["content"], flush=True)
""")


def _agent(tmp_path, program: str) -> str:
    return agent_file(tmp_path, ["python3", "-u", "-c", program], name="waiter", model="openai/fake-model")


async def test_a_model_call_longer_than_the_idle_limit_is_not_a_hang(tmp_path, monkeypatch):
    hold = threading.Event()
    with FakeProvider([{"content": "slow but sure"}]) as fp:
        fp.hold = hold
        monkeypatch.setenv("OPENAI_BASE_URL", fp.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", HOST_KEY)
        pkg = make_package(tmp_path / "pkg", fmt="sprint", hang_limit="60s")
        clock = ManualTime()
        arena = await open_arena(tmp_path, clock)
        try:
            a = arena.attempt(load_challenge(pkg), _agent(tmp_path, CALL))
            task = asyncio.create_task(arena.run_one(a))
            await until(lambda: a.ready, "the attempt to start")
            await until(fp.arrived.is_set, "the model call to reach the provider")
            await step_clock(clock, 80)  # an 80 s model call: past the 60 s idle limit
            assert not a.over and not of(a.events, ev.AGENT_HUNG), a.reason
            hold.set()
            await until(lambda: a.over, "the agent to end after its answer")
            status = await asyncio.wait_for(task, 60)
            events = await stored(arena, a.id)
        finally:
            hold.set()
            await arena.close()
    out = "\n".join(e.data["text"] for e in of(events, ev.AGENT_OUTPUT))
    assert status == "finished" and "ANSWER 200 slow but sure" in out, out
    assert not of(events, ev.AGENT_HUNG)
    assert of(events, ev.ATTEMPT_FINISHED)[0].data["reason"].startswith("agent done"), events[-1].data
    [call] = of(events, ev.MODEL_CALL)
    assert call.data["status"] == 200 and call.data["latency_ms"] >= 0


async def test_the_idle_limit_of_a_real_agent_counts_real_seconds_at_any_time_scale(tmp_path, monkeypatch):
    with FakeProvider([{"content": "x"}]) as fp:
        monkeypatch.setenv("OPENAI_BASE_URL", fp.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", HOST_KEY)
        pkg = make_package(tmp_path / "pkg", fmt="sprint", hang_limit="20s")
        clock = ManualTime()
        arena = await open_arena(tmp_path, clock)
        prog = "import time\nprint('IMPORTING', flush=True)\ntime.sleep(300)\n"  # a slow start, silent
        try:
            a = arena.attempt(load_challenge(pkg), _agent(tmp_path, prog), time_scale=20)
            task = asyncio.create_task(arena.run_one(a))
            await until(lambda: a.ready, "the attempt to start")
            await until(
                lambda: any(e.data.get("text") == "IMPORTING" for e in of(a.events, ev.AGENT_OUTPUT)),
                "the agent's first line",
            )
            await step_clock(clock, 15)  # 15 real s = 300 attempt s at 20x: not hung
            assert not a.over, a.reason
            await step_clock(clock, 6)  # past 20 real seconds of silence
            await until(lambda: a.over, "the watchdog")
            status = await asyncio.wait_for(task, 60)
            events = await stored(arena, a.id)
        finally:
            await arena.close()
    hung = of(events, ev.AGENT_HUNG)
    assert status == "finished" and len(hung) == 1
    assert "real seconds" in hung[0].data["detail"] and "limit 20s" in hung[0].data["detail"]
    assert 20 * 20 < hung[0].t < 22 * 20  # attempt seconds: 20 real seconds x 20


async def test_a_call_in_flight_when_the_attempt_ends_is_recorded_before_the_end(tmp_path, monkeypatch):
    hold = threading.Event()
    with FakeProvider([{"content": "too late"}]) as fp:
        fp.hold = hold
        monkeypatch.setenv("OPENAI_BASE_URL", fp.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", HOST_KEY)
        pkg = make_package(tmp_path / "pkg", fmt="sprint", hang_limit="60s")
        clock = ManualTime()
        arena = await open_arena(tmp_path, clock)
        try:
            a = arena.attempt(load_challenge(pkg), _agent(tmp_path, CALL))
            task = asyncio.create_task(arena.run_one(a))
            await until(lambda: a.ready, "the attempt to start")
            await until(fp.arrived.is_set, "the model call to reach the provider")
            limit = a.clock.grace_end_s
            await step_clock(clock, limit + 5, step=10)  # the time limit passes while it waits
            status = await asyncio.wait_for(task, 60)
            await asyncio.sleep(0.1)  # anything the gateway would still send has arrived
            hold.set()
            events = await stored(arena, a.id)
            gw = await arena.shared.gateway()
            usage = gw.usage(a.id)
        finally:
            hold.set()
            await arena.close()
    assert status == "finished"
    assert of(events, ev.ATTEMPT_FINISHED)[0].data["reason"] == "time limit reached"
    assert not of(events, ev.AGENT_HUNG)
    [call] = of(events, ev.MODEL_CALL)
    assert call.data["status"] == 499 and call.data["cancelled"] is True
    assert "estimate of its input" in call.data["detail"] and call.data["input_estimated"] is True
    assert events[-1].kind == ev.ATTEMPT_FINISHED  # nothing stored after the end
    assert usage.calls == 1 and usage.tokens == call.data["input_tokens"] > 0  # its input may be billed (issue 36)
