"""Issue 39 item 1, as a new user meets it: `pip install .` into a fresh virtual environment,
no extras (what scripts/install.sh does), then `gauntlet challenge generate` from another
directory with a relative --out. Before, every template was rejected with "sampling stopped:
IndexError" (pytest came only with the test extra, and gate 2 sampled a relative path from a
scratch directory). About two minutes here: pip installs the runtime dependencies from its
cache or the package index."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_generate_works_from_a_plain_install_in_a_fresh_venv(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    pip = subprocess.run(
        [str(venv / "bin" / "pip"), "install", "-q", "--disable-pip-version-check", str(ROOT)],
        capture_output=True,
        text=True,
        timeout=780,
    )
    assert pip.returncode == 0, pip.stderr[-3000:]
    extras = subprocess.run([str(venv / "bin" / "python"), "-c", "import xdist"], capture_output=True)
    assert extras.returncode != 0, "the test extra is not part of a plain install"
    work = tmp_path / "work"
    work.mkdir()
    args = ["challenge", "generate", "--category", "debug-gauntlet", "--weight-class", "2", "--seed", "3"]
    r = subprocess.run(
        [str(venv / "bin" / "gauntlet"), *args, "--out", "gen1", "--until", "package"],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    assert "generate: passed" in r.stdout, r.stdout[-2000:]
    package = work / "gen1" / "package"
    assert (package / "challenge.yaml").is_file() and (package / "briefing.md").is_file()
    assert "IndexError" not in r.stdout + r.stderr
