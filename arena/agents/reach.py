"""What a host agent could reach beyond its attempt, and what keeps it out (issue 36).

A host agent (``hostrun.py``) sees the host's file system as a pool uid. Its own package,
store and data directory are hidden by the plan's caller; three more ways out are closed:

- **other copies of the bundled packages** (the install's ``arena/bundled``, and any
  ``arena/bundled`` on ``sys.path`` or in the working directory: a checkout beside a
  pip install) hold hidden tests and solutions: every copy whose secrets the uid could read
  is covered by an empty tmpfs in the agent's view (``exposed``, checked at each start);
- **other stores** (SQLite files beside the attempt's store or in the working directory,
  their ``-wal``/``-shm`` and ``.d`` data directories) the uid could read are hidden the
  same way; a store opened by Gauntlet is private anyway (``store.Store.open`` drops the
  "other" bits of the file and its data directory);
- **shared writable directories** (``PRIVATE_DIRS``: ``/dev/shm``, ``/var/tmp``,
  ``/run/lock``) are private tmpfs mounts in the agent's view, and SysV IPC and POSIX queues
  a private IPC namespace, so nothing it leaves there outlives it for the next attempt the
  pool hands its uid to; ``sweep_uid`` removes what the uid owns in the host's directories
  (a leftover of an agent started before this).

``doctor`` reports (``readable_secrets``, ``readable_stores``) when an install leaves any of
them readable by other uids.
"""

from __future__ import annotations

import os
import shutil
import stat
import sys
from pathlib import Path
from typing import Iterable

PRIVATE_DIRS = ("/dev/shm", "/var/tmp", "/run/lock")
BUNDLED = Path(__file__).resolve().parents[1] / "bundled"  # arena/bundled of this install
SECRET_DIRS = ("tests/hidden", "tests/adversarial", "solution")
SQLITE_MAGIC = b"SQLite format 3\x00"
MAX_SCAN = 2000  # entries of a directory looked at for stores


def bundled_copies() -> list[Path]:
    """The ``arena/bundled`` directories of this install, of every ``sys.path`` entry and of
    the working directory (a checkout run beside an installed copy), resolved, each once."""
    found: list[Path] = []
    for c in [BUNDLED, *(Path(p or os.getcwd()) / "arena" / "bundled" for p in sys.path), Path.cwd() / "arena/bundled"]:
        try:
            r = c.resolve()
            if r.is_dir() and r not in found:
                found.append(r)
        except OSError:
            continue
    return found


def secrets_of(bundled: Path) -> list[Path]:
    """The hidden/adversarial tests and solutions of every package in one bundled copy
    (phases' too), files only, links never followed."""
    out: list[Path] = []
    try:
        packages = [p for p in bundled.iterdir() if p.is_dir() and not p.is_symlink()]
    except OSError:
        return out
    for pkg in packages:
        roots = [pkg, *sorted(p for p in (pkg / "phases").glob("*") if p.is_dir())]
        for root in roots:
            for rel in SECRET_DIRS:
                for dirpath, _dirs, files in os.walk(root / rel, followlinks=False):
                    out += [Path(dirpath, f) for f in files if not os.path.islink(os.path.join(dirpath, f))]
    return out


def is_sqlite(path: Path) -> bool:
    try:
        if not stat.S_ISREG(path.lstat().st_mode):
            return False
        with open(path, "rb") as f:
            return f.read(16) == SQLITE_MAGIC
    except OSError:
        return False


def stores_in(dirs: Iterable[Path]) -> list[Path]:
    """SQLite files directly in ``dirs`` with what SQLite and Gauntlet keep beside them."""
    out: list[Path] = []
    for d in dict.fromkeys(Path(x) for x in dirs):
        try:
            names = sorted(os.listdir(d))
        except OSError:
            continue
        for name in names[:MAX_SCAN]:
            p = d / name
            if p in out or not is_sqlite(p):
                continue
            out.append(p)
            for extra in (p.with_name(name + "-wal"), p.with_name(name + "-shm"), p.with_name(name + ".d")):
                if extra.exists() and not extra.is_symlink():
                    out.append(extra)
    return out


def readable_by(path: Path, uid: int, gid: int | None = None) -> bool:
    """Whether a process of ``uid`` (primary group ``gid``, default ``uid``; no supplementary
    groups, no capabilities: how host agents run) can read ``path``: every directory above
    searchable, the file (or directory: listable) readable."""
    gid = uid if gid is None else gid

    def allows(st: os.stat_result, bits: int) -> bool:  # bits: 4 read, 1 search
        shift = 6 if st.st_uid == uid else (3 if st.st_gid == gid else 0)
        return (st.st_mode >> shift) & bits == bits

    try:
        real = Path(os.path.realpath(path))
        for parent in reversed(real.parents):
            if not allows(os.stat(parent), 1):
                return False
        st = os.stat(real)
    except OSError:
        return False
    return allows(st, 5 if stat.S_ISDIR(st.st_mode) else 4)


def _under(p: Path, roots: Iterable[Path]) -> bool:
    return any(p == r or r in p.parents for r in roots)


def exposed(uid: int, hidden: Iterable[Path], near: Iterable[Path] = ()) -> list[Path]:
    """What the plan must hide besides ``hidden``: every bundled copy with a secret ``uid``
    could read, and every store (file, WAL, SHM, data directory) in ``near`` or the working
    directory it could read. Checked at each host attempt's start."""
    hidden = [Path(os.path.realpath(h)) for h in hidden]
    out: list[Path] = []
    for copy in bundled_copies():
        if _under(copy, hidden):
            continue
        if any(readable_by(s, uid) for s in secrets_of(copy)):
            out.append(copy)
    dirs = [d for d in (*near, Path.cwd()) if not _under(Path(os.path.realpath(d)), hidden)]
    for p in stores_in(dirs):
        real = Path(os.path.realpath(p))
        if not _under(real, [*hidden, *out]) and readable_by(real, uid):
            out.append(real)
    return out


def readable_secrets(uid: int) -> dict[Path, int]:
    """For ``doctor``: per bundled copy, how many of its secrets ``uid`` could read."""
    out = {}
    for copy in bundled_copies():
        n = sum(readable_by(s, uid) for s in secrets_of(copy))
        if n:
            out[copy] = n
    return out


def readable_stores(uid: int, dirs: Iterable[Path]) -> list[Path]:
    """For ``doctor``: the stores (and their files) in ``dirs`` that ``uid`` could read."""
    return [p for p in stores_in(dirs) if readable_by(p, uid)]


def private_dir_args() -> list[str]:
    """bwrap arguments: a private IPC namespace and a fresh world-writable (sticky) tmpfs
    over each of ``PRIVATE_DIRS`` that is a real directory on this host."""
    out = ["--unshare-ipc"]
    for d in PRIVATE_DIRS:
        if os.path.isdir(d) and not os.path.islink(d):
            out += ["--perms", "1777", "--tmpfs", d]
    return out


def sweep_uid(uid: int) -> int:
    """Remove what ``uid`` owns at the top of the host's ``PRIVATE_DIRS`` (links unlinked,
    never followed); the number removed."""
    from arena.sandbox.quota import UID_BASE, UID_COUNT  # noqa: PLC0415

    if not UID_BASE <= uid < UID_BASE + UID_COUNT:  # a pool uid only: never the arena's own
        return 0
    n = 0
    for d in PRIVATE_DIRS:
        try:
            entries = list(os.scandir(d))
        except OSError:
            continue
        for e in entries:
            try:
                if e.stat(follow_symlinks=False).st_uid != uid:
                    continue
                if e.is_dir(follow_symlinks=False):
                    shutil.rmtree(e.path, ignore_errors=True)
                else:
                    os.unlink(e.path)
                n += 1
            except OSError:
                continue
    return n
