"""The judge run's result directory: a size-limited tmpfs on the host where it can be made.

The sandbox writes its report and progress log there (bound at /judge-out). It is the
only host directory a judge run can write, so it is a tmpfs of ``size_mb`` (root only):
a submission that fills it fills a few megabytes of memory, never the host disk. Where
no tmpfs can be mounted (not root), it is a plain directory and the sandbox's per-file
size limit is the only bound (said in docs/judge.md).
"""

from __future__ import annotations

import ctypes
import os
from pathlib import Path

_MS_NOSUID, _MS_NODEV, _MS_NOEXEC, _MNT_DETACH = 2, 4, 8, 2
_libc: ctypes.CDLL | None
try:
    _libc = ctypes.CDLL(None, use_errno=True)
except OSError:  # pragma: no cover — no libc: plain directories only
    _libc = None


def make_out_dir(path: Path, size_mb: int = 16) -> bool:
    """Create ``path`` (mode 0777) and mount a tmpfs on it; True when mounted."""
    path.mkdir(parents=True, exist_ok=True)
    mounted = False
    if _libc is not None and os.geteuid() == 0:
        opts = f"size={size_mb}m,mode=0777,nr_inodes=1024".encode()
        flags = ctypes.c_ulong(_MS_NOSUID | _MS_NODEV | _MS_NOEXEC)
        mounted = _libc.mount(b"tmpfs", os.fsencode(path), b"tmpfs", flags, opts) == 0
    os.chmod(path, 0o777)
    return mounted


def release_out_dir(path: Path, mounted: bool) -> None:
    if mounted and _libc is not None:
        _libc.umount2(os.fsencode(path), _MNT_DETACH)
