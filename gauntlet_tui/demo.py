"""``gauntlet demo``: every bundled challenge run by scripted agents on a sped-up clock,
so a room sees the whole story in about two minutes.

Each challenge gets its own time scale so that its time limit and grace period pass in
``wall_s`` seconds (for 100 s: a 15-minute Sprint at x9, a 30-minute Standard with 30 s of
grace at x18.3, a 90-minute Marathon with 60 s of grace at x54.6), and every attempt's
clock promises to reach its grace end ``wall_s`` seconds after the attempt starts
(``Attempt.end_by``): judging runs at real speed, and the clock makes up for it by running
faster afterwards, so a slow judge run (a loaded machine, the Marathon naive's seven
submissions) never keeps the room waiting. The demo's agents *linger*: once their script is played they keep
working (a declared wait) until the clock ends the attempt, so every card on the
dashboard goes through the 80% and 90% warnings, the cutoff and the grace period; the
Standard agents' third submission brings the adversarial disclosure, the Marathon's
phase reveals come at 35% and 65%. Images and warm sandboxes are prepared first (a
progress screen, no clock running), then the attempts run through the real runner
(``arena.attempt``) in the app's event loop, and the round ends on the standings screen,
where ``r`` runs another round on the same store.
"""

from __future__ import annotations

from typing import Any

from gauntlet_tui.live import AttemptSpec

DEMO_WALL_S = 100.0
DEMO_AGENTS = ("scripted:elite", "scripted:naive")


def demo_specs(wall_s: float = DEMO_WALL_S, agents: tuple[str, ...] = DEMO_AGENTS) -> list[AttemptSpec]:
    from arena.challenge import bundled_challenges, load_challenge
    from arena.formats import rules_for

    specs = []
    for path in bundled_challenges():
        challenge = load_challenge(path)
        names = [f"scripted:{n}" for n in challenge.agent_names]
        chosen = [a for a in agents if a in names] or names[:1]
        ends = challenge.manifest.time_limit_s + rules_for(challenge.manifest.format).grace_s
        scale = max(1.0, ends / wall_s)
        specs += [AttemptSpec(path, agent, round(scale, 2), linger=True, ends_within_s=wall_s) for agent in chosen]
    return specs


async def run_round(app: Any, sandbox: str | None, wall_s: float = DEMO_WALL_S) -> list[str]:
    """One demo round: prepare, start every attempt, wait, show the standings."""
    specs = demo_specs(wall_s)
    if not specs:
        app.notify("no bundled challenges are installed", severity="error", timeout=10)
        return []
    run = await app.live_run(sandbox)
    if not await run.prepare(app, specs):
        return []  # the preparation screen says why (and offers --sandbox local)
    app.heat = await run.begin_heat("demo", {"attempts": len(specs), "sandbox": sandbox})  # each round is a heat
    ids = []
    for spec in specs:
        try:
            ids.append(run.start(spec))
        except Exception as exc:  # noqa: BLE001 — one broken package must not stop the demo
            app.notify(f"{spec.challenge}: {exc}", severity="error", timeout=10)
    await run.wait()
    await run.end_heat()
    app.tick(full=True)
    await app.show_standings(
        ids, again=lambda: app.run_worker(run_round(app, sandbox, wall_s), group="ready", exclusive=True)
    )
    return ids


def demo_starter(sandbox: str | None, wall_s: float = DEMO_WALL_S):  # noqa: ANN201
    """The app's ``on_ready``: runs the first demo round."""

    async def start(app: Any) -> None:
        await run_round(app, sandbox, wall_s)

    return start
