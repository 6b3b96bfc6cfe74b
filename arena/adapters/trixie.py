"""Agent trees that need a newer Python than the sandbox's (OpenHands: Python >= 3.12,
Debian 12 ships 3.11): the tree carries Debian 13 (trixie)'s Python 3.13 itself.

``rt/`` is a trimmed ``debootstrap --variant=minbase trixie`` (with ``python3.13-minimal``
and ``libpython3.13-stdlib``; debootstrap checks the Release signature and every package's
hash): ``usr/bin/python3.13``, ``usr/lib/python3.13`` and ``usr/lib/x86_64-linux-gnu``
(trixie's glibc, its loader, libssl, libffi, ...). The launcher ``python3.13`` starts it
through ``rt``'s own loader with ``--library-path``, so it runs in either sandbox (Debian
12's files are untouched, nothing is set in the environment its children inherit). The
trimmed runtime is cached in ``<cache>/runtimes/trixie-<key16>/`` (built once per recipe).

``lib/`` holds the lock file's wheels for cp313 (downloaded on the host with pip
``--python-version 3.13``, every hash checked, installed with ``--target``) and the
pure-Python sdists the lock marks ``# sdist`` (no wheel on PyPI: the archive is hash-checked
by pip download and its package directories copied), byte-compiled by the tree's own
Python with unchecked-hash pycs. The tree's key hashes this recipe, the lock and the
launchers (``build.tree_key``).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import tarfile
import tempfile
import time
from pathlib import Path

from arena.adapters.base import LAUNCHER_DIR, Adapter
from arena.adapters.treeutil import Log, normalise_modes, run_step
from arena.sandbox.base import SandboxError
from arena.sandbox.buildlock import locked_build
from arena.sandbox.image import cache_dir

RUNTIME: dict = {
    "version": 1,  # bump when the trimming below changes
    "suite": "trixie",
    "variant": "minbase",
    "mirror": os.environ.get("GAUNTLET_DEBIAN_MIRROR", "http://deb.debian.org/debian"),
    "include": ["python3.13-minimal", "libpython3.13-stdlib"],
    "keep": ["usr/bin/python3.13", "usr/lib/python3.13", "usr/lib/x86_64-linux-gnu"],
    "drop": ["usr/lib/python3.13/test", "usr/lib/python3.13/idlelib", "usr/lib/python3.13/tkinter"],
}
PY_TAG = "3.13"
PLATFORMS = (
    "manylinux_2_34_x86_64",
    "manylinux_2_31_x86_64",
    "manylinux_2_28_x86_64",
    "manylinux_2_17_x86_64",
    "manylinux2014_x86_64",
)
SDIST_MARK = "# sdist"
PY2_ONLY = r"/func_timeout/py2_raise\.py$"  # Python 2 syntax, imported only by a Python 2


def runtime_key() -> str:
    return hashlib.sha256(json.dumps(RUNTIME, sort_keys=True).encode()).hexdigest()


def key_inputs() -> dict:
    """What ``build.tree_key`` adds for a trixie tree (the runtime recipe, the wheel tags)."""
    return {"runtime": RUNTIME, "python": PY_TAG, "platforms": PLATFORMS}


def ensure_runtime(log: Log) -> Path:
    """The trimmed trixie Python on the host, debootstrapped once per recipe."""
    dest = cache_dir() / "runtimes" / f"trixie-{runtime_key()[:16]}"
    rt, _built = locked_build(
        f"runtime-trixie-{runtime_key()[:16]}",
        lambda: dest if (dest / ".complete").exists() else None,
        lambda: _build_runtime(dest, log),
        on_wait=log,
    )
    return rt


def _build_runtime(dest: Path, log: Log) -> Path:

    if not shutil.which("debootstrap"):
        raise SandboxError("debootstrap is not installed (apt-get install -y debootstrap)")
    t0 = time.monotonic()
    dest.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".trixie-", dir=dest.parent))
    try:
        root = work / "rootfs"
        cmd = ["debootstrap", f"--variant={RUNTIME['variant']}", "--include=" + ",".join(RUNTIME["include"])]
        run_step([*cmd, RUNTIME["suite"], str(root), RUNTIME["mirror"]], "debootstrap of Debian trixie", log)
        out = work / "rt"
        for rel in RUNTIME["keep"]:
            src = root / rel
            if not src.exists():
                raise SandboxError(f"debootstrap of trixie made no {rel}")
            (out / rel).parent.mkdir(parents=True, exist_ok=True)
            if src.is_dir():
                shutil.copytree(src, out / rel, symlinks=True)
            else:
                shutil.copy2(src, out / rel)
        for rel in RUNTIME["drop"]:
            shutil.rmtree(out / rel, ignore_errors=True)
        (out / ".complete").write_text(f"{time.monotonic() - t0:.1f}s\n")
        if dest.exists():
            shutil.rmtree(dest)
        os.replace(out, dest)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    log(f"built the trixie Python runtime {dest} in {time.monotonic() - t0:.1f}s")
    return dest


def _split_lock(ad: Adapter, work: Path) -> tuple[Path, Path]:
    wheels: list[str] = []
    sdists: list[str] = []
    for line in ad.lock_text().splitlines():
        (sdists if SDIST_MARK in line else wheels).append(line.split("#", 1)[0].strip())
    (work / "wheels.txt").write_text("\n".join(x for x in wheels if x) + "\n")
    (work / "sdists.txt").write_text("\n".join(x for x in sdists if x) + "\n")
    return work / "wheels.txt", work / "sdists.txt"


def _pip(*args: str) -> list[str]:
    return [sys.executable, "-m", "pip", *args, "--quiet", "--disable-pip-version-check"]


def _tags() -> list[str]:
    return ["--python-version", PY_TAG, "--implementation", "cp", "--only-binary=:all:"] + [
        a for p in PLATFORMS for a in ("--platform", p)
    ]


def build_tree(ad: Adapter, dest: Path, tree_key: str, log: Log) -> Path:
    """``dest`` (``rt/``, ``lib/``, ``bin/``), built in a temp dir and moved in place."""

    t0 = time.monotonic()
    rt = ensure_runtime(log)
    wheels = cache_dir() / "wheels" / f"{ad.name}-cp313"  # its own: pip would pick another tree's file
    wheels.mkdir(parents=True, exist_ok=True)
    dest.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{ad.name}-", dir=dest.parent))
    try:
        wlock, slock = _split_lock(ad, work)
        dl = ["download", "--no-deps", "--require-hashes", "-d", str(wheels)]
        run_step(_pip(*dl, *_tags(), "-r", str(wlock)), f"downloading the wheels of {ad.package}", log)
        if slock.read_text().strip():
            run_step(_pip(*dl, "--no-binary=:all:", "-r", str(slock)), "downloading sdists", log)
        inst = ["install", "--no-index", "--no-deps", "--require-hashes", "--no-compile", "--ignore-requires-python"]
        lib = work / "tree" / "lib"
        args = [*inst, "--find-links", str(wheels), "--target", str(lib), *_tags(), "-r", str(wlock)]
        run_step(_pip(*args), f"installing {ad.package} into its tree", log)
        for line in slock.read_text().split():
            if "==" in line:
                _copy_sdist(wheels, line, lib)
        shutil.rmtree(lib / "bin", ignore_errors=True)  # entry points written for the host python
        shutil.copytree(rt, work / "tree" / "rt", symlinks=True, copy_function=os.link)
        (work / "tree" / "rt" / ".complete").unlink()
        (work / "tree" / "bin").mkdir()
        for f in ad.launchers:
            shutil.copy2(LAUNCHER_DIR / f, work / "tree" / "bin" / f)
        py = str(work / "tree" / "bin" / "python3.13")
        cc = [py, "-m", "compileall", "-q", "-j", "2", "--invalidation-mode", "unchecked-hash", "-x", PY2_ONLY]
        run_step([*cc, str(lib)], "byte-compiling the tree", lambda _m: None)
        info = {"adapter": ad.name, "package": ad.package, "version": ad.version, "key": tree_key, "python": PY_TAG}
        (work / "tree" / "tree.json").write_text(json.dumps(info, indent=2) + "\n")
        normalise_modes(work / "tree")
        (work / "tree" / ".complete").write_text(f"{time.monotonic() - t0:.1f}s\n")
        if dest.exists():  # an incomplete leftover
            shutil.rmtree(dest)
        os.replace(work / "tree", dest)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    log(f"built {dest} in {time.monotonic() - t0:.1f}s")
    return dest


def _copy_sdist(archives: Path, pin: str, lib: Path) -> None:
    """A pure-Python sdist's top-level packages into ``lib`` (the archive pip checked)."""
    name, _, ver = pin.partition("==")
    stem = f"{name.replace('-', '_')}-{ver}"
    found = [p for p in archives.iterdir() if p.name.lower() in (f"{stem}.tar.gz".lower(), f"{name}-{ver}.tar.gz")]
    if not found:
        raise SandboxError(f"{pin}: its source archive is missing from {archives}")
    with tarfile.open(found[0]) as tar:
        top = f"{found[0].name[: -len('.tar.gz')]}/"
        members = [m for m in tar.getmembers() if m.name.startswith(top)]
        pkgs = {m.name[len(top) :].split("/")[0] for m in members if m.name.endswith("/__init__.py")}
        pkgs = {p for p in pkgs if p and "/" not in p and p not in ("tests", "doc")}
        if not pkgs:
            raise SandboxError(f"{pin}: no package directory in {found[0].name}")
        for m in members:
            rel = m.name[len(top) :]
            if rel.split("/")[0] in pkgs and m.isfile() and rel.endswith(".py"):
                out = lib / rel
                out.parent.mkdir(parents=True, exist_ok=True)
                src = tar.extractfile(m)
                assert src is not None
                out.write_bytes(src.read())
