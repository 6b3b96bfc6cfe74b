"""Time one `gauntlet demo` round headless (the pilot) and print its story's timings.

    python benchmarks/bench_demo.py [--sandbox docker|local] [--seconds 100] [--out DIR]

Runs ``GauntletApp`` with ``demo_starter`` under ``App.run_test`` (200x50), times the
preparation screen, then measures from the first attempt clock (``clock.stretches()``):
first feedback, first phase reveal, the 80 %/90 % warnings, cutoff and grace end, the
Standings screen; each grace end against its deadline (``clock.when``). Writes the
timeline (JSON) and screenshots (SVG: preparation, dashboard past 85 %, Standings) to
``--out``. Use an empty ``GAUNTLET_CACHE`` for a first run's starter judging. Figures:
docs/screens.md, "The demo's time".
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import time
from pathlib import Path

STORY = (
    "feedback.delivered",
    "phase.revealed",
    "clock.soft_warning",
    "clock.hard_warning",
    "clock.cutoff",
    "clock.grace_end",
    "attempt.finished",
)


async def run(sandbox: str | None, seconds: float, out: Path) -> dict:
    from gauntlet_tui.app import GauntletApp
    from gauntlet_tui.demo import demo_starter

    app = GauntletApp(title="Gauntlet demo", store=out / "g.db", on_ready=demo_starter(sandbox, seconds))
    t0 = time.monotonic()
    events: list[tuple[float, str, str]] = []
    screens: list[tuple[float, str]] = []
    app.adapter.bus.subscribe(lambda e: events.append((time.monotonic() - t0, e.attempt, e.kind)))
    shots: set[str] = set()
    load = os.getloadavg()
    async with app.run_test(size=(200, 50)) as pilot:
        while time.monotonic() - t0 < 900:
            name = type(app.screen).__name__
            if not screens or screens[-1][1] != name:
                screens.append((time.monotonic() - t0, name))
            if name == "PrepareScreen" and "prepare" not in shots and time.monotonic() - t0 > 3:
                shots.add("prepare")
                app.save_screenshot(str(out / "prepare.svg"))
            views = app.adapter.views
            if name != "PrepareScreen" and views and "dashboard" not in shots:
                if max(app.adapter.elapsed(a) / (v.time_limit_s or 1) for a, v in views.items()) > 0.85:
                    shots.add("dashboard")
                    app.save_screenshot(str(out / "dashboard.svg"))
            if name == "StandingsScreen":
                await pilot.pause(0.5)
                app.save_screenshot(str(out / "standings.svg"))
                break
            await pilot.pause(0.1)
        clocks = {}
        for aid in app.adapter.views:
            a = app.adapter.handle(aid).attempt
            c = a.clock
            clocks[aid] = {
                "start": c.stretches()[0][0] - t0,
                "grace_end": c.when(c.grace_end_s) - t0,
                "deadline": (a.deadline - t0) if a.deadline is not None else None,
            }
    return {"screens": screens, "events": events, "clocks": clocks, "load": load, "end_load": os.getloadavg()}


def report(d: dict) -> list[str]:
    scr = d["screens"]
    prep = [w for w, n in scr if n == "PrepareScreen"]
    stand = [w for w, n in scr if n == "StandingsScreen"]
    first = min(c["start"] for c in d["clocks"].values())
    lines = [f"load average at start {d['load'][0]:.1f}, at the end {d['end_load'][0]:.1f}"]
    if prep:
        after = [w for w, n in scr if w > prep[0] and n != "PrepareScreen"]
        lines.append(f"preparation screen: {after[0] - prep[0]:.1f} s")
    for kind in STORY:
        ws = [w - first for w, _, k in d["events"] if k == kind]
        if ws:
            lines.append(f"{kind:20} first {min(ws):6.1f} s  last {max(ws):6.1f} s  (from the first clock)")
    if stand:
        lines.append(f"Standings screen: {stand[0] - first:.1f} s from the first clock")
    late = [c["grace_end"] - c["deadline"] for c in d["clocks"].values() if c["deadline"] is not None]
    if late:
        lines.append(f"grace end - deadline, worst: {max(late) * 1e3:+.3f} ms")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sandbox", choices=("docker", "local"), default=None)
    ap.add_argument("--seconds", type=float, default=100.0)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="bench-demo-"))
    out.mkdir(parents=True, exist_ok=True)
    d = asyncio.run(run(args.sandbox, args.seconds, out))
    (out / "timeline.json").write_text(json.dumps(d))
    print("\n".join(report(d)))
    print(f"timeline and screenshots in {out}")


if __name__ == "__main__":
    main()
