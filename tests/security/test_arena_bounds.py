"""One attempt reaching an arena bound never changes another attempt's outcome (issue 11
item 4). The hostile code runs only inside the sandbox under test, with its limits:

- 24,000 held connections to the agent socket (24 processes x 1,000) while an honest
  attempt runs beside it: the neighbour scores as usual with no loop stall over 1 s, the
  arena's open descriptors stay far below the flood, the flooder gets one
  ``bound.reached {bound: connections}``;
- 40,000 ``message`` requests: at most the bound is stored, one event per bound;
- 100,000 idle files in a workspace: the shared watcher costs a small share of a core.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # attempt_kit

from arena.agents.bounds import BoundLimits  # noqa: E402
from arena.challenge import load_challenge  # noqa: E402
from arena.clock import ManualTime  # noqa: E402
from arena import events as ev  # noqa: E402
from arena.telemetry.watch import MAX_FILES, WorkspaceWatcher  # noqa: E402
from attempt_kit import drive, make_package, of, open_arena, stored  # noqa: E402

BACKENDS = ["local", pytest.param("docker", marks=pytest.mark.docker)]

TICK = 0.02
FLOOD = r"""
import os, socket, sys, time
PROCS, PER, HOLD = 24, 1000, 6.0
kids = []
for _ in range(PROCS):
    pid = os.fork()
    if pid == 0:
        held, ok = [], 0
        for _ in range(PER):
            s = socket.socket(socket.AF_UNIX)
            try:  # blocking: waits for room in the listen backlog
                s.connect("/gauntlet/agent.sock")
                ok += 1
                held.append(s)
            except OSError:
                s.close()
        with open(f"/tmp/held-{os.getpid()}", "w") as f:
            f.write(str(ok))
        time.sleep(HOLD)
        os._exit(0)
    kids.append(pid)
for pid in kids:
    os.waitpid(pid, 0)
total = sum(int(open(f"/tmp/held-{p}").read()) for p in kids)
open("/workspace/flood.out", "w").write(str(total))
"""
MESSAGES = r"""
import socket
s = socket.socket(socket.AF_UNIX)
s.connect("/gauntlet/agent.sock")
f = s.makefile("rwb")
codes = {}
for i in range(40000):
    f.write(b'{"op":"message","text":"%s"}\n' % (b"m%d " % i * 8))
    if i % 100 == 99:
        f.flush()
        for _ in range(100):
            line = f.readline()
            code = b"ok" if b'"ok":true' in line else line.split(b'"code":"')[1].split(b'"')[0]
            codes[code] = codes.get(code, 0) + 1
open("/workspace/codes.out", "w").write(repr(sorted(codes.items())))
"""


async def _watch_loop(stop: asyncio.Event, fds: list[int]) -> float:
    """Worst event-loop lag seen (real clock), sampling the arena's open descriptors."""
    worst = 0.0
    while not stop.is_set():
        t0 = time.monotonic()
        await asyncio.sleep(TICK)
        worst = max(worst, time.monotonic() - t0 - TICK)
        fds.append(len(os.listdir("/proc/self/fd")))
    return worst


def _package(tmp_path: Path, name: str, script: str) -> Path:
    pkg = make_package(
        tmp_path / "pkg",
        fmt="sprint",
        agents={
            "hostile": [{"overlay": "agents/hostile"}, {"run": "python3 /workspace/hostile.py"}],
            "honest": [{"overlay": "agents/half"}, "submit", {"overlay": "agents/fixed"}, "submit"],
        },
    )
    (pkg / "agents" / "hostile").mkdir()
    (pkg / "agents" / "hostile" / "hostile.py").write_text(script)
    return pkg


@pytest.mark.parametrize("sandbox", BACKENDS)
async def test_connection_flood_never_reaches_the_neighbour(tmp_path, sandbox):
    ch = load_challenge(_package(tmp_path, "flood", FLOOD))
    clock = ManualTime()
    arena = await open_arena(tmp_path, clock, sandbox=sandbox)
    stop, fds = asyncio.Event(), []
    ticker = asyncio.create_task(_watch_loop(stop, fds))
    try:
        flood, honest = arena.attempt(ch, "scripted:hostile"), arena.attempt(ch, "scripted:honest")
        statuses = await asyncio.wait_for(drive(arena, [flood, honest], clock, step=5.0), 300)
        stop.set()
        lag = await ticker
        flood_events, honest_events = await stored(arena, flood.id), await stored(arena, honest.id)
        held = (arena.shared.workspaces / flood.id / "flood.out").read_text()
    finally:
        stop.set()
        await arena.close()
    assert statuses == ["finished", "finished"]
    assert int(held) >= 20_000, f"the flood held only {held} connections"  # it really ran
    assert max(fds) < 2_000, f"the arena held {max(fds)} descriptors"
    assert lag < 1.0, f"event loop stalled {lag:.2f} s"
    fb = [e.data["feedback"]["tests"] for e in of(honest_events, ev.FEEDBACK_DELIVERED)]
    assert [f["failed"] for f in fb] == [fb[0]["failed"], 0] and fb[0]["failed"] > 0
    assert honest_events[-1].data["scored_submission"] == 2
    assert not of(honest_events, ev.BOUND_REACHED)
    hits = of(flood_events, ev.BOUND_REACHED)
    assert [h.data["bound"] for h in hits] == ["connections"]
    assert hits[0].data["allowed"] == BoundLimits().connections


@pytest.mark.parametrize("sandbox", BACKENDS)
async def test_message_flood_is_bounded_with_one_event(tmp_path, sandbox):
    ch = load_challenge(_package(tmp_path, "messages", MESSAGES))
    clock = ManualTime()
    arena = await open_arena(tmp_path, clock, sandbox=sandbox)
    try:
        a = arena.attempt(ch, "scripted:hostile")
        assert await asyncio.wait_for(drive(arena, [a], clock, step=5.0), 300) == ["finished"]
        events = await stored(arena, a.id)
        codes = dict(eval((arena.shared.workspaces / a.id / "codes.out").read_text()))  # noqa: S307
    finally:
        await arena.close()
    lim = BoundLimits()
    assert sum(codes.values()) == 40_000 and codes[b"ok"] <= lim.messages
    assert codes[b"rate_limited"] >= 40_000 - lim.requests_burst - lim.messages
    assert len(of(events, ev.AGENT_MESSAGE)) == codes[b"ok"]
    assert len(of(events, ev.PROTOCOL_CALL)) <= lim.events_burst
    bounds = sorted(h.data["bound"] for h in of(events, ev.BOUND_REACHED))
    assert len(bounds) == len(set(bounds)) and "requests" in bounds  # one event per bound
    assert len(events) < lim.events_burst + 100


IDLE_PROBE = r"""
import asyncio, json, sys, time
from pathlib import Path
from arena.telemetry.watch import MAX_BACKOFF, WorkspaceWatcher

async def main(root, ws):
    hits = []
    w = WorkspaceWatcher(Path(root), interval=0.05)
    await w.register("a-1", Path(ws), lambda change: None,
                     on_bound=lambda n, allowed, d: hits.append((n, allowed)))
    task = asyncio.create_task(w.run())
    # real time: what the idle watcher costs is the measurement. First the back-off's
    # ramp (2, 4, ... 64 intervals), then two full back-off periods of steady idling.
    await asyncio.sleep(2 * MAX_BACKOFF * w.interval)
    cpu0, t0 = time.process_time(), time.monotonic()
    await asyncio.sleep(2 * MAX_BACKOFF * w.interval)
    cpu, wall = time.process_time() - cpu0, time.monotonic() - t0
    task.cancel()
    print(json.dumps({"share": cpu / wall, "hits": hits}))

asyncio.run(main(sys.argv[1], sys.argv[2]))
"""


async def test_watcher_idle_cost_with_100k_files(tmp_path):
    ws = tmp_path / "ws"
    for d in range(100):
        sub = ws / f"d{d:03d}"
        sub.mkdir(parents=True)
        for i in range(1000):
            (sub / f"f{i}").write_bytes(b"")
    # The cost is measured in a fresh process: this one's CPU time also counts whatever
    # threads earlier tests left behind, which is not the watcher's.
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        IDLE_PROBE,
        str(tmp_path),
        str(ws),
        cwd=str(Path(__file__).resolve().parents[2]),
        stdout=asyncio.subprocess.PIPE,
    )
    out, _ = await proc.communicate()
    assert proc.returncode == 0
    probe = json.loads(out)
    assert probe["share"] < 0.15, f"watcher used {probe['share']:.0%} of a core while idle"
    hits = [tuple(h) for h in probe["hits"]]
    assert hits and all(h == ("watch_files", MAX_FILES) for h in hits)
    w = WorkspaceWatcher(tmp_path, interval=0.05)
    await w.register("a-1", ws, lambda change: None)
    assert w._watches["a-1"].skip > 0  # the baseline passed the bound: periodic scans back off
    # an explicit scan (before a submission) is never skipped by the back-off and still
    # reports a change among the entries it reaches (the root's come first)
    (ws / "top.txt").write_text("x\n")
    changes: list[dict] = []
    w._watches["a-1"].emit = changes.append
    await w.scan("a-1")
    assert [(c["path"], c["change"], c["lines_added"]) for c in changes] == [("top.txt", "created", 1)]
    w.unregister("a-1")
