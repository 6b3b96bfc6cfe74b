"""The compare screen from the attempts list: ``c`` marks one attempt, ``c`` on another
opens the two side by side (scorecards, the aligned timelines, the diff of the scored
submissions). Over a real store whose two attempts' events are published as the engine
publishes them, with their submissions' snapshot trees on disk; agent text is hostile
(escape sequences, markup) and must show literally."""

from __future__ import annotations

from textual.widgets import DataTable, Static

import tui_scenarios as S
from arena.bus import EventBus
from gauntlet_tui.app import GauntletApp
from gauntlet_tui.widgets import AttemptTable

HOSTILE = "\x1b[2J\x1b]0;pwned\x07[b]not bold[/b] [link=x]y[/link]"


async def _store(db) -> None:
    from store import Store

    store = await Store.open(db)
    bus = EventBus()
    bus.subscribe(store.append)
    for aid, agent, score, body in (
        ("a-0000000a", "scripted:naive", 40.0, "def f():\n    return 1\n"),
        ("a-0000000b", "scripted:elite", 90.0, f"def f():\n    return 2  # {HOSTILE}\n"),
    ):
        S.start(bus, aid, "sprint", agent=agent, challenge="off-by-one")
        bus.publish(aid, 10.0, "agent.step", {"step": "text", "text": f"thinking {HOSTILE}"})
        S.activity(bus, aid, 20.0)
        snap = db.with_name(db.name + ".d") / "snapshots" / f"snap-{aid}"
        snap.mkdir(parents=True)
        (snap / "f.py").write_text(body)
        bus.publish(aid, 100.0, "submission.received", {"submission": 1, "hash": f"snap-{aid}", "diff": {}})
        bus.publish(aid, 101.0, "submission.judged", {"submission": 1, "result": {}, "score": score})
        bus.publish(aid, 102.0, "feedback.delivered", {"submission": 1, "feedback": S.doc("sprint", 1, 100.0)})
        S.finish(bus, aid, 200.0, scored=1)
    await store.flush()
    await store.close()


async def test_mark_then_pick_opens_the_comparison(tmp_path):
    db = tmp_path / "g.db"
    await _store(db)
    app = GauntletApp(store=db, live_refresh=False)
    async with app.run_test(size=(160, 45)) as pilot:
        table = app.screen.query_one(AttemptTable)
        for _ in range(100):
            if table.row_count >= 2:
                break
            await pilot.pause(0.05)
        await pilot.press("a")
        await pilot.pause()
        assert type(app.screen).__name__ == "PastScreen"
        rows = app.screen.query_one(DataTable)
        first = str(rows.coordinate_to_cell_key(rows.cursor_coordinate).row_key.value)
        await pilot.press("c")  # mark
        await pilot.press("c")  # on the same one: unmark
        await pilot.press("c")
        await pilot.press("down")
        second = str(rows.coordinate_to_cell_key(rows.cursor_coordinate).row_key.value)
        await pilot.press("c")  # pick the second: the comparison opens
        for _ in range(100):
            if type(app.screen).__name__ == "CompareScreen" and app.screen.comparison is not None:
                break
            await pilot.pause(0.05)
        screen = app.screen
        assert (screen.a, screen.b) == (first, second) and {first, second} == {"a-0000000a", "a-0000000b"}
        head = str(screen.query_one("#compare-head", Static).render())
        assert first in head and second in head and "note" not in head  # same challenge
        scores = screen.query_one("#compare-scores", DataTable)
        assert [str(scores.get_row_at(i)[0]) for i in range(scores.row_count)] == [
            "objective",
            "process",
            "strategy",
            "integrity",
            "total",
        ]
        timeline = screen.query_one("#compare-timeline", DataTable)
        cells = [str(c) for i in range(timeline.row_count) for c in timeline.get_row_at(i)]
        assert any("submission #1" in c for c in cells) and any("scored 90.0" in c for c in cells)
        hostile = [c for c in cells if "thinking" in c]
        assert len(hostile) == 2 and all("[b]not bold[/b]" in c and "\x1b" not in c for c in hostile)
        diff = str(screen.query_one("#compare-diff-body", Static).render())
        assert "--- A/f.py" in diff and "+++ B/f.py" in diff
        assert ("-    return 1" in diff) == (first == "a-0000000a") == ("+    return 2" in diff)
        assert "[b]not bold[/b]" in diff and "\x1b" not in diff and "\x07" not in diff
        await pilot.press("escape")
        await pilot.pause()
        assert type(app.screen).__name__ == "PastScreen"
