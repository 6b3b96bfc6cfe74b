"""Issue 24: installing prints no setuptools warning (the page about `arena.bundled`
package discovery is gone), the wheel carries the bundled challenges, and no build
artefact is tracked in the repository."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_building_the_wheel_warns_of_nothing_and_ships_the_bundled_challenges(tmp_path):
    src = tmp_path / "src"  # a clean copy: the checkout's own build/ and egg-info stay untouched
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for rel in filter(None, files.decode().split("\0")):
        p = ROOT / rel
        if p.is_file():
            (src / rel).parent.mkdir(parents=True, exist_ok=True)
            (src / rel).write_bytes(p.read_bytes())
    out = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(tmp_path / "w"), str(src)],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    log = out.stdout + out.stderr
    assert "warning" not in log.lower(), log[-3000:]
    (wheel,) = (tmp_path / "w").glob("gauntlet_arena-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert any(n.startswith("arena/bundled/off-by-one/") for n in names), names[:20]


def test_no_build_artefact_is_tracked():
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    bad = [
        f
        for f in tracked.splitlines()
        if f.endswith((".whl", ".pyc", ".egg", ".tar.gz")) or f.startswith(("build/", "dist/")) or ".egg-info/" in f
    ]
    assert bad == [], bad
