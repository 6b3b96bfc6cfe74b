"""Host-side writes into a workspace that never follow what the agent planted there.

The arena writes into live workspaces as root (scripted overlays and deletes, copies
into a sandbox). Agent code may have replaced any file or directory there with a
symlink to a host path, a hard link, a FIFO or a device. Every write here walks the
destination one component at a time from a directory fd opened with ``O_NOFOLLOW``
(the ``RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS`` discipline of ``openat2``, done by hand
so it works on every kernel): a link, FIFO, socket or device in the way is removed
(never opened, never followed) and replaced by a real directory or a fresh file
created with ``O_CREAT|O_EXCL``, so no byte can land outside the workspace and no
write goes through a hard link. Sources are host trees the arena trusts (package
overlays, staged files); links in them are copied as links, special files skipped.
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
from pathlib import Path

from arena.sandbox.base import SandboxError

_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_SRC_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


def split_rel(rel: str) -> list[str]:
    """The components of a workspace-relative path; ``..`` and absolute paths refused."""
    if rel.startswith("/"):
        raise SandboxError(f"path {rel!r} is absolute: expected a path relative to the workspace")
    parts = [x for x in rel.split("/") if x not in ("", ".")]
    if ".." in parts:
        raise SandboxError(f"path {rel!r} escapes the workspace ('..')")
    return parts


class _Owner:
    """Who new entries belong to: ``uid`` when given, else the workspace root's owner
    (only root can give files away; otherwise they stay the caller's)."""

    def __init__(self, base_fd: int, uid: int | None) -> None:
        st = os.fstat(base_fd)
        self.ids = ((uid, uid) if uid is not None else (st.st_uid, st.st_gid)) if os.geteuid() == 0 else None

    def give(self, fd: int) -> None:
        if self.ids is not None:
            os.fchown(fd, *self.ids)

    def give_link(self, name: str, dir_fd: int) -> None:
        if self.ids is not None:
            os.chown(name, *self.ids, dir_fd=dir_fd, follow_symlinks=False)


def _lstat(name: str, dir_fd: int) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None


def remove_entry(dir_fd: int, name: str) -> bool:
    """Remove ``name`` in ``dir_fd`` whatever it is (a link itself, never its target; a
    directory tree by fd, as ``shutil.rmtree`` does on Linux). False when absent."""
    st = _lstat(name, dir_fd)
    if st is None:
        return False
    if stat.S_ISDIR(st.st_mode):
        shutil.rmtree(name, dir_fd=dir_fd)
    else:
        try:
            os.unlink(name, dir_fd=dir_fd)
        except FileNotFoundError:
            return False
    return True


def _subdir(dir_fd: int, name: str, owner: _Owner | None) -> int:
    """An fd of the real directory ``name`` in ``dir_fd``; with ``owner``, anything else
    in its place (link, file, FIFO...) is replaced by a new directory."""
    for _ in range(3):  # the agent may race us; a few rounds, then give up
        try:
            return os.open(name, _DIR, dir_fd=dir_fd)
        except FileNotFoundError:
            if owner is None:
                raise
        except OSError as exc:
            if owner is None or exc.errno not in (errno.ELOOP, errno.ENOTDIR):
                raise
            remove_entry(dir_fd, name)
        try:
            os.mkdir(name, 0o755, dir_fd=dir_fd)
        except FileExistsError:
            continue
        fd = os.open(name, _DIR, dir_fd=dir_fd)
        owner.give(fd)
        return fd
    raise SandboxError(f"{name!r}: replaced under the arena repeatedly while being written")


def open_dir(base: Path, parts: list[str], *, create: bool, uid: int | None = None) -> int:
    """An fd of ``base/parts...`` reached without following any link. ``create``:
    missing or non-directory components are made into real directories; otherwise a
    link or a missing component raises ``SandboxError``."""
    try:
        fd = os.open(base, _DIR)
    except OSError as exc:
        raise SandboxError(f"{base}: not a directory the arena can write into: {exc.strerror}") from None
    owner = _Owner(fd, uid) if create else None
    try:
        for part in parts:
            nfd = _subdir(fd, part, owner)
            os.close(fd)
            fd = nfd
    except OSError as exc:
        os.close(fd)
        raise SandboxError(f"cannot reach {'/'.join(parts)!r} without following a link: {exc.strerror}") from None
    except BaseException:
        os.close(fd)
        raise
    return fd


def _write_file(dir_fd: int, name: str, src: str, owner: _Owner) -> None:
    sfd = os.open(src, _SRC_FILE)
    try:
        sst = os.fstat(sfd)
        if not stat.S_ISREG(sst.st_mode):
            return
        for _ in range(3):
            remove_entry(dir_fd, name)  # never write through a link or a hard link
            try:
                dfd = os.open(name, _NEW_FILE, stat.S_IMODE(sst.st_mode) & 0o755, dir_fd=dir_fd)
                break
            except FileExistsError:
                continue
        else:
            raise SandboxError(f"{name!r}: replaced under the arena repeatedly while being written")
        try:
            while True:
                n = os.sendfile(dfd, sfd, None, 1 << 20)
                if n == 0:
                    break
            os.fchmod(dfd, stat.S_IMODE(sst.st_mode) & 0o755)
            owner.give(dfd)
        finally:
            os.close(dfd)
    finally:
        os.close(sfd)


def _write_link(dir_fd: int, name: str, target: str, owner: _Owner) -> None:
    remove_entry(dir_fd, name)
    os.symlink(target, name, dir_fd=dir_fd)
    owner.give_link(name, dir_fd)


def _write_into(src: str, dir_fd: int, name: str, owner: _Owner) -> None:
    st = os.lstat(src)
    if stat.S_ISLNK(st.st_mode):
        _write_link(dir_fd, name, os.readlink(src), owner)
    elif stat.S_ISREG(st.st_mode):
        _write_file(dir_fd, name, src, owner)
    elif stat.S_ISDIR(st.st_mode):
        sub = _subdir(dir_fd, name, owner)
        try:
            _write_children(src, sub, owner)
        finally:
            os.close(sub)
    # FIFOs, sockets, devices in a source: skipped


def _write_children(src: str, dir_fd: int, owner: _Owner) -> None:
    for name in sorted(os.listdir(src)):
        _write_into(os.path.join(src, name), dir_fd, name, owner)


def write_tree(src: Path, base: Path, rel: str = "", uid: int | None = None) -> None:
    """Copy host ``src`` (a file, link or directory tree) to ``base/rel``, merging over
    what is there, without following any link in ``base``. ``uid``: owner of what is
    written (root only; default the owner of ``base``)."""
    parts = split_rel(rel)
    path = os.fspath(src)
    if not os.path.lexists(path):
        raise SandboxError(f"{path}: no such file or directory to copy")
    if not parts:
        if not os.path.isdir(path) or os.path.islink(path):
            raise SandboxError(f"{path}: only a directory can be copied over the workspace root")
        fd = open_dir(base, [], create=True, uid=uid)
        try:
            _write_children(path, fd, _Owner(fd, uid))
        finally:
            os.close(fd)
        return
    pfd = open_dir(base, parts[:-1], create=True, uid=uid)
    try:
        _write_into(path, pfd, parts[-1], _Owner(pfd, uid))
    finally:
        os.close(pfd)


def remove_path(base: Path, rel: str) -> bool:
    """Remove ``base/rel`` (the entry itself: a link, never its target) without following
    any link on the way; False when it or a parent is absent (or a parent is a link)."""
    parts = split_rel(rel)
    if not parts:
        raise SandboxError("refusing to remove the workspace itself")
    try:
        pfd = open_dir(base, parts[:-1], create=False)
    except SandboxError:
        return False
    try:
        return remove_entry(pfd, parts[-1])
    finally:
        os.close(pfd)


__all__ = ["open_dir", "remove_entry", "remove_path", "split_rel", "write_tree"]
