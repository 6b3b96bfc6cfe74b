"""Crash recovery: the runner is SIGKILLed mid-attempt; on restart nothing acknowledged
is missing, the log is consistent, nothing is left running, and the attempt is resumed
(scripted agents can restart) or closed interrupted (agents that cannot)."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.bus import EventBus
from arena.results import JudgeResult
from arena import events as ev
from attempt_kit import make_package, open_arena, stored


def _rows(db: Path, sql: str, *params):
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
    try:
        return con.execute(sql, params).fetchall()
    finally:
        con.close()


def _leftovers(attempt: str, dead_pid: int) -> list[str]:
    found = []
    for p in Path("/proc").iterdir():
        if not p.name.isdigit():
            continue
        try:
            env = (p / "environ").read_bytes()
            cmd = (p / "cmdline").read_bytes().replace(b"\0", b" ")
        except OSError:
            continue
        if f"GAUNTLET_ATTEMPT={attempt}".encode() in env or f"/{dead_pid}-".encode() in cmd:
            found.append(f"{p.name}: {cmd[:120]!r}")
    return found


def _wait_for(pred, timeout: float, what: str):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = pred()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def _containers_of(pid: int) -> list[str]:
    out = subprocess.run(
        ["docker", "ps", "-aq", "--filter", f"label=gauntlet.owner={pid}"], capture_output=True, text=True, check=True
    )
    return out.stdout.split()


@pytest.mark.parametrize("sandbox", ["local", pytest.param("docker", marks=pytest.mark.docker)])
def test_sigkill_mid_attempt_then_resume(tmp_path, sandbox):
    steps = [
        {"overlay": "agents/half"},
        "submit",
        {"run": "sleep 5"},
        {"wait": "300s"},
        {"overlay": "agents/fixed"},
        "submit",
        {"wait": "60s"},
    ]
    pkg = make_package(tmp_path / "pkg", fmt="sprint", agents={"crashy": steps})
    db = tmp_path / "g.db"
    env = {**os.environ, "GAUNTLET_SOCKETS": str(tmp_path / "socks")}
    cmd = [
        sys.executable,
        "-m",
        "gauntlet_tui",
        "run",
        str(pkg),
        "--agent",
        "scripted:crashy",
        "--time-scale",
        "60",
        "--sandbox",
        sandbox,
        "--store",
        str(db),
        "--headless",
    ]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        _wait_for(
            lambda: db.exists() and _rows(db, "SELECT 1 FROM events WHERE kind = ?", ev.FEEDBACK_DELIVERED),
            60,
            "feedback of submission 1",
        )
        (attempt,) = _rows(db, "SELECT id FROM attempts")[0]
        _wait_for(lambda: _leftovers(attempt, proc.pid), 10, "the run step's process")
        time.sleep(0.3)
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
    # after the crash: the acknowledged submission and its feedback are committed
    seqs = [s for (s,) in _rows(db, "SELECT seq FROM events WHERE attempt = ? ORDER BY seq", attempt)]
    assert seqs == list(range(1, len(seqs) + 1))
    assert _rows(db, "SELECT n FROM feedback WHERE attempt = ?", attempt) == [(1,)]
    assert _rows(db, "SELECT status FROM attempts WHERE id = ?", attempt) == [("running",)]
    if sandbox == "local":  # the sandbox's processes died with the runner
        _wait_for(lambda: not _leftovers(attempt, proc.pid), 10, "leftover processes to go")

    # restart: any run resumes what a crash left running
    steps2 = [{"overlay": "agents/fixed"}, "submit"]
    make_package(tmp_path / "pkg2", fmt="sprint", cid="kit-second", agents={"quick": steps2})
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "gauntlet_tui",
            "run",
            str(tmp_path / "pkg2"),
            "--agent",
            "scripted:quick",
            "--time-scale",
            "60",
            "--sandbox",
            sandbox,
            "--store",
            str(db),
            "--headless",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    new_id = out.stdout.strip().splitlines()[-1]
    assert new_id != attempt and new_id.startswith("a-")
    assert f"{attempt} " in out.stdout  # the resumed attempt's progress is shown too
    rows = _rows(db, "SELECT seq, kind, data FROM events WHERE attempt = ? ORDER BY seq", attempt)
    assert [r[0] for r in rows] == list(range(1, len(rows) + 1))
    kinds = [r[1] for r in rows]
    assert kinds.count(ev.ATTEMPT_RESUMED) == 1 and kinds[-1] == ev.ATTEMPT_FINISHED
    assert kinds.count(ev.FEEDBACK_DELIVERED) == 2  # submission 1 kept, submission 2 after resume
    received = [json.loads(d)["submission"] for s, k, d in rows if k == ev.SUBMISSION_RECEIVED]
    assert received == [1, 2]
    assert _rows(db, "SELECT status, scored_submission FROM attempts WHERE id = ?", attempt) == [("finished", 2)]
    assert not _leftovers(attempt, proc.pid)
    if sandbox == "docker":
        assert _containers_of(proc.pid) == []
    state_root = Path(os.environ.get("GAUNTLET_SANDBOX_STATE", "/tmp/gauntlet-sandbox"))
    assert not [p for p in state_root.glob(f"{proc.pid}-*")] if state_root.exists() else True


async def test_unrestartable_attempt_is_closed_interrupted(tmp_path):
    pkg = make_package(tmp_path / "pkg", fmt="sprint")
    agent_file = tmp_path / "ext.yaml"
    agent_file.write_text("name: ext\ncommand: [true]\n")
    arena = await open_arena(tmp_path, None)
    try:
        # a log as a crash leaves it: one acknowledged submission, a second one in flight
        bus = EventBus()
        bus.subscribe(arena.store.append)
        aid = "a-0000c0de"
        result = JudgeResult(submission=1, snapshot_hash="x").model_dump()
        bus.publish(
            aid,
            0.0,
            ev.ATTEMPT_STARTED,
            {
                "challenge": "kit-sprint",
                "agent": str(agent_file),
                "format": "sprint",
                "time_limit_s": 900.0,
                "budget": 2,
                "challenge_path": str(pkg),
            },
        )
        bus.publish(aid, 50.0, ev.SUBMISSION_RECEIVED, {"submission": 1, "hash": "x"})
        bus.publish(aid, 51.0, ev.SUBMISSION_JUDGED, {"submission": 1, "result": result, "score": 40.0, "phase": 1})
        bus.publish(aid, 51.0, ev.FEEDBACK_DELIVERED, {"submission": 1, "feedback": {"submission": 1}})
        bus.publish(aid, 80.0, ev.SUBMISSION_RECEIVED, {"submission": 2, "hash": "y"})
        await arena.store.flush()
        resumed = await arena.recover()
        events = await stored(arena, aid)
        row = await arena.store.get_attempt(aid)
    finally:
        await arena.close()
    assert resumed == []
    fin = events[-1]
    assert fin.kind == ev.ATTEMPT_FINISHED and fin.seq == 6 and fin.t == 80.0
    assert fin.data["status"] == "interrupted" and fin.data["scored_submission"] == 1
    assert "cannot restart" in fin.data["reason"]
    assert row["status"] == "interrupted"


async def test_attempt_out_of_time_is_closed_not_resumed(tmp_path):
    pkg = make_package(tmp_path / "pkg", fmt="sprint", agents={"x": ["submit"]})
    arena = await open_arena(tmp_path, None)
    try:
        bus = EventBus()
        bus.subscribe(arena.store.append)
        aid = "a-0000beef"
        bus.publish(
            aid,
            0.0,
            ev.ATTEMPT_STARTED,
            {
                "challenge": "kit-sprint",
                "agent": "scripted:x",
                "format": "sprint",
                "time_limit_s": 900.0,
                "budget": 2,
                "challenge_path": str(pkg),
            },
        )
        bus.publish(aid, 900.0, ev.CLOCK_CUTOFF, {"remaining_s": 0})
        await arena.store.flush()
        assert await arena.recover() == []
        events = await stored(arena, aid)
    finally:
        await arena.close()
    assert events[-1].data["status"] == "interrupted"
    assert "no time left" in events[-1].data["reason"]
    assert events[-1].data["scored_submission"] is None
