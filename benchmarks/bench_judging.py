"""Judging cost against reading cost: 1,000 stored attempts.

    python benchmarks/bench_judging.py [--attempts 1000] [--store PATH] [--repeat 3]

Generates realistic event logs (the kinds and data keys the attempt runner stores: file
reads and edits, command runs with test counts, agent output, submissions with diffs, full
judge results of 26 tests each with failure messages, CONTRACT §4 feedback documents) into
a real store — sized like the bundled challenges' real stored attempts (measured: a judged
event 7-11 KB, a feedback document 1.3-4.4 KB) — then times, in the
same run: (a) reading every attempt's events from the store, (b) reading them and judging
each attempt (``judge_attempt``). Prints both and the ratio (b)/(a); target ≤ 2.0 (judging
adds at most as much again as reading). Times are this process's CPU time (the machine is
shared), best of ``--repeat`` interleaved runs for each; the median of the per-repeat
ratios (each judged run over the read run just before it) is printed too.
``--profile N`` then judges the first N stored attempts under cProfile and prints the top
entries by own time (after the timed runs, so it does not disturb them).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import pstats
import statistics
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.results import JudgeResult  # noqa: E402
from arena.scoring import judge_attempt, submission_score  # noqa: E402
from arena.events import Event  # noqa: E402
from store import Store  # noqa: E402

# CPU time of this process (all its threads, aiosqlite's included): the machine is shared,
# and other processes' load would otherwise land in whichever phase it happened to hit.
CLOCK = time.process_time
FORMATS = [("sprint", 900, 2), ("standard", 1800, 4), ("marathon", 5400, 6)]
AGENTS = ["scripted:reference", "scripted:elite", "scripted:standard", "scripted:naive"]
FILES = ["src/limiter.py", "src/window.py", "src/clock.py", "tests/test_limiter.py", "NOTES.md"]


WORDS = [
    "basic",
    "window",
    "global",
    "limit",
    "slides",
    "resets",
    "remaining",
    "user",
    "burst",
    "clock",
    "expiry",
    "counts",
    "rejects",
    "empty",
    "concurrent",
]
MESSAGE = (
    "AssertionError: assert 5 == 0\n +  where 5 = <bound method RateLimiter.remaining of "
    "<ratelimiter.RateLimiter object at 0x7fb939281cd0>>('c')\n +    where <bound method "
    "RateLimiter.remaining of <ratelimiter.RateLimiter object at 0x7fb939281cd0>> = ..."
)


def _names(rng: random.Random, count: int) -> list[str]:
    return [f"test_{'_'.join(rng.sample(WORDS, 4))}_{i}" for i in range(count)]


def _result(n: int, rng: random.Random, skill: float, it: int, names: dict) -> dict:
    tests = []
    p = min(0.98, skill + 0.08 * it)
    for suite, count in (("static", 14), ("hidden", 7), ("adversarial", 5)):
        for name in names[suite][:count]:
            ok = rng.random() < p
            tests.append(
                {
                    "id": f"{suite}/test_limiter_{suite}.py::{name}",
                    "name": name,
                    "suite": suite,
                    "phase": 1,
                    "outcome": "passed" if ok else "failed",
                    "message": "" if ok else MESSAGE,
                    "category": rng.choice(["correctness", "window", "api", "edge_case"]),
                }
            )
    return JudgeResult(
        submission=n,
        snapshot_hash=f"{rng.getrandbits(256):064x}",
        tests=tests,
        duration_s=1.2,
        lint={"errors": 0, "warnings": 1, "issues": ["ratelimiter.py:7: unused import 'Dict'"]},
        coverage={"line_percent": 88.8, "branch_percent": 100.0, "uncovered_files": ["clock.py"]},
        deliverables={"NOTES.md": 1.0 if rng.random() < skill else 0.0},
    ).model_dump()


def _feedback(n: int, res: dict, diff: dict) -> dict:
    static = [t for t in res["tests"] if t["suite"] == "static"]
    hidden = [t for t in res["tests"] if t["suite"] == "hidden"]
    failures = [
        {"name": t["name"], "message": t["message"], "category": t["category"]}
        for t in static
        if t["outcome"] != "passed"
    ]
    return {
        "submission": n,
        "iteration": n - 1,
        "at": "2026-11-29T13:56:11Z",
        "elapsed_s": 150.0,
        "build": res["build"],
        "tests": {
            "total": len(static),
            "passed": len(static) - len(failures),
            "failed": len(failures),
            "skipped": 0,
            "failures": failures,
            "results": [{"name": t["name"], "outcome": t["outcome"]} for t in static],
        },
        "hidden": {"total": len(hidden), "passed": sum(t["outcome"] == "passed" for t in hidden)},
        "lint": res["lint"],
        "coverage": res["coverage"],
        "diff": {k: diff[k] for k in ("files_changed", "lines_added", "lines_removed")},
    }


def attempt_events(aid: str, rng: random.Random) -> list[Event]:
    fmt, limit, budget = rng.choice(FORMATS)
    agent = rng.choice(AGENTS)
    skill = {"scripted:reference": 0.9, "scripted:elite": 0.8, "scripted:standard": 0.6, "scripted:naive": 0.35}[agent]
    deliverables = [
        {"name": "fix", "kind": "tests", "weight": 0.8},
        {"name": "NOTES.md", "kind": "file", "weight": 0.2},
    ]
    out: list[Event] = []
    t = 0.0
    names = {s: _names(rng, 14) for s in ("static", "hidden", "adversarial")}

    def emit(kind: str, **data) -> None:
        out.append(Event(attempt=aid, t=round(t, 3), kind=kind, data=data, seq=len(out) + 1))

    emit(
        "attempt.started",
        challenge=f"ch-{rng.randrange(20)}",
        title="Rate Limiter",
        agent=agent,
        format=fmt,
        weight_class=rng.choice(["lightweight", "middleweight", "contender"]),
        time_limit_s=limit,
        budget=budget,
        grace_s=30,
        time_scale=60,
        sandbox="local",
        phases=[],
        deliverables=deliverables,
        category="adversarial-implementation",
    )
    emit("agent.started", pid=1000 + rng.randrange(1000))
    subs = rng.randint(1, budget)
    for n in range(1, subs + 1):
        if n > 1:
            t += 5
            emit("feedback.read", submission=n - 1)
        for _ in range(rng.randint(2, 5)):
            t += rng.uniform(5, 40)
            emit("file.read", path=rng.choice(FILES))
        for _ in range(rng.randint(1, 4)):
            t += rng.uniform(10, 60)
            emit(
                "file.changed",
                path=rng.choice(FILES),
                change="modified",
                lines_added=rng.randint(1, 30),
                lines_removed=rng.randint(0, 10),
            )
        for _ in range(rng.randint(0, 3)):
            t += rng.uniform(5, 20)
            emit(
                "command.run",
                command="python -m pytest -q",
                exit_code=1,
                ran_tests=True,
                passed=rng.randint(5, 18),
                failed=rng.randint(0, 5),
                duration_s=1.1,
            )
            for _ in range(4):
                emit("agent.output", stream="stdout", text="." * rng.randint(10, 60))
        t += rng.uniform(5, 30)
        emit("protocol.call", op="submit")
        changed = rng.sample(FILES, rng.randint(1, 3))
        diff = {
            "files_changed": len(changed),
            "lines_added": rng.randint(1, 40),
            "lines_removed": rng.randint(0, 20),
            "similarity": round(rng.uniform(0.3, 0.97), 3),
            "changed_files": changed,
        }
        emit(
            "submission.received",
            submission=n,
            iteration=n - 1,
            hash=f"{rng.getrandbits(256):064x}",
            files=7,
            bytes=9000,
            identical_to=None,
            replaces=None,
            diff=diff,
        )
        res = _result(n, rng, skill, n - 1, names)
        t += 2
        emit("submission.judged", submission=n, result=res, score=submission_score(res, deliverables, 1), phase=1)
        emit("feedback.delivered", submission=n, feedback=_feedback(n, res, diff))
    t += 3
    emit("agent.exited", exit_code=0)
    emit("attempt.finished", status="finished", reason="agent exited", scored_submission=subs)
    return out


async def populate(path: Path, count: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    st = await Store.open(path, synchronous="NORMAL")
    ids = []
    try:
        for i in range(count):
            aid = f"a-{i:08x}"
            ids.append(aid)
            for e in attempt_events(aid, rng):
                st.append(e)
            if i % 50 == 49:
                await st.flush()
        await st.flush()
    finally:
        await st.close()
    return ids


async def profile_judging(path: Path, ids: list[str], top: int = 15) -> None:
    st = await Store.open(path)
    try:
        stored = [await st.events(aid) for aid in ids]
    finally:
        await st.close()
    prof = cProfile.Profile()
    prof.enable()
    for events in stored:
        judge_attempt(events)
    prof.disable()
    print(f"\nprofile: judging {len(ids)} stored attempts, top {top} by own time")
    pstats.Stats(prof, stream=sys.stdout).sort_stats("tottime").print_stats(top)


async def read_all(path: Path, ids: list[str], judge: bool) -> tuple[float, int]:
    st = await Store.open(path)
    try:
        start = CLOCK()
        n = 0
        for aid in ids:
            events = await st.events(aid)
            n += len(events)
            if judge:
                judge_attempt(events)
        return CLOCK() - start, n
    finally:
        await st.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--attempts", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--store", type=Path, default=None, help="store file to create (default: a temp dir)")
    ap.add_argument(
        "--profile",
        type=int,
        default=0,
        metavar="N",
        help="after timing, judge the first N attempts under cProfile and print the top entries",
    )
    args = ap.parse_args(argv)
    if args.attempts < 1 or args.repeat < 1 or args.profile < 0:
        ap.error("--attempts and --repeat must be at least 1, --profile at least 0")
    tmp = tempfile.TemporaryDirectory() if args.store is None else None
    path = args.store or Path(tmp.name) / "bench.db"
    t0 = time.perf_counter()
    ids = asyncio.run(populate(path, args.attempts))
    print(f"stored {len(ids)} attempts in {time.perf_counter() - t0:.1f}s ({path})")
    reads, judged = [], []
    for _ in range(args.repeat):  # interleaved so both see the same machine load
        reads.append(asyncio.run(read_all(path, ids, judge=False)))
        judged.append(asyncio.run(read_all(path, ids, judge=True)))
    (r, events), (j, _) = min(reads), min(judged)
    ratio = j / r
    print(f"events: {events} ({events / len(ids):.0f} per attempt)")
    print(f"read events only : {r:8.3f}s CPU  ({1000 * r / len(ids):.2f} ms/attempt)")
    print(f"read + judge     : {j:8.3f}s CPU  ({1000 * j / len(ids):.2f} ms/attempt)")
    print(f"ratio            : {ratio:8.2f}  (target <= 2.00: {'met' if ratio <= 2.0 else 'NOT met'})")
    per_repeat = [jj / rr for (rr, _), (jj, _) in zip(reads, judged)]
    print(
        f"ratio per repeat : {', '.join(f'{x:.2f}' for x in per_repeat)}  (median {statistics.median(per_repeat):.2f})"
    )
    if args.profile:
        asyncio.run(profile_judging(path, ids[: args.profile]))
    if tmp is not None:
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
