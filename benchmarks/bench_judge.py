"""Judge overhead on the same tests: the bare command vs a full judge run per backend.

    python benchmarks/bench_judge.py [--runs 7] [--no-docker]

Same tests every time: the calc fixture challenge (tests/fixtures/calc) with its reference
solution. The bare baseline runs /usr/bin/python3 -m pytest (the interpreter the local
sandbox uses) on the host, on a copy of the submission and the judge-side tests, in this
same process run, with plugin autoload off as in the judge (the judge also measures
coverage, the bare run does not). A judge run includes everything the judge does for one submission:
tamper scan, lint, expected ids, laying out the run directory, creating the sandbox,
the test run, reading the report and progress log, closing the sandbox and cleanup.
Prints median / min / max and each overhead over the bare median.
"""
from __future__ import annotations

import argparse
import asyncio
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


def bare_once(tmp: Path) -> float:
    ws = tmp / f"bare-{time.monotonic_ns()}"
    shutil.copytree(FIXTURE / "solution", ws)
    shutil.copytree(FIXTURE / "tests", ws / "judge_tests")
    t0 = time.perf_counter()
    subprocess.run(["/usr/bin/python3", "-m", "pytest", "-q", "-p", "no:cacheprovider",
                    f"--junitxml={ws}/report.xml", "judge_tests/static", "judge_tests/hidden",
                    "judge_tests/adversarial"], cwd=ws, capture_output=True, check=True,
                   env={"PATH": "/usr/bin:/bin", "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"})
    return time.perf_counter() - t0


async def judge_once(judge: Judge, ch, snap) -> float:
    t0 = time.perf_counter()
    r = await judge.run(ch, snap, submission=1, phases=[1])
    dt = time.perf_counter() - t0
    if r.infra_error or not all(t.outcome == "passed" for t in r.tests):
        raise SystemExit(f"judge run did not go green: {r.infra_error or r.tests}")
    return dt


def fmt(name: str, xs: list[float], base: float | None) -> str:
    med = statistics.median(xs)
    line = f"{name:<14} median {med * 1000:8.1f} ms   min {min(xs) * 1000:8.1f}   max {max(xs) * 1000:8.1f}"
    if base:
        line += f"   overhead {1000 * (med - base):+8.1f} ms   ratio {med / base:5.2f}x"
    return line


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--no-docker", action="store_true")
    args = ap.parse_args()
    ch = load_challenge(FIXTURE)
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        snap = take_snapshot(FIXTURE / "solution", tmp / "snaps")
        bare_once(tmp)  # warm the page cache
        bare = [bare_once(tmp) for _ in range(args.runs)]
        base = statistics.median(bare)
        print(fmt("bare pytest", bare, None))
        for name in ("local",) + (() if args.no_docker else ("docker",)):
            judge = Judge(get_backend(name), pool_size=1)
            await judge_once(judge, ch, snap)  # warm-up
            xs = [await judge_once(judge, ch, snap) for _ in range(args.runs)]
            print(fmt(f"judge {name}", xs, base))


if __name__ == "__main__":
    asyncio.run(main())
