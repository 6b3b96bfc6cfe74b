"""The demo tells the whole story: a recorded demo round (local sandbox, each time limit
and grace squeezed into 45 s; the clocks keep that time, so the Standard agents' third
submission needs room for real judge runs before it) holds, in the store and on the
dashboard, soft and hard warnings, a cutoff and a grace end for every attempt, Standard's
adversarial disclosure from the 3rd submission, a Marathon phase reveal, and ends on the
Standings screen; ``r`` runs another round on the same store. And the round keeps the
demo's stated time on the engine's clock, however long judging takes."""

from __future__ import annotations

import asyncio
import time

import pytest

from gauntlet_tui.app import GauntletApp
from gauntlet_tui.demo import demo_specs, demo_starter


async def _until(pilot, cond, timeout):
    t0 = time.monotonic()
    while not cond():
        assert time.monotonic() - t0 < timeout, "timed out"
        await pilot.pause(0.25)


@pytest.mark.alone  # 45 s of wall for a Standard's three judged submissions: not under CI's other half
async def test_a_recorded_demo_holds_the_story_and_ends_on_the_standings(tmp_path):
    from store import Store

    app = GauntletApp(title="Gauntlet demo", store=tmp_path / "g.db", on_ready=demo_starter("local", 45.0))
    seen: list = []
    app.adapter.bus.subscribe(seen.append)
    async with app.run_test(size=(200, 50)) as pilot:
        await _until(pilot, lambda: type(app.screen).__name__ == "StandingsScreen", 150)
        title = str(app.screen.query_one("#standings-title").render())
        assert "Standings" in title and "6 attempt(s)" in title
        standings = app.screen.standings
        assert all(standings.winner(c) is not None for c in standings.by_challenge)
        assert {r["agent"] for r in standings.ratings} == {"scripted:elite", "scripted:naive"}
        round_one = set(app.adapter.views)
        await pilot.pause(1.0)
        assert type(app.screen).__name__ == "StandingsScreen", "the standings stay up"
        await pilot.press("r")
        await _until(pilot, lambda: len(app.adapter.views) > len(round_one), 60)

    st = await Store.open(tmp_path / "g.db")
    try:
        for aid in round_one:
            kinds = [e.kind for e in await st.events(aid)]
            for k in (
                "clock.soft_warning",
                "clock.hard_warning",
                "clock.cutoff",
                "clock.grace_end",
                "attempt.finished",
            ):
                assert k in kinds, (aid, k)
            assert "infra.error" not in kinds and kinds.count("submission.received") >= 1
        by_kind = {}
        for e in seen:
            by_kind.setdefault(e.kind, []).append(e)
        assert len(by_kind["clock.grace_end"]) >= 6 and by_kind["phase.revealed"]
        fmt = {e.attempt: e.data["format"] for e in by_kind["attempt.started"]}
        standard = [e for e in by_kind["feedback.delivered"] if fmt.get(e.attempt) == "standard"]
        third = [e for e in standard if e.data["submission"] == 3]
        assert third and all("adversarial" in e.data["feedback"] for e in third)
        assert all("adversarial" not in e.data["feedback"] for e in standard if e.data["submission"] < 3)
        revealed = [e for e in by_kind["phase.revealed"] if fmt.get(e.attempt) == "marathon"]
        assert revealed
        heats = {e.data.get("heat") for e in by_kind["attempt.started"] if e.attempt in round_one}
        assert len(heats) == 1 and None not in heats  # a round is one heat, a runs row (issue 34)
        assert {(await st.get_attempt(a) or {}).get("run") for a in round_one} == heats
    finally:
        await st.close()


class _Slower:
    """A time source running ``k`` times real time: on it a real second of judging (a
    sandbox, pytest) costs ``k`` seconds, as on a machine ``k`` times slower or loaded."""

    def __init__(self, k: float) -> None:
        self.k, self.t0 = k, time.monotonic()

    def now(self) -> float:
        return (time.monotonic() - self.t0) * self.k

    async def sleep_until(self, t: float) -> None:
        delay = (t - self.now()) / self.k
        if delay > 0:
            await asyncio.sleep(delay)


STORY = ("clock.soft_warning", "clock.hard_warning", "clock.cutoff", "clock.grace_end", "attempt.finished")


async def test_every_attempt_of_a_round_reaches_its_grace_end_within_the_demos_time(tmp_path):
    """On a source where judging costs twice its real time, each attempt's clock still
    reaches its grace end ``wall_s`` source seconds after it started (``AttemptClock.when``:
    from the clock's own stretches, not a measurement), real-speed judging made up for."""
    from arena.attempt.prepare import Preparation
    from arena.challenge import load_challenge, resolve_challenge
    from gauntlet_tui.engine import EngineAdapter
    from gauntlet_tui.live import LiveRun

    src, wall_s = _Slower(2.0), 60.0
    specs = demo_specs(wall_s)
    adapter = EngineAdapter()
    seen: list = []
    adapter.bus.subscribe(seen.append)
    run = await LiveRun.open(adapter, tmp_path / "g.db", sandbox="local", time_source=src)
    try:
        items = [(load_challenge(resolve_challenge(s.challenge)), s.agent) for s in specs]
        await Preparation.plan(run.arena, items).run()  # images, warm sandboxes, starters
        began = {}  # attempt -> (source time before, after its start)
        for spec in specs:
            before = src.now()
            aid = run.start(spec)
            began[aid] = (before, src.now())
        ids = list(began)
        await asyncio.wait_for(run.wait(), 300)
    finally:
        await run.close()

    attempts = [adapter.handle(i).attempt for i in ids]
    fmt = {a.id: a.manifest.format for a in attempts}
    repaid = 0
    for a in attempts:
        kinds = [e.kind for e in seen if e.attempt == a.id]
        assert all(k in kinds for k in STORY) and "infra.error" not in kinds, (a.id, kinds)
        started = next(e for e in seen if e.attempt == a.id and e.kind == "attempt.started")
        assert started.data["ends_within_s"] == pytest.approx(wall_s, abs=0.5)
        before, after = began[a.id]
        assert before + wall_s <= a.deadline <= after + wall_s
        clock = a.clock
        assert clock.when(clock.grace_end_s) <= a.deadline + 1e-6, (fmt[a.id], a.deadline)
        real_speed = [t for _, t, rate in clock.stretches() if rate == 1.0 and t < clock.grace_end_s]
        repaid += bool(real_speed)  # judged at real speed before its end, and still on time
    assert repaid, "no attempt was judged at real speed before its end"
    first = {}
    for e in seen:
        if e.kind == "feedback.delivered":
            first.setdefault(e.attempt, e.t)
    cutoff = {a.id: a.clock.cutoff_s for a in attempts}
    for f in ("sprint", "standard", "marathon"):  # each format's first feedback, before its cutoff
        assert any(t < cutoff[aid] for aid, t in first.items() if fmt[aid] == f), f
    assert any(e.kind == "phase.revealed" and fmt[e.attempt] == "marathon" for e in seen)
