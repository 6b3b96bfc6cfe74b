"""What building an agent's tree needs from the host, shared by build.py (the wheel trees)
and trixie.py (the trees with their own Python 3.13): running one build step and the
modes a finished tree is mounted with. Imports nothing of arena.adapters."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Callable

from arena.sandbox.base import SandboxError

Log = Callable[[str], None]


def run_step(cmd: list[str], what: str, log: Log) -> None:
    """Run one build command; a failure is a SandboxError naming ``what`` and the tail of
    its output."""
    log("running: " + " ".join(cmd[:6]) + (" ..." if len(cmd) > 6 else ""))
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        tail = (p.stderr or p.stdout).strip().splitlines()[-6:]
        raise SandboxError(f"{what} failed (exit {p.returncode}): " + " | ".join(tail))


def normalise_modes(root: Path) -> None:
    """Owned by root, readable by everyone, writable by no one else (mounted read-only)."""
    for d, _dirs, files in os.walk(root):
        os.chmod(d, 0o755)
        for f in files:
            p = os.path.join(d, f)
            if not os.path.islink(p):
                os.chmod(p, 0o755 if os.access(p, os.X_OK) else 0o644)
