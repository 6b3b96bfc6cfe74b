"""The event bus: one in-process fan-out of attempt events.

Producers call ``publish`` (sync, cheap, never blocks). Subscribers are plain
callables invoked in order; a subscriber that raises is reported and dropped, never
allowed to take the attempt down. The store, the live screens and the headless
printer all subscribe to the same bus; replay re-publishes stored events through it.
"""

from __future__ import annotations

import itertools
import logging
from collections import defaultdict
from typing import Callable

from arena.events import Event

log = logging.getLogger(__name__)

Subscriber = Callable[[Event], None]


class EventBus:
    def __init__(self) -> None:
        self._subs: list[Subscriber] = []
        self._seq: dict[str, itertools.count] = defaultdict(lambda: itertools.count(1))

    def subscribe(self, fn: Subscriber) -> Callable[[], None]:
        self._subs.append(fn)

        def unsubscribe() -> None:
            if fn in self._subs:
                self._subs.remove(fn)

        return unsubscribe

    def start_seq(self, attempt: str, after: int) -> None:
        """Continue an attempt's sequence after ``after`` (used when resuming)."""
        self._seq[attempt] = itertools.count(after + 1)

    def publish(self, attempt: str, t: float, kind: str, data: dict | None = None) -> Event:
        ev = Event(attempt=attempt, t=t, kind=kind, data=data or {}, seq=next(self._seq[attempt]))
        self.deliver(ev)
        return ev

    def deliver(self, ev: Event) -> None:
        """Hand an already-built event (e.g. replayed from the store) to subscribers."""
        for fn in list(self._subs):
            try:
                fn(ev)
            except Exception:  # a broken screen must not stop an attempt
                log.exception("event subscriber failed; unsubscribing it")
                self._subs.remove(fn)
