"""The content hash of a challenge package: one SHA-256 over every file's package-relative
path and content (a symlink by its target), caches (``__pycache__``, ``.git`` ...) and
``*.pyc`` left out. Publish pins a publication to it; every attempt records the hash of
the package it ran (``attempt.started`` ``package_hash``), so a calibration attempt can be
tied to the package a report names (issue 20)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path, PurePosixPath

SKIP_DIRS = {"__pycache__", ".git", ".pytest_cache", ".mypy_cache", ".ruff_cache"}


def package_files(root: Path) -> list[str]:
    """Package-relative paths of every file and symlink (links kept, never followed),
    sorted; caches (``__pycache__``, ``.git`` ...) and ``*.pyc`` left out."""
    out: list[str] = []
    for d, dirs, files in os.walk(root, followlinks=False):
        base = Path(d)
        for name in list(dirs):
            if name in SKIP_DIRS:
                dirs.remove(name)
            elif (base / name).is_symlink():
                out.append((base / name).relative_to(root).as_posix())
        out += [(base / f).relative_to(root).as_posix() for f in files if not f.endswith(".pyc")]
    return sorted(out)


def hash_entries(entries: dict[str, bytes | PurePosixPath]) -> str:
    """One hash over package-relative paths and their contents (a symlink by its target)."""
    h = hashlib.sha256()
    for rel in sorted(entries):
        v = entries[rel]
        if isinstance(v, PurePosixPath):
            h.update(f"{rel}\0link\0{v}\n".encode())
        else:
            h.update(f"{rel}\0file\0{hashlib.sha256(v).hexdigest()}\n".encode())
    return "sha256:" + h.hexdigest()


def read_entries(root: Path, rels: list[str]) -> dict[str, bytes | PurePosixPath]:
    out: dict[str, bytes | PurePosixPath] = {}
    for rel in rels:
        p = root / rel
        out[rel] = PurePosixPath(os.readlink(p)) if p.is_symlink() else p.read_bytes()
    return out


def package_hash(root: Path) -> str:
    """One hash over every package file's path and content (symlinks by their target)."""
    return hash_entries(read_entries(root, package_files(root)))


def package_facts(root: Path) -> dict[str, object]:
    """What an attempt records of the package it ran (``attempt.started``):
    ``package_hash`` (every file), ``challenge_hash`` (every file outside ``agents/``: what
    the agent faces and is judged on) and ``agent_files`` (``agents/`` path -> sha256 hex:
    the benchmark scripts and overlays, so calibration's added baseline agents can be told
    apart from the package's own)."""
    entries = read_entries(root, package_files(root))
    agents = {r: v for r, v in entries.items() if r.split("/")[0] == "agents"}
    return {
        "package_hash": hash_entries(entries),
        "challenge_hash": hash_entries({r: v for r, v in entries.items() if r not in agents}),
        "agent_files": {r: _digest(v) for r, v in sorted(agents.items())},
    }


def _digest(v: bytes | PurePosixPath) -> str:
    return hashlib.sha256(f"link\0{v}".encode() if isinstance(v, PurePosixPath) else v).hexdigest()


__all__ = ["SKIP_DIRS", "hash_entries", "package_facts", "package_files", "package_hash", "read_entries"]
