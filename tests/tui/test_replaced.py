"""Issue 12: a Sprint submission replaced within 30 s says "replaced" on the dashboard and
on the attempt screen (and the view knows each submission's state)."""

from __future__ import annotations

from gauntlet_tui.widgets import AttemptTable


def _cell(table: AttemptTable, attempt: str, col: str) -> str:
    value = table.get_cell(attempt, col)
    return getattr(value, "plain", str(value))


def _double_submit(rig, attempt: str) -> None:
    rig.bus.publish(
        attempt,
        10.0,
        "submission.received",
        {
            "submission": 1,
            "iteration": 0,
            "hash": "h1",
            "files": 1,
            "bytes": 10,
            "identical_to": None,
            "replaces": None,
            "diff": {"files_changed": 1},
        },
    )
    rig.bus.publish(
        attempt,
        20.0,
        "submission.received",
        {
            "submission": 2,
            "iteration": 1,
            "hash": "h2",
            "files": 1,
            "bytes": 10,
            "identical_to": None,
            "replaces": 1,
            "diff": {"files_changed": 1},
        },
    )
    rig.bus.publish(attempt, 20.0, "submission.replaced", {"submission": 1, "by": 2})


async def test_dashboard_and_attempt_screen_say_replaced(rig):
    rig.start("a-1", "sprint", title="The Off-By-One")
    app = rig.app()
    async with app.run_test(size=(160, 40)) as pilot:
        rig.time.advance(25)
        _double_submit(rig, "a-1")
        app.tick(full=True)
        await pilot.pause()
        table = app.screen.query_one(AttemptTable)
        assert _cell(table, "a-1", "status") == "replaced"
        view = rig.adapter.view("a-1") if hasattr(rig.adapter, "view") else None
        if view is not None:
            assert view.submission_state(1) == "replaced" and view.submissions_used == 1
        rig.time.advance(60)  # the window is long past: back to the clock's stage
        app.tick(full=True)
        await pilot.pause()
        assert _cell(table, "a-1", "status") == "running"
        await pilot.press("enter")
        await pilot.pause()
        app.tick(full=True)
        await pilot.pause()
        from textual.widgets import Static  # noqa: PLC0415

        info = app.screen.query_one("#attempt-info", Static)
        text = str(getattr(info, "content", None) or getattr(info, "renderable", ""))
        assert "#1 replaced" in text and "submissions 1/" in text
