"""Faults are named: a sandbox that dies mid-attempt, a judge that cannot run, a corrupted
workspace, a store that cannot commit. Each is noticed within seconds and ends the
attempt honestly (infra.error, or the agent's own doing), never a hang."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess

import pytest

from arena.challenge import load_challenge
from arena.clock import ManualTime
from arena.results import JudgeResult
from arena import events as ev
from attempt_kit import request_stepping, drive, make_package, of, open_arena, stored


async def _sandbox_dies(tmp_path, sandbox: str, kill) -> list:
    pkg = make_package(
        tmp_path / "pkg",
        fmt="sprint",
        agents={"w": [{"overlay": "agents/half"}, "submit", {"run": "true"}, {"wait": "14m"}]},
    )
    arena = await open_arena(tmp_path, None, sandbox=sandbox)  # real time: the health check is real
    try:
        # x10: the submit step waits out the sprint's 30 s double-submit window (3 real s)
        a = arena.attempt(load_challenge(pkg), "scripted:w", time_scale=10)
        task = asyncio.create_task(arena.run_one(a))
        while not of(a.events, ev.COMMAND_RUN):
            assert not task.done()
            await asyncio.sleep(0.05)
        await kill(a.sandbox)
        status = await asyncio.wait_for(task, 15)  # noticed within seconds
        events = await stored(arena, a.id)
    finally:
        await arena.close()
    assert status == "infra_error"
    err = of(events, ev.INFRA_ERROR)
    assert len(err) == 1 and err[0].data["source"] == "sandbox"
    fin = events[-1]
    assert fin.kind == ev.ATTEMPT_FINISHED and fin.data["status"] == "infra_error"
    assert fin.data["scored_submission"] == 1  # the last valid submission stands
    return events


async def test_local_sandbox_dies_mid_attempt(tmp_path):
    from arena.sandbox import registry

    async def kill(sb):  # its state vanishes under it, as when the host cleans it away
        registry.cleanup_local_state(sb.id)

    await _sandbox_dies(tmp_path, "local", kill)


@pytest.mark.docker
async def test_docker_sandbox_dies_mid_attempt(tmp_path):
    async def kill(sb):
        subprocess.run(["docker", "kill", sb.container.id], check=True, capture_output=True)

    await _sandbox_dies(tmp_path, "docker", kill)


class _BrokenJudge:
    """Fault injection: the judge's sandbox image is gone."""

    def __init__(self, real) -> None:
        self.real = real

    async def run(self, challenge, snapshot, *, submission, phases=None):
        return JudgeResult(
            submission=submission, snapshot_hash=snapshot.hash, infra_error="sandbox: image gauntlet-base not found"
        )


async def test_judge_cannot_run(tmp_path):
    pkg = make_package(
        tmp_path / "pkg", fmt="sprint", agents={"s": [{"overlay": "agents/fixed"}, "submit", {"wait": "10m"}]}
    )
    clock = ManualTime()
    arena = await open_arena(tmp_path, clock)
    arena.shared.judge = _BrokenJudge(arena.shared.judge)
    try:
        a = arena.attempt(load_challenge(pkg), "scripted:s")
        (status,) = await drive(arena, [a], clock, step=5.0)
        events = await stored(arena, a.id)
    finally:
        await arena.close()
    assert status == "infra_error"
    err = of(events, ev.INFRA_ERROR)
    assert [e.data["source"] for e in err] == ["judge"]
    assert not of(events, ev.SUBMISSION_JUDGED) and not of(events, ev.FEEDBACK_DELIVERED)
    fin = events[-1].data
    assert fin["status"] == "infra_error" and fin["scored_submission"] is None
    assert events[-1].t < 60  # ended at once, not at the time limit


async def test_corrupted_workspace_scored_on_last_valid_snapshot(tmp_path):
    pkg = make_package(tmp_path / "pkg", fmt="sprint")
    clock = ManualTime()
    arena = await open_arena(tmp_path, clock)
    try:
        a = arena.attempt(load_challenge(pkg), "human")
        task = asyncio.create_task(arena.run_one(a))
        while not a.ready:
            await asyncio.sleep(0.005)
        (a.workspace / "calc.py").write_text((tmp_path / "pkg/agents/half/calc.py").read_text())
        first = await request_stepping(a, clock, {"op": "submit"})
        assert first["ok"] and first["feedback"]["tests"]["passed"] == 3
        await clock.step(1)  # the reply came after the 30 s replacement window: past it already
        if os.path.ismount(a.workspace):  # the per-attempt quota tmpfs: gone with it
            subprocess.run(["umount", "-l", str(a.workspace)], check=True)
        shutil.rmtree(a.workspace)
        a.workspace.write_text("not a directory any more")  # the agent wrecked it
        second = await a.request({"op": "submit"})
        status = await asyncio.wait_for(task, 10)
        events = await stored(arena, a.id)
    finally:
        await arena.close()
    assert second["ok"] is False and second["code"] == "workspace_corrupted"
    finding = of(events, ev.INTEGRITY_FINDING)
    assert finding and finding[0].data["check"] == "workspace_corrupted"
    assert not of(events, ev.INFRA_ERROR)
    assert status == "finished"
    assert events[-1].data["scored_submission"] == 1
    assert "workspace corrupted" in events[-1].data["reason"]


async def test_store_that_cannot_commit_is_an_infra_error_not_an_ok(tmp_path):
    pkg = make_package(tmp_path / "pkg", fmt="sprint")
    clock = ManualTime()
    arena = await open_arena(tmp_path, clock)
    real_flush = arena.store.flush
    try:
        a = arena.attempt(load_challenge(pkg), "human")
        task = asyncio.create_task(arena.run_one(a))
        while not a.ready:
            await asyncio.sleep(0.005)

        async def failing_flush():  # fault injection: the disk is full
            raise OSError(28, "No space left on device")

        arena.store.flush = failing_flush
        reply = await request_stepping(a, clock, {"op": "submit"})
        arena.store.flush = real_flush
        status = await asyncio.wait_for(task, 10)
        events = await stored(arena, a.id)
    finally:
        arena.store.flush = real_flush
        await arena.close()
    assert reply["ok"] is False and reply["code"] == "infra_error"
    assert status == "infra_error"
    assert [e.data["source"] for e in of(events, ev.INFRA_ERROR)] == ["store"]


async def test_protocol_garbage_never_takes_the_attempt_down(tmp_path):
    pkg = make_package(tmp_path / "pkg", fmt="sprint")
    clock = ManualTime()
    arena = await open_arena(tmp_path, clock)
    try:
        a = arena.attempt(load_challenge(pkg), "human")
        task = asyncio.create_task(arena.run_one(a))
        while not a.ready:
            await asyncio.sleep(0.005)
        reader, writer = await asyncio.open_unix_connection(a.env["GAUNTLET_SOCKET"])
        replies = []
        for payload in (
            b"{{{\n",
            b'{"op": "explode"}\n',
            b"x" * 70000 + b"\n",
            b'{"op": "feedback", "n": -1}\n',
            b'{"op": "feedback"}\n',
            b'{"op": "message"}\n',
            b'{"op": "status"}\n',
        ):
            writer.write(payload)
            await writer.drain()
            import json

            replies.append(json.loads(await reader.readline()))
        writer.close()
        assert not task.done()
        a.finish("finished", "test over")
        await asyncio.wait_for(task, 10)
    finally:
        await arena.close()
    codes = [r.get("code") for r in replies]
    assert codes == ["bad_request", "bad_request", "too_large", "bad_request", "no_feedback", "bad_request", None]
    status = replies[-1]
    assert status["ok"] and status["stage"] == "running" and status["submissions_left"] == 2
