"""An attempt's model usage (CONTRACT §8): ``arena.usage``, the one implementation that
``show``, ``judge``, the screens and the transcript all read (kept importable from here)."""

from __future__ import annotations

from arena.usage import ModelUsage, usage_from_events, usage_of

__all__ = ["ModelUsage", "usage_from_events", "usage_of"]
