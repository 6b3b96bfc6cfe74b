"""The attempt view's clock on a manual clock: style at 79/80/89/90% and after cutoff,
a notification at each warning and at cutoff, grace shown as grace."""

from __future__ import annotations

import tui_scenarios as S
from gauntlet_tui.widgets import AttemptClock


def _notes(app) -> list[str]:
    return [n.message for n in app._notifications]


async def _open(rig, pilot, app):
    app.tick(full=True)
    await pilot.pause()
    await pilot.press("enter")
    await pilot.pause()
    assert type(app.screen).__name__ == "AttemptScreen"
    return app.screen.query_one(AttemptClock)


def _state(clock: AttemptClock) -> tuple[bool, bool, bool, bool]:
    return tuple(clock.has_class(c) for c in ("-warning", "-urgent", "-grace", "-over"))


async def test_clock_style_at_79_80_89_90_percent_and_after_cutoff(rig):
    rig.start("a-1", "standard")  # 1800 s limit, 30 s grace
    app = rig.app()
    async with app.run_test(size=(120, 40)) as pilot:
        clock = await _open(rig, pilot, app)
        seen = {}
        for frac in (0.79, 0.80, 0.89, 0.90):
            rig.time.set(1800 * frac)
            app.tick()
            await pilot.pause()
            seen[frac] = _state(clock)
        assert seen == {
            0.79: (False, False, False, False),
            0.80: (True, False, False, False),
            0.89: (True, False, False, False),
            0.90: (False, True, False, False),
        }
        rig.time.set(1805)
        S.clock_mark(rig.bus, "a-1", "standard", "clock.cutoff")
        app.tick()
        await pilot.pause()
        assert _state(clock) == (False, False, True, False)
        assert "GRACE" in str(clock.query_one("#clock-line").render())
        rig.time.set(1830)
        app.tick()
        await pilot.pause()
        assert _state(clock) == (False, False, False, True)


async def test_sprint_has_no_grace_cutoff_is_over(rig):
    rig.start("a-1", "sprint")
    app = rig.app()
    async with app.run_test(size=(120, 40)) as pilot:
        clock = await _open(rig, pilot, app)
        rig.time.set(900)
        app.tick()
        await pilot.pause()
        assert _state(clock) == (False, False, False, True)


async def test_a_notification_at_each_warning_and_at_cutoff(rig):
    rig.start("a-1", "standard")
    app = rig.app()
    async with app.run_test(size=(120, 40)) as pilot:
        await _open(rig, pilot, app)
        for kind, expected in (
            ("clock.soft_warning", "80% of the time used"),
            ("clock.hard_warning", "90% of the time used — hurry"),
            ("clock.cutoff", "Time is up — grace period of 30s for a final message"),
        ):
            S.clock_mark(rig.bus, "a-1", "standard", kind)
            app.tick()
            await pilot.pause()
            assert _notes(app)[-1] == expected
        assert len(_notes(app)) == 3


async def test_the_clock_reads_the_injected_clock_between_events(rig):
    """No event arrives between 0 and 1440 s, yet the clock turns to warning at 80%."""
    rig.start("a-1", "standard")
    app = rig.app()
    async with app.run_test(size=(120, 40)) as pilot:
        clock = await _open(rig, pilot, app)
        rig.time.set(1440)
        app.tick()
        await pilot.pause()
        assert clock.has_class("-warning") and clock.level == "warning"
        assert "06:00 left of 30:00" in str(clock.query_one("#clock-line").render())


async def test_p_holds_the_attempt_view_and_resumes(rig):
    rig.start("a-1", "standard")
    app = rig.app()
    async with app.run_test(size=(120, 40)) as pilot:
        clock = await _open(rig, pilot, app)
        await pilot.press("p")
        assert app.screen.has_class("-paused")
        rig.time.set(1500)
        S.submit(rig.bus, "a-1", 1, 1400, S.doc("standard", 1, 1400), 50.0)
        app.tick()
        await pilot.pause()
        assert not clock.has_class("-warning") and not app.screen.query("FeedbackPane")
        await pilot.press("p")
        await pilot.pause()
        assert clock.has_class("-warning") and len(app.screen.query("FeedbackPane")) == 1
