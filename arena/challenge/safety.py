"""Keeping every path of a package inside the package (and every workspace path inside
the workspace): no absolute paths, no ``..``, no symlink pointing out."""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath, PureWindowsPath

from arena.challenge.errors import error
from arena.results import Finding


def unsafe_reason(path: str, where: str = "the package") -> str | None:
    """Why a relative path written in a package is unsafe, or None when it is fine.
    ``where`` names what the path is relative to, for the message."""
    if not isinstance(path, str) or not path.strip():
        return "expected a non-empty relative path"
    if "\x00" in path:
        return "expected a path without NUL characters"
    if PurePosixPath(path).is_absolute() or PureWindowsPath(path).is_absolute() or path.startswith("~"):
        return f"absolute path: expected a path relative to {where}"
    parts = PurePosixPath(path.replace("\\", "/")).parts
    if ".." in parts:
        return f"'..' may leave {where}: expected a path inside it without '..'"
    return None


def inside(child: Path, root: Path) -> bool:
    try:
        child.relative_to(root)
        return True
    except ValueError:
        return False


def symlink_findings(root: Path) -> list[Finding]:
    """Symlinks in the package that point outside it, or (under starter/ and solution/,
    which are copied into workspaces) outside their own directory."""
    root = root.resolve()
    findings: list[Finding] = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        for name in sorted(dirnames + filenames):
            p = Path(dirpath) / name
            if not p.is_symlink():
                continue
            rel = p.relative_to(root).as_posix()
            target = Path(os.path.realpath(p))
            top = rel.split("/", 1)[0]
            fence = root / top if top in ("starter", "solution") else root
            if not inside(target, fence):
                where = "the package" if fence == root else f"{top}/"
                findings.append(
                    error(
                        "paths",
                        f"{rel}: symlink escapes {where} (points to {os.readlink(p)}): "
                        f"expected a file or a link inside {where}",
                    )
                )
    return findings
