"""The Marathon phase timeline: later phases visibly locked, then revealed with their briefing."""

from __future__ import annotations

import tui_scenarios as S
from gauntlet_tui.widgets.phase_timeline import PhaseBadge


async def test_marathon_phase_locked_then_revealed_with_its_briefing(rig):
    rig.start("a-1", "marathon")
    app = rig.app()
    async with app.run_test(size=(140, 45)) as pilot:
        app.tick(full=True)
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        badges = list(app.screen.query(PhaseBadge))
        assert [b.has_class("-locked") for b in badges] == [False, True, True, True]
        assert "(locked)" in str(badges[1].render())
        briefing = app.screen.query_one("#phase-briefing")
        assert not briefing.display or briefing.has_class("-empty")

        rig.time.set(1300)
        S.reveal(rig.bus, "a-1", 2, 1300)
        app.tick()
        await pilot.pause()
        assert [b.has_class("-locked") for b in badges] == [False, False, True, True]
        assert badges[1].has_class("-revealed")
        assert "(locked)" not in str(badges[1].render())
        assert not briefing.has_class("-empty")
        assert "Phase 2: extend the store with extension support." in str(briefing.render())
        assert [n.message for n in app._notifications][-1] == "Phase 2 revealed: extension"


async def test_no_timeline_for_formats_without_phases(rig):
    rig.start("a-1", "standard")
    app = rig.app()
    async with app.run_test(size=(120, 40)) as pilot:
        app.tick(full=True)
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen.query_one("#phases").display is False
