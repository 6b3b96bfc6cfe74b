"""The openhands tree (arena/adapters/trixie.py): it carries Debian trixie's Python 3.13,
started through its own loader, which imports OpenHands offline; the agent's commands get
the sandbox's own python (nothing of the tree's runtime leaks into their environment); a
pure-Python sdist of the lock is installed from its archive; the tree key follows the
runtime recipe."""

from __future__ import annotations

import io
import subprocess
import tarfile

import pytest

from arena.adapters import ensure_agent_tree, get_adapter
from arena.adapters import trixie
from arena.adapters.build import tree_key
from arena.sandbox.base import SandboxError


def test_the_trees_python_is_313_imports_openhands_and_its_children_get_the_sandbox_python():
    tree = ensure_agent_tree("openhands", log=lambda _m: None)
    script = (
        "import os, subprocess, sys; sys.path.insert(0, sys.argv[1]);"
        "import openhands.sdk, openhands.tools.terminal, litellm;"
        "os.environ.pop('PYTHONHOME', None);"  # as openhands_run.py does
        "print(sys.version_info[:2], sys.executable);"
        "print(subprocess.run(['python3', '-c', 'import sys; print(sys.version_info[:2], sys.prefix)'],"
        " capture_output=True, text=True).stdout)"
    )
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": "/tmp",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "OPENHANDS_SUPPRESS_BANNER": "1",
    }
    p = subprocess.run(
        [str(tree / "bin" / "python3.13"), "-c", script, str(tree / "lib")],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert p.returncode == 0, p.stderr[-2000:]
    first, child = p.stdout.strip().splitlines()[-2:]
    assert first == f"(3, 13) {tree}/bin/python3.13"
    assert child == "(3, 11) /usr"  # the host's and the sandbox's Debian 12 python, not the tree's


def _sdist(tmp_path, files: dict[str, str]):
    buf = tmp_path / "demo_pkg-1.0.tar.gz"
    with tarfile.open(buf, "w:gz") as tar:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(f"demo_pkg-1.0/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf


def test_a_pure_python_sdist_is_copied_package_by_package(tmp_path):
    _sdist(
        tmp_path, {"setup.py": "", "demo_pkg/__init__.py": "X = 1\n", "demo_pkg/sub/m.py": "", "tests/__init__.py": ""}
    )
    lib = tmp_path / "lib"
    trixie._copy_sdist(tmp_path, "demo-pkg==1.0", lib)
    assert sorted(p.relative_to(lib).as_posix() for p in lib.rglob("*.py")) == [
        "demo_pkg/__init__.py",
        "demo_pkg/sub/m.py",
    ]
    with pytest.raises(SandboxError, match="demo-pkg==2.0: its source archive is missing"):
        trixie._copy_sdist(tmp_path, "demo-pkg==2.0", lib)


def test_the_tree_key_follows_the_runtime_recipe(monkeypatch):
    ad = get_adapter("openhands")
    before = tree_key(ad)
    monkeypatch.setitem(trixie.RUNTIME, "include", [*trixie.RUNTIME["include"], "libsqlite3-0"])
    assert tree_key(ad) != before
    assert all("--hash=sha256:" in ln for ln in ad.lock_text().splitlines() if ln and not ln.startswith("#"))
    assert sum(trixie.SDIST_MARK in ln for ln in ad.lock_text().splitlines()) == 1  # func-timeout
