"""The ingestion benchmark runs and prints its figures (speeds are judged by people
reading its output, never asserted here)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_bench_store_runs_small_and_prints_every_figure():
    out = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "bench_store.py"),
            "--producers",
            "10",
            "--events",
            "3000",
            "--rate",
            "5000",
            "--seconds",
            "0.3",
            "--repeat",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    for label in (
        "raw sqlite3 executemany (pre-encoded rows)",
        "Store, flat out",
        "ratio Store / raw",
        "flush()",
        "append->commit latency (target: <= 100 ms, p99 and max)",
        "<= 100 ms append->commit at p99",
        "<= 100 ms append->commit at max",
    ):
        assert label in out, out
    assert re.search(r"p50 [\d.]+ ms, p99 [\d.]+ ms, max [\d.]+ ms", out), out
    rate = re.search(r"Store, flat out \(append \.\. flush\)\s+([\d,]+) events/s", out)
    assert rate and int(rate.group(1).replace(",", "")) > 0
