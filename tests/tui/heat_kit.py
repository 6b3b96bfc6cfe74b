"""A heat of contestants named by adapter and model (issue 34), for the screen tests and
the screenshots of docs/screens.md: one clock for all, on one challenge; an older heat
of the same store beside it. ``heat_rig`` publishes the events on a ``Rig``'s bus (a
manual clock); with ``store`` they are written to a real store too (its runs created
first, so the attempts' ``run`` column holds the heat)."""

from __future__ import annotations

from arena.bus import EventBus

import tui_scenarios as S
from tui_scenarios import Rig

HEAT = "r-4ea70001"
OLDER_HEAT = "r-01d00001"
CHALLENGE = ("rate-limiter", "Rate Limiter with Teeth", "standard")
# attempt, identity, model, plan name ("" = derived)
CONTESTANTS = (
    ("a-4ea70001", "codex@openai/gpt-4.1-mini", "openai/gpt-4.1-mini", ""),
    ("a-4ea70002", "codex@openai/gpt-4.1", "openai/gpt-4.1", ""),
    ("a-4ea70003", "claude-code@anthropic/claude-sonnet-4-5", "anthropic/claude-sonnet-4-5", ""),
    ("a-4ea70004", "mini-swe-agent@openai/gpt-4.1-mini", "openai/gpt-4.1-mini", ""),
    ("a-4ea70005", "openhands@openai/gpt-4.1-mini", "openai/gpt-4.1-mini", ""),
    ("a-4ea70006", "scripted:elite", "", "house-bot"),
)
OLDER = (
    ("a-01d00001", "scripted:naive", "", ""),
    ("a-01d00002", "codex@openai/gpt-4.1-mini", "openai/gpt-4.1-mini", ""),
)
NOW = 1100.0  # attempt seconds on the heat's one clock when the screens are looked at


def _start(rig: Rig, attempt: str, agent: str, model: str, name: str, heat: str) -> None:
    challenge, title, fmt = CHALLENGE
    extra: dict = {"heat": heat, "run": heat}
    if model:
        extra.update(model=model, adapter=agent.split("@")[0], limits={"calls": 60, "cost_usd": 2.0})
    if name:
        extra["contestant"] = name
    rig.start(attempt, fmt, challenge=challenge, title=title, agent=agent, extra=extra)


def _calls(bus: EventBus, attempt: str, model: str, n: int, t0: float) -> None:
    for i in range(n):
        bus.publish(
            attempt,
            t0 + 20 * i,
            "model.call",
            {
                "model": model,
                "input_tokens": 1800,
                "output_tokens": 350,
                "latency_ms": 2100,
                "status": 200,
                "cost_usd": 0.0021,
            },
        )


def heat_events(rig: Rig, *, older: bool = True) -> None:
    """The older heat (over) and the current heat at ``NOW``: two codex models of one
    family, claude-code, mini-swe-agent ended as hung, openhands ended by an infrastructure
    error, and a scripted agent a plan named ``house-bot``."""
    bus, fmt = rig.bus, CHALLENGE[2]
    if older:
        for attempt, agent, model, name in OLDER:
            _start(rig, attempt, agent, model, name, OLDER_HEAT)
        bus.publish(
            "a-01d00002", 40.0, "infra.error", {"source": "gateway", "detail": "provider openai: 401 unauthorized"}
        )
        bus.publish("a-01d00002", 40.0, "attempt.finished", {"status": "infra_error", "reason": "gateway: 401"})
        S.submit(bus, "a-01d00001", 1, 600.0, S.doc(fmt, 1, 600.0), 35.0)
        S.finish(bus, "a-01d00001", 900.0)
    for attempt, agent, model, name in CONTESTANTS:
        _start(rig, attempt, agent, model, name, HEAT)
        if model:
            _calls(bus, attempt, model, 6, 30.0)
    a1, a2, a3, a4, a5, a6 = (c[0] for c in CONTESTANTS)
    S.activity(bus, a1, 200.0)
    S.submit(bus, a1, 1, 420.0, S.doc(fmt, 1, 420.0), 55.0)
    S.submit(bus, a1, 2, 900.0, S.doc(fmt, 2, 900.0, fails=1), 72.5)
    S.submit(bus, a2, 1, 380.0, S.doc(fmt, 1, 380.0), 61.0)
    S.submit(bus, a2, 2, 700.0, S.doc(fmt, 2, 700.0, fails=1), 80.0)
    S.submit(bus, a2, 3, 1000.0, S.doc(fmt, 3, 1000.0, fails=0), 94.0)
    S.finish(bus, a2, 1010.0, scored=3)
    S.submit(bus, a3, 1, 800.0, S.doc(fmt, 1, 800.0), 66.0)
    bus.publish(a4, 95.0, "agent.hung", {"detail": "no output, model call or process activity for 60 s"})
    bus.publish(a4, 95.0, "attempt.finished", {"status": "finished", "reason": "agent hung"})
    bus.publish(a5, 50.0, "infra.error", {"source": "sandbox", "detail": "the container exited (137) while starting"})
    bus.publish(a5, 50.0, "attempt.finished", {"status": "infra_error", "reason": "sandbox: container exited"})
    S.submit(bus, a6, 1, 500.0, S.doc(fmt, 1, 500.0), 70.0)
    rig.time.set(NOW)


def heat_rig(*, older: bool = True) -> Rig:
    rig = Rig()
    heat_events(rig, older=older)
    return rig


def heat_app(rig: Rig, **kw):  # noqa: ANN201
    """The app of a command that runs ``HEAT`` (``gauntlet arena``): its heat first."""
    app = rig.app(own_heat=True, **kw)
    app.heat = HEAT
    return app


async def stored_heat(db) -> Rig:  # noqa: ANN001
    """The same heats written to a real store at ``db`` (their runs created first); every
    attempt of the current heat ended, so its Standings can be judged."""
    from store import Store

    store = await Store.open(db)
    await store.create_run("arena", {"plan": "older.yaml"}, run_id=OLDER_HEAT)
    await store.create_run("arena", {"plan": "heat.yaml"}, run_id=HEAT)
    rig = Rig()
    rig.bus.subscribe(store.append)
    heat_events(rig)
    for attempt in ("a-4ea70001", "a-4ea70003", "a-4ea70006"):
        S.finish(rig.bus, attempt, 1700.0, scored=None)
    await store.flush()
    await store.close()
    return rig
