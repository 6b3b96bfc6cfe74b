"""The human player's idle countdown banner ("focus this window, open the shell") shows only
for ``--agent human`` (issue 21): a live real agent (mini-swe-agent) or scripted agent whose
hang watchdog is counting gets no banner on its attempt view."""

from __future__ import annotations

from gauntlet_tui.screens.attempt import AttemptScreen, idle_countdown


class IdleHandle:
    """A live attempt nobody holds: its hang watchdog counts down (gauntlet_tui.live.LiveHandle)."""

    def __init__(self, left: float) -> None:
        self.left = left

    def hang_left(self) -> float | None:
        return self.left

    async def stop(self) -> None:
        pass


def test_only_the_human_player_gets_a_countdown(rig):
    rig.start("a-agent", "sprint", agent="mini-swe-agent@openai/gpt-4.1-mini", extra={"model": "openai/gpt-4.1-mini"})
    rig.start("a-script", "sprint", agent="scripted:elite")
    rig.start("a-human", "sprint", agent="human")
    rig.adapter.flush()
    views = rig.adapter.views
    assert idle_countdown(views["a-agent"], IdleHandle(42.0)) is None
    assert idle_countdown(views["a-script"], IdleHandle(42.0)) is None
    assert idle_countdown(views["a-human"], IdleHandle(42.0)) == 42.0
    assert idle_countdown(views["a-human"], object()) is None  # a handle without a watchdog (remote)
    assert idle_countdown(None, IdleHandle(42.0)) is None


async def test_a_live_real_agent_has_no_idle_banner_and_a_human_has_one(rig):
    rig.start("a-agent", "sprint", agent="mini-swe-agent@openai/gpt-4.1-mini", extra={"model": "openai/gpt-4.1-mini"})
    rig.start("a-human", "sprint", agent="human")
    for attempt in ("a-agent", "a-human"):
        rig.adapter.attach_handle(attempt, IdleHandle(42.0))
    app = rig.app()
    async with app.run_test(size=(140, 40)) as pilot:
        app.tick(full=True)
        await pilot.pause()
        assert rig.adapter.is_live("a-agent") and rig.adapter.is_live("a-human")
        app.open_attempt_screen("a-agent")
        await pilot.pause()
        app.tick()
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, AttemptScreen) and screen.attempt_id == "a-agent"
        assert not screen.has_class("-idle")
        assert not screen.query_one("#hang-countdown").display
        await pilot.press("escape")
        await pilot.pause()
        app.open_attempt_screen("a-human")
        await pilot.pause()
        app.tick()
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, AttemptScreen) and screen.attempt_id == "a-human"
        assert screen.has_class("-idle") and screen.query_one("#hang-countdown").display
        assert "HUNG in 42s" in str(screen.query_one("#hang-countdown").render())
