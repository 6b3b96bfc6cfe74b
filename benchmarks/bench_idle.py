"""What a workspace of idle files costs the arena: a live attempt with 20,000 idle files
against the same attempt with none.

    python benchmarks/bench_idle.py [--runs 3] [--seconds 30] [--files 20000] [--dirs 20]

Each run is a fresh arena process (``Arena.open`` on the local backend, the workspace
watcher polling as in ``gauntlet run``, the event bus, the store, the attempt's clock,
watchdog and health check, the shared observer process) running ONE real attempt whose
command agent, in its bubblewrap sandbox, writes ``--files`` small text files in ``--dirs``
directories of its workspace (or none, for the baseline) and then sleeps. Once the watcher
has seen every file, scanned the workspace twice more finding nothing (its pace settled)
and ``--settle`` more seconds have passed, the arena's CPU time
(``getrusage`` of the arena process, plus the observer process's, from /proc) is measured
over ``--seconds`` of idling, with the number of scans of the workspace in that window and
their CPU time (the watcher's ``_diff``, timed in its thread). Runs alternate (empty, full) so load drifts hit both alike.
The workspace's quota is 20,000 inodes (``Limits.workspace_inodes``): the agent stops at
ENOSPC, so "20,000 files" is the full quota less the directories and the starter files.
Prints the medians, as a share of one core, and the difference (total, and the arena
process alone: the observer is woken by every fork/exec/exit on the host, so its share
follows other people's load, not the workspace).
Target (issue 26): under 5 % of a core with the full workspace.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

TARGET = 0.05
FILL = r"""
import errno, os, sys, time
n, dirs = int(sys.argv[1]), int(sys.argv[2])
made = 0
try:
    for d in range(dirs if n else 0):
        os.mkdir(f"idle{d:02d}")
    for i in range(n):
        with open(f"idle{i % dirs:02d}/f{i:05d}.txt", "w") as f:
            f.write(f"line {i}\n")
        made += 1
except OSError as exc:
    if exc.errno not in (errno.ENOSPC, errno.EDQUOT):
        raise
print(f"FILLED {made}", flush=True)
time.sleep(3600)
"""


def _ticks(pid: int) -> float:
    """CPU seconds (user + system) of one process, from /proc/PID/stat."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _observer_pids() -> list[int]:
    """The arena's own helper processes (the observer), not the sandbox's."""
    out = []
    for p in Path("/proc").iterdir():
        if not p.name.isdigit():
            continue
        try:
            stat = (p / "stat").read_text().rsplit(")", 1)[1].split()
            cmd = (p / "cmdline").read_bytes()
        except OSError:
            continue
        if int(stat[1]) == os.getpid() and b"observer_proc.py" in cmd:
            out.append(int(p.name))
    return out


def _self_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


async def child(files: int, dirs: int, seconds: float, settle: float) -> dict:
    import yaml  # noqa: PLC0415

    from arena import events as ev  # noqa: PLC0415
    from arena.attempt import Arena  # noqa: PLC0415
    from arena.challenge import load_challenge  # noqa: PLC0415
    from attempt_kit import make_package  # noqa: PLC0415

    tmp = Path(tempfile.mkdtemp(prefix="idle-bench-", dir="/tmp"))
    pkg = make_package(tmp / "pkg", fmt="sprint", hang_limit="10m")
    agent = tmp / "idle.yaml"
    cmd = ["python3", "-c", FILL, str(files), str(dirs)]
    agent.write_text(yaml.safe_dump({"name": "idle", "where": "sandbox", "command": cmd}))
    from arena.telemetry import watch  # noqa: PLC0415

    scans: list[tuple[Path, float, float, int]] = []  # (workspace, end, CPU s, changes) per scan
    real_diff = watch._diff

    def timed_diff(w: watch._Watch) -> list:  # the watcher's own scan, timed (its thread)
        t = time.thread_time()
        out = real_diff(w)
        scans.append((w.root, time.monotonic(), time.thread_time() - t, len(out)))
        return out

    watch._diff = timed_diff
    arena = await Arena.open(tmp / "g.db", sandbox="local", parallel=1)  # the watcher polls
    filled: list[int] = []
    changes = [0]
    done = asyncio.Event()
    try:
        a = arena.attempt(load_challenge(pkg), str(agent))

        def on_event(e) -> None:
            if e.attempt != a.id:
                return
            if e.kind == ev.FILE_CHANGED:
                changes[0] += 1
            elif e.kind == ev.AGENT_OUTPUT and str(e.data.get("text", "")).startswith("FILLED"):
                filled.append(int(e.data["text"].split()[1]))
                done.set()

        unsub = arena.bus.subscribe(on_event)
        task = asyncio.create_task(arena.run_one(a))
        await asyncio.wait_for(done.wait(), 600)
        t_end = time.monotonic() + 600
        watches = arena.shared.watcher._watches  # what the watcher has seen (a private peek)
        while time.monotonic() < t_end and not task.done():
            w = watches.get(a.id)
            if w is not None and len(w.seen) >= filled[0]:
                break
            await asyncio.sleep(0.25)  # the watcher has not seen every file yet
        seen_at = len(scans)  # from here: scans of the workspace once every file was seen

        def idle_scans() -> list[tuple[Path, float, float, int]]:
            return [x for x in scans[seen_at:] if x[0] == a.workspace and x[3] == 0]

        while len(idle_scans()) < 2 and time.monotonic() < t_end and not task.done():
            await asyncio.sleep(0.25)  # steady state: two idle scans (the pace has settled)
        await asyncio.sleep(settle)
        if task.done():
            raise SystemExit(f"the attempt ended early: {a.status} {a.reason}")
        obs = _observer_pids()
        first = len(scans)
        c0, o0, t0 = _self_cpu(), sum(map(_ticks, obs)), time.monotonic()
        await asyncio.sleep(seconds)
        c1, o1, t1 = _self_cpu(), sum(map(_ticks, obs)), time.monotonic()
        window = [x for x in scans[first:] if x[0] == a.workspace and x[1] <= t1]
        entries = sum(len(fs) + len(ds) for _, ds, fs in os.walk(a.workspace))
        a.finish("finished", "benchmark over")
        await asyncio.wait_for(task, 120)
        unsub()
    finally:
        await arena.close()
        shutil.rmtree(tmp, ignore_errors=True)
    wall = t1 - t0
    return {
        "files": filled[0],
        "entries": entries,
        "changes": changes[0],
        "observers": len(obs),
        "arena": (c1 - c0) / wall,
        "observer": (o1 - o0) / wall,
        "scans": len(window),
        "scan_ms": statistics.median(x[2] for x in window) * 1e3 if window else float("nan"),
    }


def run_child(files: int, a: argparse.Namespace) -> dict:
    argv = [
        sys.executable,
        __file__,
        "--child",
        str(files),
        "--dirs",
        str(a.dirs),
        "--seconds",
        str(a.seconds),
        "--settle",
        str(a.settle),
    ]
    r = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT)
    if r.returncode != 0:
        raise SystemExit(f"run failed ({r.returncode}): {r.stderr[-2000:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def main(a: argparse.Namespace) -> int:
    if os.geteuid() != 0:
        print("note: not root, so the workspace has no inode quota and nothing is observed")
    load0 = os.getloadavg()[0]
    res: dict[int, list[dict]] = {0: [], a.files: []}
    for k in range(a.runs):
        for n in (0, a.files) if k % 2 == 0 else (a.files, 0):
            r = run_child(n, a)
            res[n].append(r)
            print(
                f"run {k + 1} {'full ' if n else 'empty'}: {r['files']:6d} files "
                f"({r['entries']} entries), arena {r['arena']:6.2%}, observer {r['observer']:6.2%}; "
                f"{r['scans']} scans of {r['scan_ms']:.2f} ms CPU (median)",
                flush=True,
            )

    def med(n: int, key: str) -> float:
        return statistics.median(r[key] for r in res[n])

    full = [r["arena"] + r["observer"] for r in res[a.files]]
    empty = [r["arena"] + r["observer"] for r in res[0]]
    f, e = statistics.median(full), statistics.median(empty)
    print(
        f"{a.runs} runs each, {a.seconds:.0f} s idle measured per run; load average "
        f"{load0:.1f} -> {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
    )
    print(f"{'workspace':22} {'arena':>8} {'observer':>9} {'total':>8}   share of one core (median)")
    for n, label in ((0, "empty"), (a.files, f"{int(med(a.files, 'files'))} idle files")):
        tot = statistics.median(r["arena"] + r["observer"] for r in res[n])
        print(f"{label:22} {med(n, 'arena'):8.2%} {med(n, 'observer'):9.2%} {tot:8.2%}")
    met = f < TARGET
    print(
        f"difference {f - e:+.2%} of a core (ratio {f / e if e else float('inf'):.2f}; the arena process "
        f"alone {med(a.files, 'arena') - med(0, 'arena'):+.2%}: the observer's share follows the host's "
        f"process churn, not the workspace); full workspace {f:.2%} < {TARGET:.0%}: {'met' if met else 'MISSED'}"
    )
    return 0 if met else 1


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--settle", type=float, default=2.0)
    ap.add_argument("--files", type=int, default=20_000)
    ap.add_argument("--dirs", type=int, default=20)
    ap.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child is not None:
        print(json.dumps(asyncio.run(child(args.child, args.dirs, args.seconds, args.settle))))
        sys.exit(0)
    sys.exit(main(args))
