"""Helpers for the attempt tests: small real challenge packages written on the fly,
an arena on the local backend with a ManualTime clock, and a driver that steps the
manual clock only while no real work (a command, a judgement, a scan) is running, so
attempt-clock instants are deterministic without real sleeps in the attempt logic."""

from __future__ import annotations

import asyncio
import textwrap
from pathlib import Path
from typing import Any

import yaml

from arena.attempt import Arena
from arena.clock import ManualTime

CALC_BUGGY = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b + (1 if a == 0 else 0)\n"
CALC_HALF = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b + (1 if a == 0 else 0)\n"
CALC_FIXED = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n"
CALC_P2 = CALC_FIXED + "\n\ndef sub(a, b):\n    return a - b\n"
STATIC = """
from calc import add, mul

def test_add_basic():
    assert add(2, 3) == 5

def test_add_negative():
    assert add(-2, -3) == -5

def test_mul_basic():
    assert mul(2, 3) == 6

def test_edge_mul_zero():
    assert mul(0, 5) == 0
"""
HIDDEN = """
from calc import add, mul

def test_add_zero():
    assert add(0, 0) == 0

def test_mul_one():
    assert mul(1, 7) == 7
"""
PHASE2 = """
from calc import sub

def test_sub_basic():
    assert sub(5, 3) == 2

def test_sub_negative():
    assert sub(-1, 1) == -2
"""
RANGES = {"sprint": ("15m", 2), "standard": ("30m", 4), "marathon": ("60m", 6)}


def _w(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def make_package(
    root: Path,
    *,
    fmt: str = "sprint",
    agents: dict[str, list] | None = None,
    time_limit: str | None = None,
    iterations: int | None = None,
    hang_limit: str | None = None,
    phases: list[dict] | None = None,
    cid: str | None = None,
) -> Path:
    """A real challenge package (loads through arena.challenge) with overlays
    ``agents/half``, ``agents/fixed`` and ``agents/p2`` for scripted agents."""
    tl, it = RANGES[fmt]
    manifest: dict[str, Any] = {
        "schema": "gauntlet.challenge/v1",
        "id": cid or f"kit-{fmt}",
        "title": f"Kit {fmt}",
        "hook": "add() subtracts.",
        "category": "debug-gauntlet",
        "format": fmt,
        "weight_class": "lightweight",
        "time_limit": time_limit or tl,
        "iterations": iterations or it,
        "deliverables": [{"name": "fix", "kind": "tests", "weight": 1.0}],
        "sandbox": {"image": "gauntlet-base", "cpus": 1, "memory": "512m", "pids": 128, "network": False},
        "judge": {
            "command": "python -m pytest -q -p no:cacheprovider --junitxml={report} {tests}",
            "timeout": "60s",
            "categories": {"test_edge_*": "edge_case"},
        },
    }
    if hang_limit:
        manifest["hang_limit"] = hang_limit
    if fmt == "marathon":
        manifest["phases"] = phases or [{"id": "subtraction", "reveal_at": 0.5, "hint": "add sub()"}]
    _w(root / "challenge.yaml", yaml.safe_dump(manifest, sort_keys=False))
    _w(root / "briefing.md", "# Kit\n\nFix calc.py so that add and mul are right.\n")
    _w(root / "starter" / "calc.py", CALC_BUGGY)
    _w(root / "starter" / "test_calc.py", "from calc import mul\n\ndef test_mul():\n    assert mul(2, 3) == 6\n")
    _w(root / "tests" / "static" / "test_calc_static.py", textwrap.dedent(STATIC))
    _w(root / "tests" / "hidden" / "test_calc_hidden.py", textwrap.dedent(HIDDEN))
    _w(root / "solution" / "calc.py", CALC_P2 if fmt == "marathon" else CALC_FIXED)
    _w(root / "agents" / "half" / "calc.py", CALC_HALF)
    _w(root / "agents" / "fixed" / "calc.py", CALC_FIXED)
    _w(root / "agents" / "p2" / "calc.py", CALC_P2)
    if fmt == "marathon":
        for n in range(2, 2 + len(manifest["phases"])):
            _w(root / "phases" / str(n) / "briefing.md", f"Phase {n}: add sub(a, b).\n")
            _w(root / "phases" / str(n) / "tests" / "static" / f"test_phase{n}.py", textwrap.dedent(PHASE2))
    for name, steps in (agents or {}).items():
        _w(root / "agents" / f"{name}.yaml", yaml.safe_dump({"steps": steps}, sort_keys=False))
    return root


async def open_arena(
    tmp: Path, clock: ManualTime | None = None, *, parallel: int = 8, sandbox: str = "local", **kw: Any
) -> Arena:
    kw.setdefault("watch_interval", None)
    return await Arena.open(tmp / "g.db", sandbox=sandbox, parallel=parallel, time_source=clock, **kw)


async def drive(
    arena: Arena, attempts: list, clock: ManualTime, *, step: float = 1.0, max_steps: int = 100_000
) -> list[str]:
    """Run attempts to the end, stepping ``clock`` by ``step`` attempt-source seconds
    whenever none of them is doing real work."""
    tasks = [asyncio.create_task(arena.run_one(a)) for a in attempts]
    steps = 0
    while not all(t.done() for t in tasks):
        live = [a for a, t in zip(attempts, tasks) if not t.done()]
        if any(not a.ready or a.io_busy for a in live if not a.over):
            await asyncio.sleep(0.005)  # real work (subprocess, thread) in progress
            continue
        if all(a.over for a in live):
            await asyncio.sleep(0.005)  # tearing down
            continue
        await clock.step(step)
        steps += 1
        if steps > max_steps:
            raise AssertionError("attempts did not finish")
    return [t.result() for t in tasks]


async def stored(arena: Arena, attempt: str) -> list:
    await arena.store.flush()
    return list(await arena.store.events(attempt))


def kinds(events: list) -> list[str]:
    return [e.kind for e in events]


def of(events: list, kind: str) -> list:
    return [e for e in events if e.kind == kind]


async def request_stepping(
    attempt: Any, clock: ManualTime, req: dict, *, step: float = 1.0, max_steps: int = 10_000
) -> dict:
    """``attempt.request(req)`` while stepping ``clock`` whenever no real work runs: a Sprint
    submission's reply waits for its 30 s replacement window on the attempt clock."""
    task = asyncio.ensure_future(attempt.request(req))
    steps = 0
    while not task.done():
        if attempt.io_busy:
            await asyncio.sleep(0.005)
            continue
        await asyncio.sleep(0.005)
        if task.done():
            break
        await clock.step(step)
        steps += 1
        if steps > max_steps:
            raise AssertionError(f"{req} got no reply")
    return task.result()
