"""What a sandbox tells the observer about itself (``Sandbox.observe_target()``); the
type is part of the sandbox protocol (``arena/sandbox/base.py``)."""

from __future__ import annotations

from arena.sandbox.base import ObserveTarget

__all__ = ["ObserveTarget"]
