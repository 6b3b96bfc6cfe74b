"""The machine's build cache directory (``$GAUNTLET_CACHE``, default ``~/.cache/gauntlet``):
rootfs tarballs, agent wheel trees, build locks and times, judged starters."""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    d = Path(os.environ.get("GAUNTLET_CACHE", Path.home() / ".cache" / "gauntlet"))
    d.mkdir(parents=True, exist_ok=True)
    return d


__all__ = ["cache_dir"]
