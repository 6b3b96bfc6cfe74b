"""Telemetry: typed events and the watchers that produce them."""
from arena.telemetry.events import Event, KINDS

__all__ = ["Event", "KINDS"]
