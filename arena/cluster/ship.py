"""Shipping by content hash: a directory becomes one deterministic tar (sorted names,
zeroed times and owners) named by its sha256; a node unpacks each hash once into its
cache. Used for challenge packages and agent files going out to the nodes, and for
submission snapshots coming back. No Ray here: the bytes travel in Ray's object store.
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import tarfile
import tempfile
from pathlib import Path

SKIP = frozenset({"__pycache__", ".pytest_cache", ".git", ".mypy_cache"})


def pack(root: Path) -> tuple[str, bytes]:
    """(sha256 hex, tar bytes) of the tree under ``root``; equal trees, equal hashes."""
    root = Path(root)
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for dirpath, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d not in SKIP)
            for name in [*dirs, *sorted(files)]:
                p = Path(dirpath) / name
                info = tar.gettarinfo(str(p), arcname=str(p.relative_to(root)))
                info.mtime = 0
                info.uid = info.gid = 0
                info.uname = info.gname = ""
                if info.isreg():
                    with open(p, "rb") as fh:
                        tar.addfile(info, fh)
                elif info.isdir() or info.issym():
                    tar.addfile(info)
    data = buf.getvalue()
    return hashlib.sha256(data).hexdigest(), data


def _check(m: tarfile.TarInfo) -> None:
    """Only plain files, directories and links that stay inside the tree."""
    p = Path(m.name)
    if p.is_absolute() or ".." in p.parts or not (m.isreg() or m.isdir() or m.issym()):
        raise ValueError(f"shipped archive: refusing member {m.name!r}")
    if m.issym():
        t = Path(m.linkname)
        if (
            t.is_absolute()
            or len((p.parent / t).parts) - 2 * (p.parent / t).parts.count("..") < 0
            or ".." in Path(os.path.normpath(p.parent / t)).parts
        ):
            raise ValueError(f"shipped archive: link {m.name!r} leaves the tree")


def unpack(data: bytes, dest: Path, *, expect: str | None = None) -> Path:
    """Unpack ``data`` at ``dest`` (atomically: a temporary sibling renamed into place);
    a ``dest`` already there is kept as it is (same hash, same content)."""
    dest = Path(dest)
    if dest.exists():
        return dest
    if expect is not None and hashlib.sha256(data).hexdigest() != expect:
        raise ValueError(f"shipped content does not match its hash {expect[:12]}")
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".unpack-", dir=dest.parent))
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r") as tar:
            members = tar.getmembers()
            for m in members:  # Python < 3.11.4 (Debian's 3.11.2) has no extraction filter
                _check(m)
            tar.extractall(tmp, members=members)
        try:
            os.rename(tmp, dest)
        except OSError:  # another unpacker won the race: same content
            shutil.rmtree(tmp, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return dest
