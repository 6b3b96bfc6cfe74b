"""Live attempts: ``Attempt`` (one attempt end to end) and ``Arena`` (many at once,
sharing one bus, store, judge pool, sandbox backend and workspace watcher)."""

from arena.attempt.arena import Arena
from arena.attempt.core import Attempt, new_attempt_id
from arena.attempt.shared import Shared

__all__ = ["Arena", "Attempt", "Shared", "new_attempt_id"]
