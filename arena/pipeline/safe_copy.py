"""Copies out of a task directory (``challenge import``) or a builder's ``package/``
(``challenge generate --builder``) that never follow a link out of what they copy.

- A link is kept as a link when it resolves inside the directory being copied (followed
  as the kernel would, through the tree's own links, at most ``MAX_HOPS`` of them), so it
  resolves inside the copy too. An absolute link, a link whose target climbs above that
  directory, a loop, or a FIFO/device/socket is refused: ``CopyRefused`` names the file.
- The tree is walked with ``O_NOFOLLOW`` file descriptors: a directory or file swapped for
  a link while the copy runs (a builder's workspace) is never followed either.
- Every copy of one import or one package shares a ``Budget``: at most ``MAX_BYTES`` bytes
  and ``MAX_ENTRIES`` entries (files, directories and links) in all, counted as they are
  written (a file growing under the copy is cut at the limit and refused).
- A copy whose destination lies inside its source is refused before anything is written,
  and the destination directory is never entered while walking the source.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from fnmatch import fnmatch
from pathlib import Path, PurePosixPath

MAX_BYTES = 256 * 1024 * 1024  # one import or one generated package, every copy together
MAX_ENTRIES = 20_000
MAX_HOPS = 40  # links followed while resolving one path (the kernel's own limit)
TEXT_CAP = 4 * 1024 * 1024  # one instruction, manifest or script read as text

_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_REG = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


class CopyRefused(ValueError):
    """A link out, an unbounded copy or a copy into itself: the message names the file."""


@dataclass
class Budget:
    max_bytes: int = MAX_BYTES
    max_entries: int = MAX_ENTRIES
    bytes: int = 0
    entries: int = 0

    def entry(self, name: str) -> None:
        self.entries += 1
        if self.entries > self.max_entries:
            raise CopyRefused(
                f"{name}: more than {self.max_entries} files, directories and links: a copy is bounded to"
                f" {self.max_entries} entries and {self.max_bytes // (1024 * 1024)} MB"
            )

    def take(self, name: str, n: int) -> None:
        self.bytes += n
        if self.bytes > self.max_bytes:
            raise CopyRefused(
                f"{name}: the copy passed {self.max_bytes // (1024 * 1024)} MB: a copy is bounded to"
                f" {self.max_bytes // (1024 * 1024)} MB and {self.max_entries} entries"
            )


def resolve_inside(root: Path, rel: str | PurePosixPath) -> PurePosixPath | None:
    """``root/rel`` with every link inside ``root`` followed as the kernel would, relative to
    ``root`` (no link left in it); None when it leaves ``root`` (an absolute link, ``..``
    above it, more than ``MAX_HOPS`` links). Parts that do not exist are taken as written."""
    todo = [p for p in PurePosixPath(rel).parts if p not in ("", ".")]
    if PurePosixPath(rel).is_absolute():
        return None
    todo.reverse()
    at: list[str] = []
    hops = 0
    while todo:
        part = todo.pop()
        if part in ("", "."):
            continue
        if part == "..":
            if not at:
                return None
            at.pop()
            continue
        at.append(part)
        try:
            st = os.lstat(root.joinpath(*at))
        except OSError:
            continue  # absent: a plain name (it cannot be a link)
        if stat.S_ISLNK(st.st_mode):
            hops += 1
            target = os.readlink(root.joinpath(*at))
            if hops > MAX_HOPS or target.startswith("/"):
                return None
            at.pop()
            todo.extend(reversed(PurePosixPath(target).parts))
    return PurePosixPath(*at) if at else PurePosixPath(".")


def _link_out(root: Path, rel: PurePosixPath, label: str) -> CopyRefused:
    try:
        target = os.readlink(root / rel)
    except OSError:
        target = "?"
    return CopyRefused(
        f"{label}: a link to {target!r}, outside {root.name or root}/: links are kept only when they resolve"
        " inside what is copied (never followed out)"
    )


def inside_file(root: Path, rel: str | PurePosixPath, label: str | None = None) -> Path | None:
    """The real path of the regular file ``root/rel`` (links inside ``root`` followed);
    None when absent or not a regular file; ``CopyRefused`` when a link leads out."""
    label = label or str(rel)
    real = resolve_inside(root, rel)
    if real is None:
        raise _link_out(root, _first_link_out(root, PurePosixPath(rel)), label)
    p = root / real
    try:
        return p if stat.S_ISREG(os.lstat(p).st_mode) else None
    except OSError:
        return None


def _first_link_out(root: Path, rel: PurePosixPath) -> PurePosixPath:
    """The first link along ``rel`` that leads out (for the message), else ``rel``."""
    for i in range(1, len(rel.parts) + 1):
        head = PurePosixPath(*rel.parts[:i])
        if (root / head).is_symlink() and resolve_inside(root, head) is None:
            return head
    return rel


def read_text(root: Path, rel: str | PurePosixPath, cap: int = TEXT_CAP) -> str:
    """The UTF-8 text of ``root/rel`` (links inside ``root`` followed, never out), at most
    ``cap`` bytes. ``CopyRefused`` for a link out, OSError/UnicodeDecodeError otherwise."""
    p = inside_file(root, rel)
    if p is None:
        raise FileNotFoundError(f"{rel}: not a regular file")
    fd = os.open(p, _REG)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise FileNotFoundError(f"{rel}: not a regular file")
        data = _read_all(fd, cap, str(rel))
    finally:
        os.close(fd)
    return data.decode("utf-8")


def _read_all(fd: int, cap: int, label: str) -> bytes:
    parts: list[bytes] = []
    n = 0
    while True:
        b = os.read(fd, 1 << 20)
        if not b:
            return b"".join(parts)
        n += len(b)
        if n > cap:
            raise CopyRefused(f"{label}: over {cap // (1024 * 1024)} MB: expected a text file under that")
        parts.append(b)


def copy_tree(src: Path, dest: Path, budget: Budget, *, ignore: tuple[str, ...] = (), label: str | None = None) -> None:
    """Copy the directory (or file) ``src`` to ``dest`` (merged into what is there).
    ``label``: how messages name ``src`` (its path inside the task or package)."""
    label = label or src.name
    src_real, dest_real = Path(os.path.realpath(src)), Path(os.path.realpath(dest))
    if dest_real == src_real or src_real in dest_real.parents:
        raise CopyRefused(f"{label}: the copy's destination {dest} is inside it: a copy never copies into itself")
    st = os.lstat(src)
    if stat.S_ISLNK(st.st_mode):
        raise CopyRefused(f"{label}: a link to {os.readlink(src)!r}: expected a directory or a file, not a link")
    skip = _dest_id(dest)
    if stat.S_ISREG(st.st_mode):
        fd = os.open(src, _REG)
        try:
            _copy_file(fd, dest, st.st_mode, budget, label)
        finally:
            os.close(fd)
        return
    if not stat.S_ISDIR(st.st_mode):
        raise CopyRefused(f"{label}: not a regular file, directory or link")
    fd = os.open(src, _DIR)
    try:
        _copy_dir(fd, src, PurePosixPath("."), dest, budget, ignore, label, skip)
    finally:
        os.close(fd)


def _dest_id(dest: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(dest)
        return st.st_dev, st.st_ino
    except OSError:
        return None


def _clear(path: Path, want_dir: bool) -> None:
    """Make room at ``path``: a link (or a file where a directory goes) is removed, never followed."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(st.st_mode) or (want_dir and not stat.S_ISDIR(st.st_mode)):
        os.unlink(path)
    elif not want_dir and stat.S_ISDIR(st.st_mode):
        raise CopyRefused(f"{path}: a directory where a file is copied")


def _copy_dir(
    fd: int,
    root: Path,
    rel: PurePosixPath,
    dest: Path,
    budget: Budget,
    ignore: tuple[str, ...],
    label: str,
    skip: tuple[int, int] | None,
) -> None:
    _clear(dest, want_dir=True)
    dest.mkdir(parents=True, exist_ok=True)
    if skip is None:
        skip = _dest_id(dest) if rel == PurePosixPath(".") else None
    for name in sorted(os.listdir(fd)):
        if any(fnmatch(name, pat) for pat in ignore):
            continue
        here = rel / name
        shown = f"{label}/{here}"
        budget.entry(shown)
        st = os.stat(name, dir_fd=fd, follow_symlinks=False)
        if skip is not None and (st.st_dev, st.st_ino) == skip:
            continue  # the destination itself: never copied into itself
        to = dest / name
        if stat.S_ISLNK(st.st_mode):
            if resolve_inside(root, here) is None:
                raise _link_out(root, here, shown)
            _clear(to, want_dir=False)
            os.symlink(os.readlink(name, dir_fd=fd), to)
        elif stat.S_ISDIR(st.st_mode):
            sub = os.open(name, _DIR, dir_fd=fd)
            try:
                _copy_dir(sub, root, here, to, budget, ignore, label, skip)
            finally:
                os.close(sub)
        elif stat.S_ISREG(st.st_mode):
            f = os.open(name, _REG, dir_fd=fd)
            try:
                _copy_file(f, to, st.st_mode, budget, shown)
            finally:
                os.close(f)
        else:
            raise CopyRefused(f"{shown}: not a regular file, directory or link (a FIFO, device or socket)")


def _copy_file(fd: int, to: Path, mode: int, budget: Budget, label: str) -> None:
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        raise CopyRefused(f"{label}: not a regular file")
    _clear(to, want_dir=False)
    to.parent.mkdir(parents=True, exist_ok=True)
    out = os.open(to, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        while True:
            b = os.read(fd, 1 << 20)
            if not b:
                break
            budget.take(label, len(b))
            view = memoryview(b)
            while view:
                view = view[os.write(out, view) :]
        os.fchmod(out, stat.S_IMODE(mode) & 0o755)
    finally:
        os.close(out)


def links_out(root: Path, cap: int = MAX_ENTRIES) -> list[str]:
    """The links under ``root`` that do not resolve inside it (paths relative to ``root``):
    a package made of several copies is checked whole once written."""
    bad: list[str] = []
    seen = 0
    for d, dirs, names in os.walk(root, followlinks=False):
        for n in dirs + names:
            seen += 1
            if seen > cap:
                return bad + [f"{Path(d, n).relative_to(root)}: more than {cap} entries"]
            p = Path(d, n)
            if p.is_symlink() and resolve_inside(root, p.relative_to(root).as_posix()) is None:
                bad.append(p.relative_to(root).as_posix())
    return bad


def write_text(path: Path, text: str) -> None:
    """Write ``path`` as a new regular file: a link there is replaced, never written through."""
    _clear(path, want_dir=False)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
