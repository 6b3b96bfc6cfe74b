"""Two processes on one store: a TUI runs a live attempt and follows the store while a
headless `gauntlet run` (a real second process) writes to the same file, and a second
reader (another TUI's follower) follows it too. Everyone sees every event; the store
refuses nothing; no attempt ends infra_error (issue 13: the follower used to re-deliver
stored events onto the bus the live store writes from)."""

from __future__ import annotations

import asyncio
from collections import defaultdict
from pathlib import Path

from gauntlet_tui.app import GauntletApp
from headless_runs import headless_run
from gauntlet_tui.engine import EngineAdapter
from gauntlet_tui.follow import StoreFollower
from gauntlet_tui.live import AttemptSpec

ROOT = Path(__file__).resolve().parents[2]


class RecordingAdapter(EngineAdapter):
    """An adapter that also remembers every event it was handed (bus or follower)."""

    def __init__(self) -> None:
        self.got: dict[str, list[int]] = defaultdict(list)
        super().__init__()

    def _on_event(self, ev):  # noqa: ANN001
        self.got[ev.attempt].append(ev.seq)
        super()._on_event(ev)


async def _stored(db: Path) -> dict[str, tuple[str, list[int]]]:
    from store import Store

    s = await Store.open(db)
    try:
        return {r["id"]: (r["status"], [e.seq for e in await s.events(r["id"])]) for r in await s.list_attempts(None)}
    finally:
        await s.close()


async def _headless(db: Path) -> asyncio.subprocess.Process:
    return await headless_run(db, 60)


async def test_live_attempt_and_followers_share_one_store(tmp_path):
    db = tmp_path / "g.db"
    # An earlier run left a finished attempt in the store: the TUI loads all its events.
    first = await _headless(db)
    out, err = await asyncio.wait_for(first.communicate(), 120)
    assert first.returncode == 0, err.decode()
    old = out.decode().split()[-1]

    adapter = RecordingAdapter()
    box: dict = {}

    async def ready(app: GauntletApp) -> None:
        run = await app.live_run("local")
        box["other"] = await _headless(db)  # a second process writes while we run live
        box["live"] = run.start(AttemptSpec("off-by-one", "scripted:elite", 60.0))
        await run.wait()
        box["store"] = run.arena.shared.store

    second = RecordingAdapter()  # a second TUI following the same store
    follower = StoreFollower(second, db, interval=0.2)
    app = GauntletApp(adapter, store=db, on_ready=ready)
    async with app.run_test(size=(140, 45)) as pilot:
        follow_task = asyncio.create_task(follower.run())
        loop = asyncio.get_running_loop()
        end = loop.time() + 180
        while "store" not in box or box["other"].returncode is None:
            assert loop.time() < end, "the attempts did not finish in time"
            await pilot.pause(0.2)
        out, err = await box["other"].communicate()
        assert box["other"].returncode == 0, err.decode()
        other = out.decode().split()[-1]
        assert box["store"].rejected == [] and box["store"].writer_error is None
        assert "refused" not in err.decode()
        stored = await _stored(db)
        assert {old, other, box["live"]} <= set(stored)
        while any(
            sorted(adapter.got[a]) != stored[a][1] or sorted(second.got[a]) != stored[a][1]
            for a in (old, other, box["live"])
        ):
            assert loop.time() < end, "the readers did not see every stored event"
            await pilot.pause(0.2)
        app.tick()
        second.flush()
        for a in (old, other, box["live"]):
            assert stored[a][0] == "finished"
            for reader in (adapter, second):
                assert reader.got[a] == stored[a][1]  # each event once, in order
        await follower.close()
        follow_task.cancel()
        assert adapter.views[box["live"]].status == "finished"
        assert adapter.views[other].status == "finished" and second.views[other].status == "finished"
