"""The attempt clock over an injected time source.

Nothing in the engine reads the wall clock directly: it asks an ``AttemptClock``,
which reads a ``TimeSource``. ``RealTime`` is the machine's monotonic clock,
``ManualTime`` is stepped by tests. A clock's ``scale`` speeds an attempt up (a demo
runs a 15-minute Sprint in 30 s with ``scale=30``): attempt seconds = source seconds
x scale. The clock never pauses (seed 000: it runs through feedback and iteration
boundaries). A clock with a ``deadline`` (the demo's) reaches its grace end by that
source instant whatever judging cost: real-speed judging is repaid by running faster
afterwards (``AttemptClock.unscaled``).
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Awaitable, Callable, Iterable, Iterator, Protocol

from arena.formats import FormatRules


class TimeSource(Protocol):
    def now(self) -> float: ...

    async def sleep_until(self, t: float) -> None: ...


class RealTime:
    """The machine's monotonic clock."""

    def now(self) -> float:
        return time.monotonic()

    async def sleep_until(self, t: float) -> None:
        delay = t - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)


class ManualTime:
    """A clock that moves only when told to. Sleepers wake when ``advance`` passes them."""

    def __init__(self, start: float = 0.0) -> None:
        self._now = start
        self._sleepers: list[tuple[float, int, asyncio.Future[None]]] = []
        self._seq = itertools.count()

    def now(self) -> float:
        return self._now

    async def sleep_until(self, t: float) -> None:
        if t <= self._now:
            return
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._sleepers, (t, next(self._seq), fut))
        await fut

    def set(self, t: float) -> None:
        if t < self._now:
            raise ValueError("manual time cannot go backwards")
        self._now = t
        while self._sleepers and self._sleepers[0][0] <= self._now:
            _, _, fut = heapq.heappop(self._sleepers)
            if not fut.done():
                fut.set_result(None)

    def advance(self, dt: float) -> None:
        self.set(self._now + dt)

    async def step(self, dt: float, settle: int = 20) -> None:
        """Advance and let woken tasks run (a few loop turns, no real sleeping)."""
        self.advance(dt)
        for _ in range(settle):
            await asyncio.sleep(0)


# Instants closer than this (attempt seconds) are the same instant: float rounding of
# the scaled time must neither fire a mark early nor leave a sleeper spinning.
_EPS = 1e-9

# Kinds of marks the clock emits (CONTRACT §5 event kinds).
SOFT = "clock.soft_warning"
HARD = "clock.hard_warning"
CUTOFF = "clock.cutoff"
GRACE_END = "clock.grace_end"
REVEAL = "phase.reveal_due"  # the attempt decides whether the phase really opens

# A deadline clock honours real-speed judging only while catching up afterwards needs at
# most this many times its scale (``AttemptClock.unscaled``).
CATCH_UP = 3.0
_LATE_S = 0.05  # source seconds a clock past its deadline takes to reach its grace end


@dataclass(frozen=True, order=True)
class Mark:
    t: float  # attempt seconds
    order: int
    kind: str = field(compare=False)
    phase: int | None = field(default=None, compare=False)  # for REVEAL: phase number 2..4


def marks_for(rules: FormatRules, time_limit_s: float, reveal_at: Iterable[float] | None = None) -> list[Mark]:
    """Every instant the clock announces, in order. ``reveal_at`` overrides the
    format's Marathon reveal marks (fractions of the time limit, phase 2 first)."""
    marks = [
        Mark(rules.soft_warning * time_limit_s, 10, SOFT),
        Mark(rules.hard_warning * time_limit_s, 20, HARD),
        Mark(rules.cutoff * time_limit_s, 30, CUTOFF),
        Mark(rules.cutoff * time_limit_s + rules.grace_s, 40, GRACE_END),
    ]
    fractions = list(reveal_at) if reveal_at is not None else list(rules.reveal_marks)
    for i, frac in enumerate(fractions):
        marks.append(Mark(frac * time_limit_s, 5, REVEAL, phase=i + 2))
    return sorted(marks)


class AttemptClock:
    def __init__(
        self,
        source: TimeSource,
        rules: FormatRules,
        time_limit_s: float,
        *,
        scale: float = 1.0,
        reveal_at: Iterable[float] | None = None,
        elapsed_at_start: float = 0.0,
        deadline: float | None = None,
        catch_up: float = CATCH_UP,
    ) -> None:
        if scale <= 0:
            raise ValueError("time scale must be positive")
        if catch_up < 1:
            raise ValueError("catch_up must be at least 1")
        self.source = source
        self.rules = rules
        self.time_limit_s = float(time_limit_s)
        self.scale = float(scale)
        # Attempt time advances in segments: from ``_anchor`` (source time) at
        # ``_rate`` attempt-seconds per source second, starting from ``_offset``.
        # With a deadline, a segment may change rate at a planned instant, ``_switch_at``
        # (source time), to ``_switch_rate`` (see ``unscaled``).
        self._anchor = source.now()
        self._offset = float(elapsed_at_start)
        self._rate = self.scale
        self._switch_at: float | None = None
        self._switch_rate = self.scale
        self._past: list[tuple[float, float, float]] = []  # (source, attempt time, rate) of ended stretches
        self._unscaled_depth = 0
        self._slowed = False
        self._rate_changed: asyncio.Event | None = None
        self.marks = marks_for(rules, self.time_limit_s, reveal_at)
        self._fired = 0
        self.deadline = deadline
        self.catch_up = float(catch_up)
        self._rate = self._planned_rate(self._anchor)

    # -- reading -----------------------------------------------------------------
    def elapsed(self) -> float:
        return self._elapsed_at(self.source.now())

    def _elapsed_at(self, now: float) -> float:
        sw = self._switch_at
        if sw is not None and now > sw:
            return self._offset + (sw - self._anchor) * self._rate + (now - sw) * self._switch_rate
        return self._offset + (now - self._anchor) * self._rate

    @property
    def rate(self) -> float:
        """Attempt seconds per source second right now (``scale``, 1 while unscaled, more
        while a deadline clock catches up)."""
        sw = self._switch_at
        return self._switch_rate if sw is not None and self.source.now() > sw else self._rate

    def _planned_rate(self, now: float) -> float:
        """The rate of a scaled stretch from now: ``scale``, or with a deadline whatever
        more it takes to reach the grace end by then (a clock already at or past its
        deadline gets there within ``_LATE_S``, never by dividing by zero)."""
        if self.deadline is None:
            return self.scale
        left = self.grace_end_s - self._elapsed_at(now)
        return max(self.scale, left / max(self.deadline - now, _LATE_S))

    def _set_rate(self, rate: float | None) -> None:
        """A new stretch from now at ``rate`` (None: the planned rate), both read at one
        instant of the source, so a deadline stretch ends exactly on the deadline."""
        now = self.source.now()
        elapsed = self._elapsed_at(now)
        if rate is None:
            rate = self._planned_rate(now)
        self._past.append((self._anchor, self._offset, self._rate))
        sw = self._switch_at
        if sw is not None and now > sw:
            self._past.append((sw, self._offset + (sw - self._anchor) * self._rate, self._switch_rate))
        self._offset = elapsed
        self._anchor = now
        self._rate = rate
        self._switch_at = None
        if self._rate_changed is not None:
            self._rate_changed.set()
            self._rate_changed = None

    @contextmanager
    def unscaled(self) -> Iterator[None]:
        """Run infrastructure work (judging) at real speed in a sped-up attempt.

        The clock keeps running (seed 000: it never pauses), but a judge run that takes
        2 real seconds costs 2 attempt seconds, not 2 x scale: a demo at 60x must not
        lose two minutes of its attempt to sandbox latency. At scale <= 1 nothing changes.

        With a ``deadline`` the attempt still ends on time: afterwards the clock runs as
        fast as it must to reach the grace end by the deadline. Real speed lasts only while
        that catch-up stays within ``catch_up`` x scale; past that instant (planned here,
        ``_switch_at``) the section runs at ``catch_up`` x scale, so the warnings, cutoff
        and grace are never squeezed into an instant.
        """
        self._unscaled_depth += 1
        if self._unscaled_depth == 1 and self.scale > 1.0:
            self._slowed = True
            self._slow_down()
        try:
            yield
        finally:
            self._unscaled_depth -= 1
            if self._unscaled_depth == 0 and self._slowed:
                self._slowed = False
                self._set_rate(None)

    def _slow_down(self) -> None:
        if self.deadline is None:
            self._set_rate(1.0)
            return
        cap = self.catch_up * self.scale
        self._set_rate(None)  # re-anchored now: the planned stretch reaches the deadline
        left = self.grace_end_s - self._offset
        wall = self.deadline - self._anchor
        if cap <= 1.0 or left <= 0 or left >= cap * wall:
            return  # no room left: judging is charged at the running rate
        # At rate 1 from now, the catch-up needed reaches ``cap`` at source time ``at``:
        # left - (at - now) = cap * (deadline - at).
        at = self._anchor + (cap * wall - left) / (cap - 1.0)
        self._rate = 1.0
        self._switch_at, self._switch_rate = at, cap

    def remaining(self) -> float:
        return max(0.0, self.cutoff_s - self.elapsed())

    def fraction(self) -> float:
        return self.elapsed() / self.time_limit_s

    @property
    def cutoff_s(self) -> float:
        return self.rules.cutoff * self.time_limit_s

    @property
    def grace_end_s(self) -> float:
        return self.cutoff_s + self.rules.grace_s

    def stage(self, at: float | None = None) -> str:
        """``running`` before cutoff, ``grace`` inside the grace period, ``over`` after."""
        t = self.elapsed() if at is None else at
        if t < self.cutoff_s:
            return "running"
        if t < self.grace_end_s:
            return "grace"
        return "over"

    # -- waiting -----------------------------------------------------------------
    def source_time(self, attempt_t: float) -> float:
        """When, on the source, attempt time reaches ``attempt_t`` at the current rate(s)."""
        sw = self._switch_at
        if sw is not None:
            at_switch = self._offset + (sw - self._anchor) * self._rate
            if attempt_t > at_switch:
                return sw + (attempt_t - at_switch) / self._switch_rate
        return self._anchor + (attempt_t - self._offset) / self._rate

    def stretches(self) -> list[tuple[float, float, float]]:
        """``(source instant, attempt time, rate)`` where each stretch of constant rate
        began, oldest first, the current one (and a planned switch already passed) last."""
        out = [*self._past, (self._anchor, self._offset, self._rate)]
        sw = self._switch_at
        if sw is not None and self.source.now() > sw:
            out.append((sw, self._offset + (sw - self._anchor) * self._rate, self._switch_rate))
        return out

    def when(self, attempt_t: float) -> float:
        """The source instant attempt time ``attempt_t`` was reached (or, ahead, will be at
        the current rate(s)): exact, from the clock's own stretches, not a measurement."""
        if attempt_t >= self._offset:
            return self.source_time(attempt_t)
        for start, at, rate in reversed(self._past):
            if at <= attempt_t:
                return start + (attempt_t - at) / rate
        return self._past[0][0] if self._past else self._anchor

    async def sleep_until(self, attempt_t: float) -> None:
        # Re-plan whenever the rate changes (entering or leaving an unscaled section).
        while self.elapsed() < attempt_t - _EPS:
            if self._rate_changed is None:
                self._rate_changed = asyncio.Event()
            changed = self._rate_changed
            sleeper = asyncio.ensure_future(self.source.sleep_until(self.source_time(attempt_t)))
            waiter = asyncio.ensure_future(changed.wait())
            try:
                await asyncio.wait({sleeper, waiter}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for fut in (sleeper, waiter):
                    if not fut.done():
                        fut.cancel()

    async def sleep(self, attempt_seconds: float) -> None:
        await self.sleep_until(self.elapsed() + attempt_seconds)

    def due(self) -> list[Mark]:
        """Marks whose instant has passed and that were not yet handed out."""
        now = self.elapsed()
        out: list[Mark] = []
        while self._fired < len(self.marks) and self.marks[self._fired].t <= now + _EPS:
            out.append(self.marks[self._fired])
            self._fired += 1
        return out

    def skip_past(self, attempt_t: float) -> None:
        """Mark everything up to ``attempt_t`` as already fired (used on resume)."""
        while self._fired < len(self.marks) and self.marks[self._fired].t <= attempt_t:
            self._fired += 1

    async def run(self, on_mark: Callable[[Mark], Awaitable[None] | None]) -> None:
        """Announce every mark at its instant, in order, then return after grace end."""
        while self._fired < len(self.marks):
            nxt = self.marks[self._fired]
            await self.sleep_until(nxt.t)
            marks = self.due()
            if not marks:  # woke a hair early: yield, never spin
                await asyncio.sleep(0)
            for mark in marks:
                result = on_mark(mark)
                if asyncio.iscoroutine(result):
                    await result
