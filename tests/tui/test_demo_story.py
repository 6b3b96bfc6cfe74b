"""The demo tells the whole story: a recorded demo round (local sandbox, each time limit
squeezed into 20 s) holds, in the store and on the dashboard, soft and hard warnings, a
cutoff and a grace end for every attempt, Standard's adversarial disclosure from the 3rd
submission, a Marathon phase reveal, and ends on the Standings screen; ``r`` runs
another round on the same store."""
from __future__ import annotations

import time

from gauntlet_tui.app import GauntletApp
from gauntlet_tui.demo import demo_starter


async def _until(pilot, cond, timeout):
    t0 = time.monotonic()
    while not cond():
        assert time.monotonic() - t0 < timeout, "timed out"
        await pilot.pause(0.25)


async def test_a_recorded_demo_holds_the_story_and_ends_on_the_standings(tmp_path):
    from store import Store

    app = GauntletApp(title="Gauntlet demo", store=tmp_path / "g.db",
                      on_ready=demo_starter("local", 20.0))
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
            for k in ("clock.soft_warning", "clock.hard_warning", "clock.cutoff",
                      "clock.grace_end", "attempt.finished"):
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
    finally:
        await st.close()
