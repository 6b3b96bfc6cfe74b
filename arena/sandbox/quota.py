"""Disk and inode quotas for a sandbox's writable workspace, and a distinct uid per sandbox.

**Workspace quota** (both backends, as root): the workspace directory gets a tmpfs of
``Limits.workspace_mb`` MiB and ``Limits.workspace_inodes`` inodes mounted on itself
(nosuid, nodev) holding a copy of what it held, so the host sees the same path (the
watcher, snapshots) and the sandbox binds it as before; writing past the quota fails
with ENOSPC inside the sandbox, never on the host disk. Its pages are charged to the
memory cgroup of the writer (the sandbox's own limit). At close (and in
``cleanup_stale`` after a crash) the content — at most the quota — is copied back to
the directory on disk (``cp -a``: links stay links, FIFOs are recreated, never opened)
and the tmpfs is unmounted: the workspace is *kept* on disk, bounded by the quota. A
power cut loses what was only in the tmpfs (the submissions' snapshots are in the store).
The path of every such mount is written to ``<state dir>/workspace-mount`` so cleanup
finds it.

**Uids**: each privileged local sandbox runs as its own uid from ``UID_BASE`` ..
``UID_BASE + UID_COUNT - 1`` (like isolate's box ids), so per-uid kernel limits (the
``RLIMIT_NPROC`` count, inotify instances, ...) are never shared between sandboxes. A uid
is reserved by a file ``<STATE_ROOT>-uids/<uid>`` holding the sandbox id, under an
exclusive ``flock`` (other arenas on the machine use the same range), freed at close;
a reservation whose owner pid is gone is reused.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import logging
import os
import shutil
import subprocess
from pathlib import Path

from arena.sandbox import owners
from arena.sandbox.base import SandboxError

UID_BASE, UID_COUNT = 2_000_000, 4096
MARK = "workspace-mount"
log = logging.getLogger(__name__)
_libc = ctypes.CDLL(None, use_errno=True)
_MS_NOSUID, _MS_NODEV, _MNT_DETACH = 2, 4, 2


def _uid_dir() -> Path:
    return Path(str(owners.STATE_ROOT) + "-uids")


def allocate_uid(sid: str) -> int:
    d = _uid_dir()
    d.mkdir(parents=True, exist_ok=True, mode=0o700)
    with open(d / ".lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        # from a random place in the pool, not the lowest free uid: a uid just freed is not
        # handed straight to the next sandbox (of this arena or of another process on the
        # machine), so what one attempt's uid left behind is never the next one's at once
        start = int.from_bytes(os.urandom(2), "big") % UID_COUNT
        for n in range(UID_COUNT):
            uid = UID_BASE + (start + n) % UID_COUNT
            p = d / str(uid)
            try:
                owner = p.read_text().strip()
            except FileNotFoundError:
                owner = None
            if owner is None or owners.is_stale(owner):
                p.write_text(sid)
                return uid
    raise SandboxError(f"no free sandbox uid: {UID_COUNT} sandboxes are alive")


def free_uid(uid: int, sid: str) -> None:
    d = _uid_dir()
    p = d / str(uid)
    try:
        with open(d / ".lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if p.read_text().strip() == sid:
                p.unlink()
    except OSError:
        pass


def free_stale_uids() -> int:
    d, n = _uid_dir(), 0
    if not d.is_dir():
        return 0
    with open(d / ".lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        for p in d.iterdir():
            if p.name.isdigit():
                try:
                    if owners.is_stale(p.read_text().strip()):
                        p.unlink()
                        n += 1
                except OSError:
                    pass
    return n


def _mount_tmpfs(path: Path, size_mb: int, inodes: int, mode: str) -> None:
    opts = f"size={size_mb}m,nr_inodes={inodes},mode={mode}".encode()
    if _libc.mount(b"tmpfs", os.fsencode(path), b"tmpfs", ctypes.c_ulong(_MS_NOSUID | _MS_NODEV), opts) != 0:
        err = ctypes.get_errno()
        raise SandboxError(f"cannot mount a tmpfs at {path}: {os.strerror(err)}")


def mount_tmp(path: Path, size_mb: int, inodes: int) -> None:
    """The sandbox's /tmp: a tmpfs with a size and an inode count."""
    _mount_tmpfs(path, size_mb, inodes, "1777")


def workspace_full(workspace: Path, exc: BaseException) -> bool:
    """``exc`` is a write into ``workspace`` refused because its quota is spent (ENOSPC,
    EDQUOT on its quota tmpfs): what the agent filled, never the host's disk."""
    if not isinstance(exc, OSError) or exc.errno not in (errno.ENOSPC, errno.EDQUOT):
        return False
    return _is_mountpoint(Path(workspace).resolve())


def _is_mountpoint(path: Path) -> bool:
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return False
    return any(ln.split()[4] == str(path) for ln in lines)


def _cp(src: Path, dest: Path) -> None:
    r = subprocess.run(["cp", "-a", "--no-dereference", "--", f"{src}/.", str(dest)], capture_output=True, timeout=600)
    if r.returncode != 0:  # an entry cp cannot recreate: the rest is still copied
        log.warning(f"copying {src} to {dest}: {r.stderr.decode(errors='replace')[:500]}")


def limit_workspace(workspace: Path, state: Path, size_mb: int, inodes: int) -> None:
    """Put ``workspace`` on a quota'd tmpfs mounted on itself (see above)."""
    workspace = Path(workspace)
    aside = workspace.with_name(workspace.name + ".quota-in")
    if _is_mountpoint(workspace):
        raise SandboxError(f"workspace {workspace} already has a quota mount (another sandbox?)")
    st = workspace.stat()
    os.rename(workspace, aside)
    try:
        workspace.mkdir(mode=0o755)
        (state / MARK).write_text(str(workspace))
        _mount_tmpfs(workspace, size_mb, inodes, "0755")
        _cp(aside, workspace)
        os.chown(workspace, st.st_uid, st.st_gid)
    except BaseException:
        release_workspace(state)
        if aside.exists() and not any(workspace.iterdir()):
            workspace.rmdir()
            os.rename(aside, workspace)
        raise
    shutil.rmtree(aside, ignore_errors=True)


def release_workspace(state: Path) -> None:
    """Copy the quota'd workspace back to disk and unmount it (idempotent)."""
    mark = Path(state) / MARK
    try:
        workspace = Path(mark.read_text())
    except OSError:
        return
    if _is_mountpoint(workspace):
        out = workspace.with_name(workspace.name + ".quota-out")
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir(mode=0o755)
        _cp(workspace, out)
        st = workspace.stat()
        _libc.umount2(os.fsencode(workspace), _MNT_DETACH)
        shutil.rmtree(workspace, ignore_errors=True)
        os.rename(out, workspace)
        os.chown(workspace, st.st_uid, st.st_gid)
    mark.unlink(missing_ok=True)
