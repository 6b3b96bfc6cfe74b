"""Telemetry: typed events and the watchers that produce them."""

from arena.events import Event, KINDS

__all__ = ["Event", "KINDS"]
