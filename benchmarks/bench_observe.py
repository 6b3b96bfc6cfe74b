"""Observation overhead: a test command under observation vs the same command unobserved.

    python benchmarks/bench_observe.py [--reps 9] [--backend local]

Two commands in one REAL sandbox: a loop of 200 short programs, and a pytest run of a
small suite (with the counting plugin enabled when observed). Runs alternate (unobserved,
observed) so load drifts hit both alike; unobserved runs have no observer process at all.
Prints the median wall time of each and the ratio (target: observed <= 1.05x).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.observe import ProcessObserver, SandboxObservation  # noqa: E402
from arena.sandbox import Limits, get_backend  # noqa: E402

SUITE = "\n".join(f"def test_{i}():\n    assert sum(range({i} * 100)) >= 0\n" for i in range(60))
COMMANDS = {
    "200 short programs": "for i in $(seq 200); do /bin/true; done; cat src/*.py >/dev/null",
    "pytest, 60 tests": "python3 -m pytest -q -p no:cacheprovider test_suite.py >/dev/null",
}


async def main(reps: int, backend: str) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp) / "ws"
        (ws / "src").mkdir(parents=True)
        for i in range(20):
            (ws / "src" / f"m{i}.py").write_text(f"X = {i}\n")
        (ws / "test_suite.py").write_text(SUITE)
        observation = SandboxObservation(Path(tmp))
        sb = await get_backend(backend).create(ws, Limits(wall_s=120), mounts=observation.mounts())
        try:
            for name, script in COMMANDS.items():
                plain, watched, events = [], [], []
                for _ in range(reps):
                    t0 = time.perf_counter()
                    await sb.exec(["sh", "-c", script])
                    plain.append(time.perf_counter() - t0)
                    obs = await ProcessObserver().start()
                    if not obs.available:
                        print("observation unavailable:", obs.notes)
                        return 1
                    async with observation.observe(sb, ws, lambda k, d: events.append(k), observer=obs):
                        t0 = time.perf_counter()
                        await sb.exec(["sh", "-c", script], env=observation.merge_env({}))
                        watched.append(time.perf_counter() - t0)
                    await obs.close()
                a, b = statistics.median(plain), statistics.median(watched)
                print(
                    f"{name:20s} unobserved {a * 1000:8.1f} ms   observed {b * 1000:8.1f} ms   "
                    f"ratio {b / a:5.3f}   ({len(events) // reps} events per observed run)"
                )
        finally:
            await sb.close()
    return 0


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=9)
    ap.add_argument("--backend", default="local")
    a = ap.parse_args()
    sys.exit(asyncio.run(main(a.reps, a.backend)))
