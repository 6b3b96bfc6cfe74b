"""A real ``gauntlet run`` of off-by-one by scripted:elite in another process, headless, on
the local sandbox, writing to a given store: what the follower tests watch from the TUI."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


async def headless_run(db: Path, scale: float, env: dict[str, str] | None = None, stderr: int | None = None):
    """Start the run (``--time-scale scale``, ``--store db``, cwd the store's folder)."""
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "gauntlet_tui",
        "run",
        "off-by-one",
        "--agent",
        "scripted:elite",
        "--headless",
        "--sandbox",
        "local",
        "--time-scale",
        f"{scale:g}",
        "--store",
        str(db),
        cwd=str(db.parent),
        env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE if stderr is None else stderr,
    )
