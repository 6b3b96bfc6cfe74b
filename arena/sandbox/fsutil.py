"""Host-side file moves for sandboxes that never follow a link planted by sandboxed code."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path, PurePosixPath

from arena.sandbox import safe_write
from arena.sandbox.base import SandboxError

_NOFOLLOW_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_REG_NOFOLLOW = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC  # a FIFO swapped in never blocks


def read_regular(path: str | os.PathLike, cap: int) -> bytes | None:
    """At most ``cap + 1`` bytes of a regular file, opened without following a link
    (one swapped in under us included); None when absent or not a regular file."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        parts, n = [], 0
        while n <= cap:
            b = os.read(fd, min(1 << 20, cap + 1 - n))
            if not b:
                break
            parts.append(b)
            n += len(b)
        return b"".join(parts)
    finally:
        os.close(fd)


def inside(base_target: str, path: str) -> str | None:
    """The path relative to ``base_target`` when ``path`` is inside it, else None."""
    p = PurePosixPath(os.path.normpath(path))
    b = PurePosixPath(base_target)
    if p == b:
        return ""
    try:
        return str(p.relative_to(b))
    except ValueError:
        return None


def _open_parent(base: Path, rel: str) -> tuple[int, str]:
    """Open the parent directory of ``base/rel`` component by component, no links."""
    parts = [x for x in rel.split("/") if x not in ("", ".")]
    if any(x == ".." for x in parts):
        raise SandboxError(f"path {rel!r} escapes the sandbox directory")
    fd = os.open(base, _NOFOLLOW_DIR)
    try:
        for part in parts[:-1]:
            nfd = os.open(part, _NOFOLLOW_DIR, dir_fd=fd)
            os.close(fd)
            fd = nfd
    except OSError as exc:
        os.close(fd)
        raise SandboxError(f"cannot reach {rel!r} without following a link: {exc}") from None
    return fd, (parts[-1] if parts else ".")


def _copy_fd_file(src_fd: int, dest: Path, mode: int) -> None:
    if not stat.S_ISREG(os.fstat(src_fd).st_mode):
        return  # swapped for a FIFO or device after the lstat: skipped
    with os.fdopen(src_fd, "rb", closefd=False) as src, open(dest, "wb") as out:
        shutil.copyfileobj(src, out, 1 << 20)
    os.chmod(dest, stat.S_IMODE(mode) & 0o755)


def _copy_tree_fd(dir_fd: int, dest: Path) -> None:
    dest.mkdir(parents=True, exist_ok=True)
    for name in os.listdir(dir_fd):
        st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        target = dest / name
        if stat.S_ISLNK(st.st_mode):
            os.symlink(os.readlink(name, dir_fd=dir_fd), target)  # kept as a link
        elif stat.S_ISDIR(st.st_mode):
            sub = os.open(name, _NOFOLLOW_DIR, dir_fd=dir_fd)
            try:
                _copy_tree_fd(sub, target)
            finally:
                os.close(sub)
        elif stat.S_ISREG(st.st_mode):
            fd = os.open(name, _REG_NOFOLLOW, dir_fd=dir_fd)
            try:
                _copy_fd_file(fd, target, st.st_mode)
            finally:
                os.close(fd)
        # devices, fifos, sockets: skipped


def copy_out(base: Path, rel: str, dest: Path) -> None:
    """Copy ``base/rel`` (file or tree) to ``dest`` without following any link in it."""
    pfd, name = _open_parent(base, rel)
    try:
        try:
            st = os.stat(name, dir_fd=pfd, follow_symlinks=False)
        except FileNotFoundError:
            raise SandboxError(f"copy_out: {rel!r} does not exist in the sandbox") from None
        dest.parent.mkdir(parents=True, exist_ok=True)
        if stat.S_ISLNK(st.st_mode):
            os.symlink(os.readlink(name, dir_fd=pfd), dest)
        elif stat.S_ISDIR(st.st_mode):
            sub = os.open(name, _NOFOLLOW_DIR, dir_fd=pfd)
            try:
                _copy_tree_fd(sub, dest)
            finally:
                os.close(sub)
        elif stat.S_ISREG(st.st_mode):
            fd = os.open(name, _REG_NOFOLLOW, dir_fd=pfd)
            try:
                _copy_fd_file(fd, dest, st.st_mode)
            finally:
                os.close(fd)
        else:
            raise SandboxError(f"copy_out: {rel!r} is not a regular file or directory")
    finally:
        os.close(pfd)


def copy_in(src: Path, base: Path, rel: str, uid: int | None) -> None:
    """Copy host ``src`` to ``base/rel`` (links copied as links), owned by ``uid``."""
    pfd, name = _open_parent(base, rel)
    os.close(pfd)  # the parents are real directories now; the sandbox is not running
    # the sandbox may have left links, FIFOs or hard links in the tree: replaced, never followed
    safe_write.write_tree(src, base, rel, uid)


def chown_tree(path: Path, uid: int) -> None:
    os.lchown(path, uid, uid)
    if path.is_dir() and not path.is_symlink():
        for root, dirs, files in os.walk(path):
            for n in dirs + files:
                os.lchown(os.path.join(root, n), uid, uid)


_MS_NOSUID, _MS_NODEV, _MS_NOEXEC, _MNT_DETACH = 2, 4, 8, 2


def _libc():
    import ctypes  # noqa: PLC0415

    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:  # pragma: no cover — no libc: plain directories only
        return None


def mount_tmpfs(path: Path, size_mb: int, uid: int | None = None) -> bool:
    """Mount a size-limited tmpfs (nosuid, nodev, noexec) on ``path``; True when mounted
    (root only). ``uid``: owner of its root (mode 0755), else mode 0777."""
    import ctypes  # noqa: PLC0415

    libc = _libc()
    if libc is None or os.geteuid() != 0:
        return False
    own = f"mode=0755,uid={uid},gid={uid}" if uid is not None else "mode=0777"
    opts = f"size={size_mb}m,nr_inodes=1024,{own}".encode()
    flags = ctypes.c_ulong(_MS_NOSUID | _MS_NODEV | _MS_NOEXEC)
    return libc.mount(b"tmpfs", os.fsencode(path), b"tmpfs", flags, opts) == 0


def umount_lazy(path: Path) -> None:
    libc = _libc()
    if libc is not None:
        libc.umount2(os.fsencode(path), _MNT_DETACH)
