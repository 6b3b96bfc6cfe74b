"""Workspace files opened for reading, through fanotify (ctypes), standard library only.

A notification-class group (``FAN_CLASS_NOTIF``: it never blocks an open, FIFOs
included) reporting directory file handles and names (``FAN_REPORT_DFID_NAME``, so no
file descriptor is opened per event). Marks are *inode* marks on each directory of a
workspace with ``FAN_EVENT_ON_CHILD``: an inode mark sees opens through every mount
of that directory, so the bind mount at /workspace inside bubblewrap's or a
container's mount namespace is covered, and nothing else on the machine generates
events (a filesystem mark would queue every open on the host's root filesystem).
``FAN_CLOSE_NOWRITE`` means "a file opened without write access was closed": a read.
Directories created or moved in later are marked when their ``FAN_CREATE`` /
``FAN_MOVED_TO`` event arrives (``rescan``); a file read in a directory created
microseconds earlier can be missed. Used by ``observer_proc.py``, which filters the
events by the pid's sandbox membership.
"""

from __future__ import annotations

import ctypes
import os
import stat
import struct
from collections.abc import Iterator

FAN_CLOEXEC, FAN_NONBLOCK, FAN_CLASS_NOTIF = 0x1, 0x2, 0x0
FAN_UNLIMITED_QUEUE = 0x10
FAN_REPORT_DFID_NAME = 0x400 | 0x800
FAN_MARK_ADD, FAN_MARK_REMOVE, FAN_MARK_DONT_FOLLOW, FAN_MARK_ONLYDIR = 0x1, 0x2, 0x4, 0x8
FAN_CLOSE_NOWRITE, FAN_MOVED_TO, FAN_CREATE, FAN_Q_OVERFLOW = 0x10, 0x80, 0x100, 0x4000
FAN_EVENT_ON_CHILD, FAN_ONDIR = 0x08000000, 0x40000000
MASK = FAN_CLOSE_NOWRITE | FAN_CREATE | FAN_MOVED_TO | FAN_ONDIR | FAN_EVENT_ON_CHILD
INFO_DFID_NAME = 2
SKIP_DIRS = frozenset({"__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".git"})
_META = struct.Struct("=IBBHQii")  # event_len, vers, reserved, metadata_len, mask, fd, pid
_INFO = struct.Struct("=BBH")  # info_type, pad, len
_AT_FDCWD = -100

_libc = ctypes.CDLL(None, use_errno=True)
_libc.fanotify_init.argtypes = [ctypes.c_uint, ctypes.c_uint]
_libc.fanotify_mark.argtypes = [ctypes.c_int, ctypes.c_uint, ctypes.c_uint64, ctypes.c_int, ctypes.c_char_p]
_libc.name_to_handle_at.argtypes = [
    ctypes.c_int,
    ctypes.c_char_p,
    ctypes.c_void_p,
    ctypes.POINTER(ctypes.c_int),
    ctypes.c_int,
]


def _handle(path: str) -> bytes | None:
    """The file handle of ``path`` as fanotify reports it: handle_bytes, type, f_handle."""
    buf = ctypes.create_string_buffer(8 + 128)
    struct.pack_into("=Ii", buf, 0, 128, 0)
    mount_id = ctypes.c_int()
    if _libc.name_to_handle_at(_AT_FDCWD, os.fsencode(path), buf, ctypes.byref(mount_id), 0) != 0:
        return None
    n = struct.unpack_from("=I", buf, 0)[0]
    return buf.raw[: 8 + n]


class ReadWatcher:
    """One fanotify group for every watched workspace. ``events()`` yields
    ``(key, pid, rel_path)`` for child-of-a-marked-directory reads of regular files."""

    def __init__(self) -> None:
        fd = _libc.fanotify_init(
            FAN_CLASS_NOTIF | FAN_CLOEXEC | FAN_NONBLOCK | FAN_REPORT_DFID_NAME | FAN_UNLIMITED_QUEUE, os.O_RDONLY
        )
        if fd < 0:
            raise OSError(ctypes.get_errno(), f"fanotify_init: {os.strerror(ctypes.get_errno())}")
        self.fd = fd
        self.roots: dict[str, str] = {}  # key -> workspace (host path)
        self.dirs: dict[bytes, tuple[str, str]] = {}  # handle -> (key, rel dir)
        self.marked: dict[str, set[str]] = {}  # key -> marked absolute dirs
        self.overflowed = False

    def fileno(self) -> int:
        return self.fd

    def _mark(self, path: str, add: bool = True) -> bool:
        flags = (FAN_MARK_ADD if add else FAN_MARK_REMOVE) | FAN_MARK_DONT_FOLLOW | FAN_MARK_ONLYDIR
        return _libc.fanotify_mark(self.fd, flags, MASK, _AT_FDCWD, os.fsencode(path)) == 0

    def watch(self, key: str, workspace: str) -> None:
        self.roots[key] = os.path.realpath(workspace)
        self.marked.setdefault(key, set())
        self.rescan(key)

    def rescan(self, key: str) -> None:
        """Mark every directory of the workspace not marked yet; refresh handle paths."""
        root = self.roots.get(key)
        if root is None:
            return
        stack = [root]
        while stack:
            d = stack.pop()
            rel = os.path.relpath(d, root)
            h = _handle(d)
            if h is not None:
                self.dirs[h] = (key, "" if rel == "." else rel)
            if d not in self.marked[key] and self._mark(d):
                self.marked[key].add(d)
            try:
                with os.scandir(d) as it:
                    for e in it:
                        if e.name not in SKIP_DIRS and e.is_dir(follow_symlinks=False):
                            stack.append(e.path)
            except OSError:
                continue

    def unwatch(self, key: str) -> None:
        for d in self.marked.pop(key, set()):
            self._mark(d, add=False)
        self.roots.pop(key, None)
        self.dirs = {h: v for h, v in self.dirs.items() if v[0] != key}

    def events(self) -> Iterator[tuple[str, int, str]]:
        """Read everything queued now (non-blocking): (watch key, reader pid, relative path)."""
        rescan: set[str] = set()
        while True:
            try:
                buf = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                break
            if not buf:
                break
            off = 0
            while off + _META.size <= len(buf):
                length, _v, _r, mlen, mask, fd, pid = _META.unpack_from(buf, off)
                if length < _META.size:
                    break
                if fd >= 0:
                    os.close(fd)
                if mask & FAN_Q_OVERFLOW:
                    self.overflowed = True
                p = off + mlen
                while p + _INFO.size <= off + length:
                    typ, _pad, ilen = _INFO.unpack_from(buf, p)
                    if ilen == 0:
                        break
                    if typ == INFO_DFID_NAME:
                        item = self._decode(buf, p + _INFO.size + 8, p + ilen, mask, rescan)
                        if item is not None:
                            yield (item[0], pid, item[1])
                    p += ilen
                off += length
        for key in rescan:
            self.rescan(key)

    def _decode(self, buf: bytes, h: int, end: int, mask: int, rescan: set[str]) -> tuple[str, str] | None:
        nbytes = struct.unpack_from("=I", buf, h)[0]
        handle = bytes(buf[h : h + 8 + nbytes])
        owner = self.dirs.get(handle)
        if owner is None:
            return None
        key, rel_dir = owner
        raw = bytes(buf[h + 8 + nbytes : end]).split(b"\0", 1)[0]
        name = os.fsdecode(raw)
        if mask & (FAN_CREATE | FAN_MOVED_TO):
            if mask & FAN_ONDIR:
                rescan.add(key)
            return None
        if mask & FAN_ONDIR or not mask & FAN_CLOSE_NOWRITE or name in ("", "."):
            return None
        rel = os.path.join(rel_dir, name) if rel_dir else name
        try:
            if not stat.S_ISREG(os.lstat(os.path.join(self.roots[key], rel)).st_mode):
                return None
        except OSError:
            return None
        return key, rel

    def close(self) -> None:
        os.close(self.fd)
