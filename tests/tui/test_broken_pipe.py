"""`gauntlet judge ... | head`: a reader that leaves early ends the command quietly
(status 141, no BrokenPipe traceback), for every command (the guard is in main())."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_a_reader_that_leaves_early_gets_no_traceback(tmp_path):
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader has gone before anything is written
    proc = subprocess.run(
        [sys.executable, "-m", "gauntlet_tui", "challenge", "validate", "off-by-one"],
        cwd=ROOT,
        stdout=write_end,
        stderr=subprocess.PIPE,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    os.close(write_end)
    assert proc.returncode == 141, proc.stderr.decode()
    assert b"Traceback" not in proc.stderr and b"BrokenPipe" not in proc.stderr
