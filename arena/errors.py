"""Errors shared across the engine and the front end.

``UsageError`` is bad input from the user (a file, key or argument): the command line
prints it as one clear line and exits 2. It lives in the engine because agents, plans and
challenges raise it while parsing what the user gave; the front end only catches it.
"""

from __future__ import annotations


class UsageError(Exception):
    """Bad input from the user: printed as one clear line, exit code 2."""
