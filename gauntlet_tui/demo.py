"""``gauntlet demo``: every bundled challenge run by scripted agents on a sped-up clock,
so a room sees warnings, feedback, a phase reveal and final scores in about two minutes.

Each challenge gets its own time scale so that its time limit passes in ``wall_s``
seconds (a 15-minute Sprint at x9, a 60-minute Marathon at x36 for 100 s). Attempts run
through the real runner (``arena.attempt``), in the app's event loop.
"""
from __future__ import annotations

from typing import Any

from gauntlet_tui.live import AttemptSpec

DEMO_WALL_S = 100.0
DEMO_AGENTS = ("scripted:elite", "scripted:naive")


def demo_specs(wall_s: float = DEMO_WALL_S, agents: tuple[str, ...] = DEMO_AGENTS) -> list[AttemptSpec]:
    from arena.challenge import bundled_challenges, load_challenge

    specs = []
    for path in bundled_challenges():
        challenge = load_challenge(path)
        names = [f"scripted:{n}" for n in challenge.agent_names]
        chosen = [a for a in agents if a in names] or names[:1]
        scale = max(1.0, challenge.manifest.time_limit_s / wall_s)
        specs += [AttemptSpec(path, agent, round(scale, 2)) for agent in chosen]
    return specs


def demo_starter(sandbox: str | None, wall_s: float = DEMO_WALL_S):  # noqa: ANN201
    """The app's ``on_ready``: opens the live run and starts every demo attempt."""

    async def start(app: Any) -> None:
        specs = demo_specs(wall_s)
        if not specs:
            app.notify("no bundled challenges are installed", severity="error", timeout=10)
            return
        run = await app.live_run(sandbox)
        for spec in specs:
            try:
                run.start(spec)
            except Exception as exc:  # noqa: BLE001 — one broken package must not stop the demo
                app.notify(f"{spec.challenge}: {exc}", severity="error", timeout=10)
        await run.wait()
        app.notify("demo over: every attempt has finished — open one with enter", timeout=15)

    return start
