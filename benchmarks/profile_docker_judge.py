"""Where a Docker judge run's time goes, phase by phase (measured, not guessed).

    python benchmarks/profile_docker_judge.py [--runs 7]

Each round times, in rotating order so machine load hits all alike:
  - sdk: the raw docker SDK steps for one hardened container — create, start,
    exec ``true``, exec of the judge's pytest command, remove — on the calc fixture;
  - judge-cold: a full ``Judge.run`` with the pool off (``prestart=0``), split by the
    judge's own phase timer (``Judge.last_phases``);
  - judge-pool: a full ``Judge.run`` taking a pre-started container whose launcher
    waits for the request (the pool refills, unmeasured, between rounds), split the
    same way; judge-pool-exec: the same with ``launcher=False`` (an idle container, a
    warm-up exec, then the run as a ``docker exec``: the path before the launcher).
Prints the median of every phase in milliseconds.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.challenge import load_challenge  # noqa: E402
from arena.judge import Judge, take_snapshot  # noqa: E402
from arena.judge.run import command as cmd  # noqa: E402
from arena.judge.run.runner import JudgeSpec  # noqa: E402
from arena.judge.verdict.snapshot import materialize  # noqa: E402
from arena.sandbox.image import SANDBOX_UID  # noqa: E402
from arena.judge.run.tests_cache import judge_dir  # noqa: E402
from arena.sandbox import get_backend  # noqa: E402
from arena.sandbox.base import Mount  # noqa: E402

FIXTURE = ROOT / "tests" / "fixtures" / "calc"


def sdk_round(be, spec, jdir: Path, snap_dir: Path, tmp: Path) -> dict[str, float]:
    out = tmp / f"out-{time.monotonic_ns()}"
    out.mkdir()
    out.chmod(0o777)
    mounts = [Mount(jdir, cmd.JUDGE_ROOT), Mount(out, cmd.OUT_DIR, readonly=False)]
    tests = [f"{cmd.TESTS_ROOT}/1/{s}" for s in ("static", "hidden", "adversarial")]
    argv, _ = cmd.build_argv(spec.command, tests)
    ph: dict[str, float] = {}
    api = be.client.api
    t = time.perf_counter()
    # create_sync = create + start; time them apart with the SDK's two calls
    orig_start = None
    sb = None
    import docker.models.containers as dmc  # noqa: PLC0415

    orig_start = dmc.Container.start
    marks = {}

    def start(self, *a, **k):
        marks["created"] = time.perf_counter()
        r = orig_start(self, *a, **k)
        marks["started"] = time.perf_counter()
        return r

    dmc.Container.start = start
    try:
        sb = be.create_sync(snap_dir, spec.limits, mounts, spec.image, True, None)
    finally:
        dmc.Container.start = orig_start
    ph["sdk create"] = marks["created"] - t
    ph["sdk start"] = marks["started"] - marks["created"]
    try:
        for name, a in (("sdk exec true", ["true"]), ("sdk exec judge", argv)):
            t = time.perf_counter()
            eid = api.exec_create(sb.container.id, a, user=f"{SANDBOX_UID}:{SANDBOX_UID}", environment=cmd.judge_env())
            output = api.exec_start(eid["Id"])
            rc = api.exec_inspect(eid["Id"])["ExitCode"]
            ph[name] = time.perf_counter() - t
            assert rc == 0, (name, rc, output[-600:])
    finally:
        t = time.perf_counter()
        sb._close_sync()
        ph["sdk remove"] = time.perf_counter() - t
    return ph


async def judge_round(judge: Judge, ch, snap) -> dict[str, float]:
    t = time.perf_counter()
    r = await judge.run(ch, snap, submission=1, phases=[1])
    total = time.perf_counter() - t
    assert r.infra_error is None and all(x.outcome == "passed" for x in r.tests), r.infra_error
    ph = dict(judge.last_phases)
    ph["total (to verdict)"] = total
    t = time.perf_counter()
    await judge.drain()  # the close the verdict did not wait for
    ph["close (after verdict)"] = time.perf_counter() - t
    return ph


async def main(runs: int) -> None:
    ch = load_challenge(FIXTURE)
    be = get_backend("docker")
    spec = JudgeSpec.from_challenge(ch, [1])
    with tempfile.TemporaryDirectory(prefix="gauntlet-prof-") as d:
        tmp = Path(d)
        snap = take_snapshot(FIXTURE / "solution", tmp / "snaps")
        jdir, _ = judge_dir(spec.test_dirs, tmp / "cache")
        sdk_ws = tmp / "sdk-ws"
        materialize(snap, sdk_ws)
        sdk_ws.chmod(0o755)
        cold = Judge(be, pool_size=1, prestart=0)
        pooled = Judge(be, pool_size=1, prestart=1)
        nowarm = Judge(be, pool_size=1, prestart=1, launcher=False)
        series = {
            "sdk": lambda: asyncio.to_thread(sdk_round, be, spec, jdir, sdk_ws, tmp),
            "judge-cold": lambda: judge_round(cold, ch, snap),
            "judge-pool": lambda: judge_round(pooled, ch, snap),
            "judge-pool-exec": lambda: judge_round(nowarm, ch, snap),
        }
        acc: dict[str, dict[str, list[float]]] = {k: defaultdict(list) for k in series}
        try:
            for fn in series.values():
                await fn()  # warm-up
            names = list(series)
            for k in range(runs):
                for name in names[k % len(names) :] + names[: k % len(names)]:
                    await pooled.warm(ch, [1])  # refill, unmeasured
                    await nowarm.warm(ch, [1])
                    for ph, v in (await series[name]()).items():
                        acc[name][ph].append(v)
        finally:
            await cold.aclose()
            await pooled.aclose()
            await nowarm.aclose()
    print(
        f"runs: {runs} per series, interleaved; load average {os.getloadavg()[0]:.1f} "
        f"on {os.cpu_count()} CPUs; medians in ms"
    )
    for name, phases in acc.items():
        print(f"[{name}]")
        for ph, xs in phases.items():
            print(
                f"  {ph:<24} {statistics.median(xs) * 1000:8.1f}   "
                f"(min {min(xs) * 1000:7.1f}, max {max(xs) * 1000:7.1f})"
            )


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7)
    asyncio.run(main(ap.parse_args().runs))
