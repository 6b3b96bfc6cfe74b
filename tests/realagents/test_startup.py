"""Liveness that fits real agents while they start (issue 34): no hang verdict before an
agent's first sign of life, within its start-up limit; past that limit, silent, it is
ended as hung, and never rated. And the attempt's clock, nothing precomputed, ends a sandboxed agent: a
clock that slows while judging never sees its agent stopped before the cutoff.
Real agent processes in the local sandbox, the real gateway, a stand-in provider, the
attempt clock stepped by the test (ManualTime)."""

from __future__ import annotations

import asyncio
import textwrap

from arena import events as ev
from arena.challenge import load_challenge
from arena.clock import ManualTime
from arena.scoring.ratings import unrated_reason
from attempt_kit import make_package, of, open_arena, stored
from e2e_kit import agent_file, step_clock, until
from provider import FakeProvider

HOST_KEY = "sk-host-startup-5e6f"
# Silent until the test writes /gauntlet/go (the agent directory, not the workspace: no
# file.changed), then one model call: its first sign of life, as late as the test likes.
LATE_CALL = textwrap.dedent("""
    import json, os, time, urllib.request
    while not os.path.exists("/gauntlet/go"):
        time.sleep(0.2)
    req = urllib.request.Request(os.environ["OPENAI_BASE_URL"] + "/chat/completions",
        data=json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]}).encode(),
        headers={"Authorization": "Bearer " + os.environ["OPENAI_API_KEY"], "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=300) as r:
        print("ANSWER", r.status, json.loads(r.read())["choices"][0]["message"]["content"], flush=True)
""")


def _agent(tmp_path, command: list[str], **extra) -> str:
    return agent_file(tmp_path, command, name="starter", **extra)


async def test_a_first_model_call_90_real_seconds_after_start_is_not_a_hang(tmp_path, monkeypatch):
    with FakeProvider([{"content": "late but sure"}]) as fp:
        monkeypatch.setenv("OPENAI_BASE_URL", fp.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", HOST_KEY)
        pkg = make_package(tmp_path / "pkg", fmt="sprint", hang_limit="60s")
        clock = ManualTime()
        arena = await open_arena(tmp_path, clock)
        # as an adapter's launcher does, a command first: observed, and no sign of life
        launcher = 'dirname /opt/x >/dev/null; exec python3 -u -c "$1"'
        spec = _agent(tmp_path, ["sh", "-c", launcher, "sh", LATE_CALL], model="openai/fake-model")
        try:
            a = arena.attempt(load_challenge(pkg), spec)
            task = asyncio.create_task(arena.run_one(a))
            await until(lambda: a.ready, "the attempt to start")
            dirname = lambda: [e for e in of(a.events, ev.COMMAND_RUN) if e.data["argv"][0] == "dirname"]  # noqa: E731
            await until(dirname, "the launcher's command to be observed")
            await step_clock(clock, 90)  # 90 s silent: past the 60 s idle limit, within the 120 s start-up
            assert not a.over and not of(a.events, ev.AGENT_HUNG), a.reason
            (a.agent_dir / "go").write_text("")
            await until(lambda: a.over, "the agent to end after its answer")
            status = await asyncio.wait_for(task, 60)
            events = await stored(arena, a.id)
        finally:
            await arena.close()
    started = of(events, ev.ATTEMPT_STARTED)[0].data
    assert started["startup_limit_s"] == 120.0  # an agent file's default (no adapter)
    out = "\n".join(e.data["text"] for e in of(events, ev.AGENT_OUTPUT))
    assert status == "finished" and "ANSWER 200 late but sure" in out, out
    assert not of(events, ev.AGENT_HUNG)
    assert of(events, ev.ATTEMPT_FINISHED)[0].data["reason"].startswith("agent done"), events[-1].data
    [call] = of(events, ev.MODEL_CALL)
    assert call.t >= 90.0 and call.data["status"] == 200
    [dirname] = [e for e in of(events, ev.COMMAND_RUN) if e.data["argv"][0] == "dirname"]
    assert dirname.t == 0.0  # observed before the clock moved, and start-up went on


async def test_an_agent_silent_past_its_startup_limit_is_ended_as_hung(tmp_path, monkeypatch):
    with FakeProvider([{"content": "never asked"}]) as fp:
        monkeypatch.setenv("OPENAI_BASE_URL", fp.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", HOST_KEY)
        pkg = make_package(tmp_path / "pkg", fmt="sprint", hang_limit="60s")
        clock = ManualTime()
        arena = await open_arena(tmp_path, clock)
        prog = "import time\ntime.sleep(900)\n"  # never a call, a line or a command
        spec = _agent(tmp_path, ["python3", "-c", prog], model="openai/fake-model", startup_limit_s=100)
        try:
            a = arena.attempt(load_challenge(pkg), spec)
            task = asyncio.create_task(arena.run_one(a))
            await until(lambda: a.ready, "the attempt to start")
            await step_clock(clock, 99)  # past the 60 s idle limit: still starting
            assert not a.over, a.reason
            await step_clock(clock, 2)
            await until(lambda: a.over, "the start-up limit")
            status = await asyncio.wait_for(task, 60)
            events = await stored(arena, a.id)
            row = await arena.store.get_attempt(a.id)
        finally:
            await arena.close()
    assert row is not None and unrated_reason(row, [e.kind for e in events]) == "hung"  # never a rated game
    [hung] = of(events, ev.AGENT_HUNG)
    assert status == "finished" and "start-up limit 100s" in hung.data["detail"], hung.data
    assert 100.0 <= hung.t < 102.0 and hung.data["startup_limit_s"] == 100.0
    assert of(events, ev.ATTEMPT_FINISHED)[0].data["reason"] == "agent hung"
    assert not of(events, ev.MODEL_CALL)


async def test_the_attempts_clock_not_a_timer_stops_a_sandboxed_agent(tmp_path):
    """At x600 a 15-minute Sprint is 1.6 real seconds: the old exec timeout, computed once
    in real seconds at start, killed the agent then. Here judging takes real seconds and
    the (manual) clock does not move at all: the agent keeps running until the test moves
    the clock past the grace end, which stops it."""
    pkg = make_package(tmp_path / "pkg", fmt="sprint")
    clock = ManualTime()
    arena = await open_arena(tmp_path, clock)
    script = (
        'cp "$GAUNTLET_WORKSPACE"/calc.py /tmp/x.py; gauntlet-agent submit >/dev/null; echo judged; '
        "i=0; while true; do i=$((i+1)); echo tick $i; sleep 0.1; done"
    )
    spec = _agent(tmp_path, ["sh", "-c", script])  # no model: a sped-up clock is allowed
    try:
        a = arena.attempt(load_challenge(pkg), spec, time_scale=600)
        task = asyncio.create_task(arena.run_one(a))
        await until(lambda: a.ready, "the attempt to start")
        lines = lambda: [e.data.get("text") for e in of(a.events, ev.AGENT_OUTPUT)]  # noqa: E731
        await until(lambda: of(a.events, ev.SUBMISSION_RECEIVED) and not a.io_busy, "the judgement")
        await clock.step(0.06)  # 36 attempt seconds: past the Sprint's 30 s double-submit window
        await until(lambda: "judged" in lines(), "the feedback")
        await until(lambda: "tick 30" in lines() or a.over, "three real seconds after judging")
        assert not a.over and not of(a.events, ev.AGENT_EXITED), (a.reason, of(a.events, ev.AGENT_EXITED))
        assert a.clock.elapsed() < a.clock.cutoff_s
        await clock.step(a.clock.source_time(a.clock.grace_end_s) - clock.now() + 0.01)
        status = await asyncio.wait_for(task, 60)
        events = await stored(arena, a.id)
    finally:
        await arena.close()
    fin = of(events, ev.ATTEMPT_FINISHED)[0]
    assert status == "finished" and fin.data["reason"] == "time limit reached", fin.data
    assert fin.data["ended_s"] >= a.clock.grace_end_s
    assert not [e for e in of(events, ev.AGENT_EXITED) if "time limit" in e.data.get("detail", "")]
