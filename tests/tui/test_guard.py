"""gauntlet_tui.guard: a worker or a pop-up screen that raises is reported (a
notification and tui.log) and the room goes on; an error the app cannot go on from
ends it with status 1, never 0."""

from __future__ import annotations

from textual.screen import ModalScreen
from textual.widgets import Static

from gauntlet_tui.guard import log_path


class Broken(ModalScreen[None]):
    def compose(self):
        yield Static("about to break")

    def on_mount(self) -> None:
        self.set_timer(0.01, self._boom)

    def _boom(self) -> None:
        raise RuntimeError("a broken pop-up")


async def test_worker_and_popup_errors_are_reported_and_the_room_goes_on(rig):
    rig.start("a-00000001", "sprint")
    app = rig.app()

    async def bad_worker() -> None:
        raise ValueError("a broken worker")

    async with app.run_test(size=(120, 40)) as pilot:
        app.run_worker(bad_worker())
        await pilot.pause(0.1)
        app.push_screen(Broken())
        await pilot.pause(0.3)
        assert app.is_running and app._exception is None
        assert type(app.screen).__name__ == "HomeScreen"  # the broken pop-up was closed
        assert [e.split(":")[0] for e in app.guard.errors] == ["a background task", "Broken"]
        shown = [n.message for n in app._notifications]
        assert any("a broken worker" in m for m in shown) and any("a broken pop-up" in m for m in shown)
        rig.time.advance(60)
        app.tick()  # the room still draws
        await pilot.pause()
    log = log_path().read_text()
    assert "ValueError: a broken worker" in log and "RuntimeError: a broken pop-up" in log


async def test_an_error_in_the_app_itself_exits_non_zero_and_is_logged(rig):
    rig.start("a-00000001", "sprint")
    app = rig.app()

    def boom() -> None:
        raise RuntimeError("the app's own timer broke")

    try:
        async with app.run_test(size=(120, 40)) as pilot:
            app.set_timer(0.01, boom)
            await pilot.pause(0.3)
    except RuntimeError as exc:  # run_test re-raises the app's fatal error for the test
        assert "own timer broke" in str(exc)
    assert app.return_code == 1
    assert "the app (fatal)" in log_path().read_text()
