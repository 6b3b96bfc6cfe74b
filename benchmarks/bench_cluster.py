"""Plan time on 1, 2 and 3 worker nodes (same slots per node), and the per-event overhead of
remote streaming (node publish -> committed in the command's store, p50/p99).

    python benchmarks/bench_cluster.py [--slots 2] [--scale 400] [--repeat 1]

Each node count gets a fresh DockerCluster (arena.cluster.testbed) of gauntlet-node
containers; the plan is the 3 bundled challenges x {naive, elite}. Streaming overhead:
the node stamps each event's publish instant (wall clock; the test bed's nodes share this
machine's clock) and the command's machine, with $GAUNTLET_CLUSTER_TIMINGS set, writes
commit time minus publish time for every event it committed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def run_plan(plan: Path, db: Path, address: str) -> float:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GAUNTLET_CLUSTER_TIMINGS": str(db) + ".timings"}
    t0 = time.monotonic()
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "gauntlet_tui",
            "arena",
            str(plan),
            "--headless",
            "--store",
            str(db),
            "--cluster",
            address,
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    if p.returncode != 0:
        raise SystemExit(f"plan failed on {address}: {p.stderr[-2000:]}")
    return time.monotonic() - t0


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--slots", type=int, default=2)
    ap.add_argument("--scale", type=float, default=400)
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args()
    from arena.cluster.image import build_node_image
    from arena.cluster.testbed import DockerCluster

    image = build_node_image(log=lambda m: print(m, file=sys.stderr))  # this checkout's id
    tmp = Path(tempfile.mkdtemp(prefix="bench-cluster-"))
    plan = tmp / "plan.yaml"
    plan.write_text(
        yaml.safe_dump(
            {
                "schema": "gauntlet.plan/v1",
                "parallel": 64,
                "time_scale": args.scale,
                "sandbox": "local",
                "attempts": [
                    {"challenge": c, "agents": ["scripted:naive", "scripted:elite"], "repeat": args.repeat}
                    for c in ("off-by-one", "rate-limiter", "task-store")
                ],
            }
        )
    )
    results = {}
    for n in (1, 2, 3):
        with DockerCluster(workers=n, slots=args.slots, image=image) as c:
            db = tmp / f"n{n}.db"
            wall = run_plan(plan, db, c.address)
            lat = [
                float(x)
                for x in (Path(str(db) + ".timings").read_text().split() if Path(str(db) + ".timings").exists() else [])
            ]
            results[n] = {
                "wall_s": round(wall, 2),
                "events": len(lat),
                "stream_p50_ms": round(pct(lat, 0.5) * 1000, 2) if lat else None,
                "stream_p99_ms": round(pct(lat, 0.99) * 1000, 2) if lat else None,
            }
            print(f"{n} node(s) x {args.slots} slots: {results[n]}", file=sys.stderr)
    base = results[1]["wall_s"]
    for n in results:
        results[n]["speedup"] = round(base / results[n]["wall_s"], 2)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
