"""The attempt store: the only code in Gauntlet that speaks SQL.

``await Store.open(path)`` → append-only event log plus derived tables (runs, attempts,
submissions, feedback, agents, challenges). See ``docs/store.md``.
"""

from store.errors import StoreError, StoreWriteError
from store.schema import SCHEMA_VERSION, STATUSES
from store.store import Store, new_attempt_id, new_run_id

__all__ = ["Store", "StoreError", "StoreWriteError", "SCHEMA_VERSION", "STATUSES", "new_attempt_id", "new_run_id"]
