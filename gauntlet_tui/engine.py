"""The thin adapter between the engine and the screens.

The engine publishes events on an ``EventBus`` (possibly from another thread). The
adapter's subscriber only appends each event to a per-attempt buffer under a lock —
cheap, never touching a widget. The app's refresh timer calls ``flush()`` a few times a
second: the buffered events are folded into one ``AttemptView`` per attempt, and the
ids of the attempts that changed are returned for the screens to redraw. No rule,
score or SQL lives here: the views come from ``arena.view``, the runner does the rest.

An attempt running on a cluster node has no clock here: ``follow_clock`` gives it one
that reads the latest event's attempt time, advanced at the attempt's time scale since
that event arrived. ``cluster`` holds the latest plain ``ClusterSnapshot`` (nodes and
their slots) a poller put there, for the dashboard's cluster line.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from typing import Any, Callable

from arena.bus import EventBus
from arena.events import Event
from arena.view import AttemptView

Elapsed = Callable[[], float]


def attempt_elapsed(attempt: Any) -> Elapsed:
    """The elapsed-time callable of a live ``arena.attempt.Attempt`` (read from its clock
    at each call)."""
    return lambda: attempt.clock.elapsed()


# Events the dashboard announces as toasts (for this process's live attempts only).
ALERT_KINDS = frozenset(
    {"clock.soft_warning", "clock.hard_warning", "clock.cutoff", "clock.grace_end", "phase.revealed", "infra.error"}
)


class EngineAdapter:
    def __init__(
        self, bus: EventBus | None = None, *, activity_size: int = 200, now: Callable[[], float] = time.monotonic
    ) -> None:
        self.bus = bus or EventBus()
        self.now = now  # real seconds, for the clocks of attempts followed by their events
        self.activity_size = activity_size
        self.views: dict[str, AttemptView] = {}
        self.order: list[str] = []  # attempt ids in the order first seen
        self._clocks: dict[str, Elapsed] = {}
        self._handles: dict[str, Any] = {}  # runner objects of live attempts (stop/submit)
        self._pending: dict[str, list[Event]] = defaultdict(list)
        self.alerts: list[Event] = []  # ALERT_KINDS events of live attempts, drained by the app
        self._arrived: dict[str, tuple[float, float]] = {}  # followed attempt -> (latest t, arrival)
        self.has_nodes = False  # some attempt ran on a cluster node (the dashboard's Node column)
        self.cluster: Any = None  # the latest arena.cluster.status.ClusterSnapshot, if any
        self.newest_heat: str = ""  # the run of the store's newest attempt (follow.py notes it)
        self._lock = threading.Lock()
        self._unsubscribe = self.bus.subscribe(self._on_event)

    # -- engine side (any thread) ---------------------------------------------------
    def _on_event(self, ev: Event) -> None:
        with self._lock:
            self._pending[ev.attempt].append(ev)
            seen = self._arrived.get(ev.attempt)
            if seen is not None and ev.t >= seen[0]:
                self._arrived[ev.attempt] = (ev.t, self.now())

    def feed(self, ev: Event) -> None:
        """Show an event read from the store (another process's attempt). It goes to the
        screens only, never onto the bus: the bus is what this process's own store writer
        subscribes to, and a stored event written again is refused (UNIQUE seq)."""
        self._on_event(ev)

    # -- UI side ---------------------------------------------------------------------
    def flush(self) -> set[str]:
        """Fold buffered events into views; returns the ids of attempts that changed."""
        with self._lock:
            pending, self._pending = self._pending, defaultdict(list)
        for attempt, events in pending.items():
            view = self.views.get(attempt)
            if view is None:
                view = self.views[attempt] = AttemptView(attempt=attempt, activity_size=self.activity_size)
                self.order.append(attempt)
            live = attempt in self._clocks
            for ev in events:
                view.apply(ev)
                if live and ev.kind in ALERT_KINDS:
                    self.alerts.append(ev)
            self.has_nodes = self.has_nodes or bool(view.node)
        del self.alerts[:-50]  # a burst is summarised, never queued for minutes
        return set(pending)

    def drain_alerts(self) -> list[Event]:
        alerts, self.alerts = self.alerts, []
        return alerts

    def add_view(self, view: AttemptView) -> None:
        """Show an attempt known from the store (not live)."""
        if view.attempt not in self.views:
            self.order.append(view.attempt)
        self.views[view.attempt] = view
        self.has_nodes = self.has_nodes or bool(view.node)

    def reset(self, attempt: str) -> None:
        """Forget an attempt's state (replay seeking backwards re-delivers from the start)."""
        with self._lock:
            self._pending.pop(attempt, None)
        self.views[attempt] = AttemptView(attempt=attempt, activity_size=self.activity_size)
        if attempt not in self.order:
            self.order.append(attempt)

    def forget(self, attempt: str) -> None:
        """Drop an attempt removed from the store (``gauntlet attempts rm``, the attempts screen)."""
        with self._lock:
            self._pending.pop(attempt, None)
        self.views.pop(attempt, None)
        if attempt in self.order:
            self.order.remove(attempt)
        self._clocks.pop(attempt, None)
        self._handles.pop(attempt, None)

    def attach_clock(self, attempt: str, elapsed: Elapsed) -> None:
        """The live elapsed-time callable of an attempt (its AttemptClock, or replay's)."""
        self._clocks[attempt] = elapsed

    def follow_clock(self, attempt: str, scale: float) -> None:
        """The live clock of an attempt that runs elsewhere (a cluster node): the attempt
        time of its latest event, plus the real seconds since that event arrived times
        ``scale``. 0 until its first event comes."""
        with self._lock:
            self._arrived.setdefault(attempt, (-1.0, self.now()))

        def elapsed() -> float:
            t, at = self._arrived.get(attempt, (-1.0, 0.0))
            return 0.0 if t < 0 else t + max(0.0, self.now() - at) * scale

        self._clocks[attempt] = elapsed

    def attach_handle(self, attempt: str, handle: Any) -> None:
        self._handles[attempt] = handle

    def handle(self, attempt: str) -> Any:
        return self._handles.get(attempt)

    def elapsed(self, attempt: str) -> float:
        """Attempt seconds now: the live clock while running, the last event once over."""
        view = self.views.get(attempt)
        clock = self._clocks.get(attempt)
        if view is not None and (view.finished or clock is None):
            return view.elapsed_s
        if clock is None:
            return 0.0
        return max(clock(), view.elapsed_s if view else 0.0)

    def is_live(self, attempt: str) -> bool:
        view = self.views.get(attempt)
        return attempt in self._clocks and view is not None and not view.finished

    def close(self) -> None:
        self._unsubscribe()
