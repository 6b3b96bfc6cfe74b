"""What the commands reading stored attempts share (``judge``, ``report``, ``compare``):
the store read with its failures as one line (an unknown attempt says so; any other
failure names ``--store``), and a report's ``--out`` path checked before any work."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Coroutine, TypeVar

from arena.errors import UsageError

STORE_HELP = "store file (default $GAUNTLET_STORE or ./gauntlet.db)"
T = TypeVar("T")


def read_store(store: Path, work: Coroutine[Any, Any, T]) -> T:
    """Run ``work`` (a read of ``store``); an attempt not found or a store that cannot be
    read is a usage error of one line."""
    from arena.scoring.load import NotFound  # noqa: PLC0415

    try:
        return asyncio.run(work)
    except NotFound as exc:
        raise UsageError(str(exc)) from None
    except Exception as exc:  # noqa: BLE001 - a store that cannot be read: one line
        raise UsageError(f"--store {store}: cannot read the store: {exc}") from None


def report_path(raw: str) -> Path:
    """``--out FILE``: a file ending .html or .md in a directory that exists."""
    out = Path(raw)
    suffix = out.suffix.lower()
    if suffix not in (".html", ".htm", ".md", ".markdown"):
        raise UsageError(f"--out {out}: expected a file ending .html or .md, got {suffix or 'no suffix'!r}")
    if out.is_dir():
        raise UsageError(f"--out {out}: is a directory, expected a file")
    if not out.parent.exists():
        raise UsageError(f"--out {out}: directory {out.parent} does not exist")
    return out
