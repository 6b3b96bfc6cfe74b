"""Errors the store raises. All carry a one-line message naming the store file."""

from __future__ import annotations


class StoreError(Exception):
    """The store cannot be opened or used (bad file, newer schema, closed)."""


class StoreWriteError(StoreError):
    """Events appended before a ``flush()`` could not be committed.

    ``rejected`` lists events the database refused outright (e.g. a duplicate
    ``(attempt, seq)``); events that failed for a transient reason (database locked,
    disk full) stay queued and are retried, so a later ``flush()`` may succeed.
    """

    def __init__(self, message: str, rejected: list | None = None) -> None:
        super().__init__(message)
        self.rejected = list(rejected or [])
