"""Crash safety, for real: a child process streams events into a store, flushing at
"acknowledged" points and printing what it acknowledged; the test SIGKILLs it
mid-stream (commits in flight, events queued), reopens the store and checks that
every acknowledged event is there, nothing is torn, seq is contiguous per attempt,
derived rows agree with the log, migrations are idempotent, and the crashed
attempts are reported as still running. Three rounds on the same file: each child
continues the attempts from ``max_seq`` as a resuming runner would.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

from store import SCHEMA_VERSION, Store

IDS = ["a-0000c001", "a-0000c002", "a-0000c003"]

CHILD = r"""
import asyncio, json, sys
from arena.events import Event
from store import Store

def event(aid, seq):
    if seq % 50 == 0:
        return Event(attempt=aid, seq=seq, t=seq / 10, kind="submission.received",
                     data={"submission": seq // 50, "hash": f"{aid}:{seq}", "diff": {"files_changed": 1}})
    return Event(attempt=aid, seq=seq, t=seq / 10, kind="file.changed",
                 data={"path": f"src/{aid}.py", "seq": seq, "pad": "x" * (seq % 97)})

async def main(path, ids):
    store = await Store.open(path)
    seq = {}
    for aid in ids:
        if await store.get_attempt(aid) is None:
            await store.create_attempt(challenge="crash", agent="scripted:crash", format="sprint",
                                       attempt_id=aid)
        seq[aid] = await store.max_seq(aid)
    rounds = 0
    while True:
        for _ in range(100):
            for aid in ids:
                seq[aid] += 1
                store.append(event(aid, seq[aid]))
        await asyncio.sleep(0)
        rounds += 1
        if rounds % 16 == 0:
            await store.flush()
            print("ACK " + json.dumps(seq), flush=True)

asyncio.run(main(sys.argv[1], sys.argv[2:]))
"""


def expected_data(aid: str, seq: int) -> tuple[str, dict]:
    if seq % 50 == 0:
        return "submission.received", {"submission": seq // 50, "hash": f"{aid}:{seq}", "diff": {"files_changed": 1}}
    return "file.changed", {"path": f"src/{aid}.py", "seq": seq, "pad": "x" * (seq % 97)}


def run_child_and_kill(path: Path, acks_before_kill: int, delay: float) -> dict[str, int]:
    root = Path(__file__).resolve().parents[1]
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(path), *IDS],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    watchdog = threading.Timer(60, proc.kill)
    watchdog.start()
    acked: dict[str, int] = {}
    seen = 0
    try:
        for line in proc.stdout:
            if line.startswith("ACK "):
                acked = json.loads(line[4:])
                seen += 1
                if seen >= acks_before_kill:
                    # Mid-stream: by now it is appending more and its writer is committing
                    # groups (every 2,000 queued events) that nobody acknowledged yet.
                    threading.Event().wait(delay)
                    os.kill(proc.pid, signal.SIGKILL)
                    break
    finally:
        watchdog.cancel()
        proc.wait()
    assert seen >= acks_before_kill, f"child ended early: {proc.stderr.read()}"
    assert proc.returncode == -signal.SIGKILL
    # Its writer process sees the end of its input and exits (after the group in hand).
    deadline = time.monotonic() + 10
    while writer_processes(path) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert writer_processes(path) == [], "the killed store's writer process is still running"
    return acked


def writer_processes(path: Path) -> list[int]:
    found = []
    for p in Path("/proc").iterdir():
        try:
            cmd = (p / "cmdline").read_bytes() if p.name.isdigit() else b""
        except OSError:
            continue
        if b"writer_proc.py" in cmd and str(path).encode() in cmd:
            found.append(int(p.name))
    return found


async def check_store(path: Path, acked: dict[str, int]) -> dict[str, int]:
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    conn.close()
    store = await Store.open(path)
    assert store.migrated_from == SCHEMA_VERSION  # nothing re-applied
    try:
        assert sorted(a["id"] for a in await store.running_attempts()) == IDS
        committed = {}
        for aid in IDS:
            events = await store.events(aid)
            seqs = [e.seq for e in events]
            assert seqs == list(range(1, len(seqs) + 1)), f"{aid}: seq not contiguous"
            assert len(seqs) >= acked[aid], f"{aid}: acknowledged {acked[aid]}, found {len(seqs)}"
            for e in events:  # no torn or mixed-up rows
                assert (e.kind, e.data) == expected_data(aid, e.seq)
                assert e.t == e.seq / 10
            subs = await store.submissions(aid)
            assert [s["n"] for s in subs] == [e.data["submission"] for e in events if e.kind == "submission.received"]
            row = await store.get_attempt(aid)
            assert row["last_t"] == events[-1].t  # derived in the same transaction
            assert row["submissions_used"] == len(subs)
            committed[aid] = len(seqs)
        return committed
    finally:
        await store.close()


async def test_sigkill_mid_stream_loses_no_acknowledged_event(tmp_path):
    path = tmp_path / "crash.db"
    previous = {aid: 0 for aid in IDS}
    for acks, delay in ((3, 0.0), (5, 0.03), (2, 0.08)):
        acked = run_child_and_kill(path, acks, delay)
        assert all(acked[aid] > previous[aid] for aid in IDS)  # this round made progress
        committed = await check_store(path, acked)
        previous = committed
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    conn.close()
