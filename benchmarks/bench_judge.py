"""Judge overhead on the same tests: the bare command vs a full judge run per backend.

    python benchmarks/bench_judge.py [--runs 7] [--no-docker]

Series (interleaved, rotating order, so machine load hits all alike): bare pytest,
judge on the local backend from a prepared sandbox (its launcher waiting before the
submission; prepared again, unmeasured, between runs, as between submissions), the
local judge cold (``prestart=0``: sandbox and test process started per run), judge on
Docker cold (``prestart=0``: a container created per run) and judge on Docker from the
pool (a pre-started container whose launcher waits; refilled, unmeasured, between runs). A judge run is timed to its
verdict; removing the used container happens after the verdict (``Judge.drain()``,
timed apart as "close"). "start" = getting a sandbox (create or acquire) from the
judge's own phase timer. Targets (issue 3): local < 50 ms, Docker cold < 500 ms,
Docker pool < 120 ms median overhead over bare. A second baseline, "bare +cov", runs
the same command under coverage with branches (what the judge's command also does).

Same tests every time: the calc fixture challenge (tests/fixtures/calc) with its reference
solution. The bare baseline runs /usr/bin/python3 -m pytest (the interpreter the local
sandbox uses) on the host, on a copy of the submission and the judge-side tests, in this
same process run, with plugin autoload off as in the judge (the judge also measures
coverage, the bare run does not). A judge run includes everything the judge does for one submission:
tamper scan, lint, expected ids, laying out the run directory, creating the sandbox,
the test run, reading the report and progress log, closing the sandbox and cleanup.
Prints median / min / max and each overhead over the bare median.

Process isolation (issue 11): every judge series runs the default mode (the submission in
its own process behind the data-only pipe); ``local inproc`` and ``pool inproc`` are the
same prepared/pooled runs with ``judge.isolation: in_process`` (a copy of the fixture),
and the last lines print the isolation overhead per submission (target: <= 30 ms at the
median): the difference of the two medians, and the median of the paired differences
(round k against round k, which the target is checked on: the machine's slow spells
weigh on both sides of a pair).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.challenge import load_challenge  # noqa: E402
from arena.judge import Judge, take_snapshot  # noqa: E402
from arena.sandbox import get_backend  # noqa: E402

FIXTURE = ROOT / "tests" / "fixtures" / "calc"


def bare_once(tmp: Path, cov: bool = False) -> float:
    """The bare command; ``cov``: under coverage with branches, as the judge measures it
    (the same work as the judge's command, without sandbox or judge)."""
    ws = tmp / f"bare-{time.monotonic_ns()}"
    shutil.copytree(FIXTURE / "solution", ws)
    shutil.copytree(FIXTURE / "tests", ws / "judge_tests")
    pre = (
        ["-m", "coverage", "run", "--branch", "--source=.", "--omit=judge_tests/*", f"--data-file={ws}/.coverage"]
        if cov
        else []
    )
    t0 = time.perf_counter()
    subprocess.run(
        [
            "/usr/bin/python3",
            *pre,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            f"--junitxml={ws}/report.xml",
            "judge_tests/static",
            "judge_tests/hidden",
            "judge_tests/adversarial",
        ],
        cwd=ws,
        capture_output=True,
        check=True,
        env={"PATH": "/usr/bin:/bin", "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
    )
    return time.perf_counter() - t0


ISOLATION_TARGET = 0.030
ISOLATION_PAIRS = [("judge local", "local inproc"), ("docker pool", "pool inproc")]


def in_process_copy(tmp: Path):
    root = tmp / "calc-in-process"
    shutil.copytree(FIXTURE, root)
    y = root / "challenge.yaml"
    y.write_text(y.read_text().replace("  timeout: 6s\n", "  timeout: 6s\n  isolation: in_process\n"))
    ch = load_challenge(root)
    assert ch.manifest.judge.isolation == "in_process"
    return ch


TARGETS = {"judge local": 0.050, "docker cold": 0.500, "docker pool": 0.120}
POOLED = (
    "judge local",
    "docker pool",
    "local inproc",
    "pool inproc",
)  # refilled, unmeasured, before every measured run


async def judge_once(judge: Judge, ch, snap) -> tuple[float, float, float]:
    """(time to the verdict, sandbox start, close after the verdict)."""
    t0 = time.perf_counter()
    r = await judge.run(ch, snap, submission=1, phases=[1])
    dt = time.perf_counter() - t0
    if r.infra_error or not all(t.outcome == "passed" for t in r.tests):
        raise SystemExit(f"judge run did not go green: {r.infra_error or r.tests}")
    start = judge.last_phases.get("sandbox", float("nan"))
    t1 = time.perf_counter()
    await judge.drain()
    return dt, start, time.perf_counter() - t1


def fmt(name: str, xs: list[float], base: float | None, starts=None, closes=None) -> str:
    med = statistics.median(xs)
    line = f"{name:<13} median {med * 1000:7.1f} ms  min {min(xs) * 1000:7.1f}  max {max(xs) * 1000:7.1f}"
    if base:
        over = med - base
        line += f"  overhead {1000 * over:+7.1f} ms  ratio {med / base:4.2f}x"
        line += f"  start {statistics.median(starts) * 1000:6.1f} ms  close {statistics.median(closes) * 1000:6.1f} ms"
        if name in TARGETS:
            line += f"  target < {TARGETS[name] * 1000:.0f} ms: {'met' if over < TARGETS[name] else 'MISSED'}"
    return line


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--no-docker", action="store_true")
    args = ap.parse_args()
    ch = load_challenge(FIXTURE)
    load0 = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        snap = take_snapshot(FIXTURE / "solution", tmp / "snaps")
        local = get_backend("local")
        ch_in = in_process_copy(tmp)
        chs = {"local inproc": ch_in, "pool inproc": ch_in}
        judges = {
            "judge local": Judge(local, pool_size=1),
            "local inproc": Judge(local, pool_size=1),
            "local cold": Judge(local, pool_size=1, prestart=0),
        }
        if not args.no_docker:
            dk = get_backend("docker")
            judges["docker cold"] = Judge(dk, pool_size=1, prestart=0)
            judges["docker pool"] = Judge(dk, pool_size=1, prestart=1)
            judges["pool inproc"] = Judge(dk, pool_size=1, prestart=1)
        series = {
            "bare pytest": lambda: asyncio.to_thread(lambda: (bare_once(tmp), 0.0, 0.0)),
            "bare +cov": lambda: asyncio.to_thread(lambda: (bare_once(tmp, True), 0.0, 0.0)),
        }
        for name, j in judges.items():
            series[name] = lambda j=j, c=chs.get(name, ch): judge_once(j, c, snap)  # noqa: B008 - bound per name
        acc = {name: ([], [], []) for name in series}
        try:
            for fn in series.values():
                await fn()  # warm-up (page cache, image), not counted
            names = list(series)
            for k in range(args.runs):
                for name in names[k % len(names) :] + names[: k % len(names)]:
                    for pooled in POOLED:
                        if pooled in judges:
                            await judges[pooled].drain()
                            await judges[pooled].warm(chs.get(pooled, ch), [1])  # refill, unmeasured
                    for a, v in zip(acc[name], await series[name]()):
                        a.append(v)
        finally:
            for j in judges.values():
                await j.aclose()
    print(
        f"runs per series: {args.runs} (interleaved); tests: the calc fixture, 8 tests; "
        f"load average {load0:.1f} -> {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
    )
    base = statistics.median(acc["bare pytest"][0])
    cov = statistics.median(acc["bare +cov"][0])
    for name, (xs, starts, closes) in acc.items():
        print(fmt(name, xs, None if name.startswith("bare") else base, starts, closes))
    print("overhead over 'bare +cov' (the same work minus sandbox and judge: the judge also measures branch coverage):")
    for name, (xs, _, _) in acc.items():
        if not name.startswith("bare"):
            m = statistics.median(xs)
            print(f"  {name:<13} {1000 * (m - cov):+7.1f} ms  ratio {m / cov:4.2f}x")
    print_isolation(acc)


def print_isolation(acc: dict) -> None:
    """Two estimates of the per-submission overhead: the difference of the two series'
    medians, and the median of the paired differences (round k of the isolated series
    against round k of the in-process one: run minutes apart at most, so a slow spell of
    the machine weighs on both sides of a pair), with its quartiles."""
    print("process isolation overhead (isolated - in_process, same run):")
    for iso, inproc in ISOLATION_PAIRS:
        if iso in acc and inproc in acc:
            d = statistics.median(acc[iso][0]) - statistics.median(acc[inproc][0])
            pairs = [a - b for a, b in zip(acc[iso][0], acc[inproc][0])]
            pd = statistics.median(pairs)
            q = statistics.quantiles(pairs, n=4) if len(pairs) > 1 else [pd, pd, pd]
            print(
                f"  {iso:<13} difference of medians {1000 * d:+7.1f} ms; median of paired differences "
                f"{1000 * pd:+7.1f} ms (quartiles {1000 * q[0]:+.1f} / {1000 * q[2]:+.1f})  "
                f"target <= {ISOLATION_TARGET * 1000:.0f} ms: {'met' if pd <= ISOLATION_TARGET else 'MISSED'}"
            )


if __name__ == "__main__":
    asyncio.run(main())
