"""Replay: the same attempt view, fed by ``arena.replay.Replay`` on its own bus and
adapter, with speed, pause and seek. Its timer pumps the replay and redraws."""

from __future__ import annotations

from textual.widgets import Static

from arena.bus import EventBus
from arena.clock import RealTime, TimeSource
from arena.replay import Replay
from arena.events import Event
from gauntlet_tui import keys
from gauntlet_tui.engine import EngineAdapter
from gauntlet_tui.screens.attempt import AttemptScreen
from textual.binding import Binding


class ReplayScreen(AttemptScreen):
    BINDINGS = [
        keys.BACK,
        keys.PREV,
        keys.NEXT,
        Binding("space,p", "pause", "Pause", id="replay-pause", tooltip="Pause or resume the replay"),
        keys.SPEED_UP,
        keys.SLOW_DOWN,
        keys.SEEK_BACK,
        keys.SEEK_FWD,
    ]
    DEFAULT_CSS = """
    ReplayScreen #replay-bar { height: 1; background: $secondary; color: $background; padding: 0 1; }
    """

    def __init__(
        self,
        events: list[Event],
        *,
        speed: float = 1.0,
        source: TimeSource | None = None,
        timer_hz: float | None = 10.0,
    ) -> None:
        bus = EventBus()
        adapter = EngineAdapter(bus)
        attempt = events[0].attempt if events else "?"
        super().__init__(adapter, attempt)
        self.replay = Replay(events, bus, source or RealTime(), speed=speed)
        self.replay.on_reset(lambda: adapter.reset(attempt))
        adapter.attach_clock(attempt, self.replay.position)
        self.timer_hz = timer_hz

    def compose(self):  # noqa: ANN201
        yield Static("", id="replay-bar")
        yield from super().compose()

    def on_mount(self) -> None:
        self.replay.pump()
        self.adapter.flush()
        super().on_mount()
        if self.timer_hz:
            self.set_interval(1 / self.timer_hz, self.step, name="replay")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return action not in ("shell", "submit")

    def _first_draw(self) -> None:
        super()._first_draw()
        self._draw_bar()

    def step(self) -> None:
        """Deliver due events, fold them, redraw (the screen's timer, or a test)."""
        self.replay.pump()
        self.adapter.flush()
        super().refresh_view()
        self._draw_bar()

    def refresh_view(self) -> None:  # the app's tick: the replay has its own timer
        return

    def _draw_bar(self) -> None:
        r = self.replay
        state = "PAUSED" if r.paused else ("END" if r.done else "playing")
        self.query_one("#replay-bar", Static).update(
            f"REPLAY {self.attempt_id} · {state} · {r.position():.0f}s / {r.end:.0f}s · speed ×{r.speed:g}"
            "  (space pause, +/- speed, ←/→ seek)"
        )

    def action_pause(self) -> None:
        paused = self.replay.toggle_pause()
        self.notify("replay paused" if paused else "replay resumed", timeout=2)
        self._draw_bar()

    def action_speed(self, factor: float) -> None:
        self.replay.set_speed(min(1000.0, max(0.125, self.replay.speed * factor)))
        self._draw_bar()

    def action_seek(self, delta: float) -> None:
        self.replay.seek(self.replay.position() + delta)
        self.step()
