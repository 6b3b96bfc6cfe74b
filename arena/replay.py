"""Replay: re-publish a stored attempt's events onto a bus on a scaled clock.

The replay clock reads an injected ``TimeSource`` (``RealTime`` for people,
``ManualTime`` for tests): replay position (attempt seconds) = anchor position +
(source seconds since anchor) x speed, frozen while paused. ``pump()`` delivers every
event whose time has come; ``run()`` pumps at each event's instant until the end.
Seeking forward delivers the skipped events at once; seeking backward calls the
``on_reset`` callbacks (subscribers start from a blank view) and re-delivers from the
start, so whatever a subscriber shows is always the fold of events up to the position.
"""

from __future__ import annotations

import asyncio
from typing import Callable, Iterable

from arena.bus import EventBus
from arena.clock import TimeSource
from arena.events import Event


class Replay:
    def __init__(
        self,
        events: Iterable[Event],
        bus: EventBus,
        source: TimeSource,
        *,
        speed: float = 1.0,
    ) -> None:
        if speed <= 0:
            raise ValueError(f"replay speed must be positive, got {speed}")
        self.events = sorted(events, key=lambda e: (e.t, e.seq))
        self.bus = bus
        self.source = source
        self.speed = float(speed)
        self.paused = False
        self._next = 0  # index of the next event to deliver
        self._anchor_pos = 0.0
        self._anchor_src = source.now()
        self._changed: asyncio.Event | None = None
        self._reset_callbacks: list[Callable[[], None]] = []

    # -- the replay clock ---------------------------------------------------------
    @property
    def end(self) -> float:
        return self.events[-1].t if self.events else 0.0

    def position(self) -> float:
        """Attempt seconds at the replay's current instant (never past the end)."""
        if self.paused:
            pos = self._anchor_pos
        else:
            pos = self._anchor_pos + (self.source.now() - self._anchor_src) * self.speed
        return min(pos, self.end)

    elapsed = position  # the callable a live clock widget reads

    @property
    def done(self) -> bool:
        return self._next >= len(self.events)

    def _reanchor(self, pos: float) -> None:
        self._anchor_pos = max(0.0, min(pos, self.end))
        self._anchor_src = self.source.now()
        if self._changed is not None:
            self._changed.set()

    # -- control -----------------------------------------------------------------
    def on_reset(self, fn: Callable[[], None]) -> None:
        self._reset_callbacks.append(fn)

    def pause(self) -> None:
        if not self.paused:
            self._reanchor(self.position())
            self.paused = True

    def resume(self) -> None:
        if self.paused:
            self.paused = False
            self._reanchor(self._anchor_pos)

    def toggle_pause(self) -> bool:
        self.resume() if self.paused else self.pause()
        return self.paused

    def set_speed(self, speed: float) -> None:
        if speed <= 0:
            raise ValueError(f"replay speed must be positive, got {speed}")
        self._reanchor(self.position())
        self.speed = float(speed)

    def seek(self, pos: float) -> int:
        """Jump to attempt second ``pos``; returns how many events were delivered."""
        pos = max(0.0, min(pos, self.end))
        delivered_to = self.events[self._next - 1].t if self._next else -1.0
        if pos < delivered_to:
            for fn in list(self._reset_callbacks):
                fn()
            self._next = 0
        self._reanchor(pos)
        return self.pump()

    # -- delivery ----------------------------------------------------------------
    def pump(self) -> int:
        """Deliver every event due at the current position."""
        pos = self.position()
        n = 0
        while self._next < len(self.events) and self.events[self._next].t <= pos + 1e-9:
            self.bus.deliver(self.events[self._next])
            self._next += 1
            n += 1
        return n

    def next_due(self) -> float | None:
        """Source time at which the next event is due (None when paused or done)."""
        if self.done or self.paused:
            return None
        wait = (self.events[self._next].t - self._anchor_pos) / self.speed
        return self._anchor_src + max(0.0, wait)

    async def run(self) -> None:
        """Deliver every event at its instant until the end; control calls wake it."""
        self._changed = asyncio.Event()
        try:
            while True:
                self.pump()
                if self.done:
                    return
                self._changed.clear()
                due = self.next_due()
                waiters: list[asyncio.Future[object]] = [asyncio.ensure_future(self._changed.wait())]
                if due is not None:
                    waiters.append(asyncio.ensure_future(self.source.sleep_until(due)))
                try:
                    await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
                finally:
                    for w in waiters:
                        w.cancel()
        finally:
            self._changed = None
