"""Leave nothing behind: live sandboxes closed on exit, leftovers of crashed runs removed.

Every sandbox registers a synchronous ``close`` here; ``atexit`` and SIGTERM/SIGHUP
handlers close them all. Each sandbox is tagged with its owner's pid (Docker label
``gauntlet.owner``, local state dir and cgroup names ``<pid>-<hex>``), so
``cleanup_stale()`` removes only what belongs to processes that are gone — never the
live sandboxes of another arena running on the same machine. A reaper process
(reaper.py) runs that cleanup the moment this process is gone, however it died.
"""

from __future__ import annotations

import atexit
import os
import shutil
import signal
import subprocess
import threading
from pathlib import Path
from typing import Callable

STATE_ROOT = Path(os.environ.get("GAUNTLET_SANDBOX_STATE", "/tmp/gauntlet-sandbox"))
_live: dict[str, Callable[[], None]] = {}
_lock = threading.Lock()
_installed = False
_signals = False


def owner_tag() -> str:
    return str(os.getpid())


def register(sid: str, close_sync: Callable[[], None]) -> None:
    install()
    with _lock:
        _live[sid] = close_sync


def unregister(sid: str) -> None:
    with _lock:
        _live.pop(sid, None)


def live_ids() -> list[str]:
    with _lock:
        return list(_live)


_creating: dict[int, int] = {}  # thread id -> sandboxes it is creating right now
_closing = False


class creating:
    """Wrap the creation of a sandbox (``with registry.creating(): ...; register(...)``):
    ``close_all`` waits (up to 20 s) for creations in flight in other threads, so that a
    container a pool's background thread is creating as the arena is told to stop is
    removed too; while it closes, no creation starts (SandboxError)."""

    def __enter__(self):
        with _lock:
            if _closing:
                from arena.sandbox.base import SandboxError  # noqa: PLC0415

                raise SandboxError("the arena is shutting down: no new sandbox")
            tid = threading.get_ident()
            _creating[tid] = _creating.get(tid, 0) + 1
        return self

    def __exit__(self, *exc):
        with _lock:
            tid = threading.get_ident()
            _creating[tid] -= 1
            if not _creating[tid]:
                del _creating[tid]
        return False


def _others_creating() -> bool:
    with _lock:
        return any(t != threading.get_ident() for t in _creating)


def close_all() -> None:
    global _closing
    import time  # noqa: PLC0415

    with _lock:
        _closing = True
    try:
        deadline = time.monotonic() + 20
        while _others_creating() and time.monotonic() < deadline:
            time.sleep(0.02)
        with _lock:
            items = list(_live.items())
            _live.clear()
        for _sid, fn in items:
            try:
                fn()
            except Exception:  # noqa: BLE001 — best effort on the way out
                pass
    finally:
        with _lock:
            _closing = False


def _on_signal(signum, frame):  # noqa: ARG001
    close_all()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def install() -> None:
    """atexit + SIGTERM/SIGHUP handlers (signals only from the main thread; backends call
    this when constructed). An app that sets its own SIGTERM handler should call
    ``close_all()`` from it."""
    global _installed, _signals
    if not _installed:
        _installed = True
        atexit.register(close_all)
        from arena.sandbox import reaper  # noqa: PLC0415

        reaper.start()  # cleans up after us however we die (kill -9 included)
    if not _signals and threading.current_thread() is threading.main_thread():
        _signals = True
        for sig in (signal.SIGTERM, signal.SIGHUP):
            if signal.getsignal(sig) in (signal.SIG_DFL, None):
                signal.signal(sig, _on_signal)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def owner_of(sid: str) -> int | None:
    head = sid.split("-", 1)[0]
    return int(head) if head.isdigit() else None


def is_stale(sid: str) -> bool:
    pid = owner_of(sid)
    return pid is None or (pid != os.getpid() and not _pid_alive(pid))


def _unmount_all_under(path: Path) -> None:
    prefix = str(path) + "/"
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return
    points = [ln.split()[4] for ln in lines if ln.split()[4].startswith(prefix)]
    for mp in sorted(points, key=len, reverse=True):
        subprocess.run(["umount", "-l", mp], capture_output=True)


def cleanup_local_state(sid: str) -> None:
    from arena.sandbox import quota  # noqa: PLC0415

    d = STATE_ROOT / sid
    quota.release_workspace(d)  # the workspace's quota tmpfs: copied back, unmounted
    _unmount_all_under(d)
    shutil.rmtree(d, ignore_errors=True)


def cleanup_stale(docker: bool = True) -> dict[str, int]:
    """Remove leftovers of crashed runs: containers, cgroups, state dirs and mounts."""
    from arena.sandbox import cgroups  # noqa: PLC0415

    from arena.sandbox import quota  # noqa: PLC0415

    removed = {"containers": 0, "cgroups": 0, "dirs": 0}
    if docker:  # first: nothing writes into a workspace while it is copied back
        removed["containers"] = _cleanup_containers()
    for sid in cgroups.stale_groups():
        if is_stale(sid):
            cgroups.CgroupSet(sid).remove()
            removed["cgroups"] += 1
    if STATE_ROOT.is_dir():
        for d in STATE_ROOT.iterdir():
            if is_stale(d.name):
                cleanup_local_state(d.name)
                removed["dirs"] += 1
    removed["uids"] = quota.free_stale_uids()
    return removed


def _cleanup_containers() -> int:
    try:
        import docker  # noqa: PLC0415

        client = docker.from_env(timeout=10)
        client.ping()
    except Exception:  # noqa: BLE001 — no engine, nothing of ours there
        return 0
    n = 0
    for c in client.containers.list(all=True, filters={"label": "gauntlet=1"}):
        owner = c.labels.get("gauntlet.owner", "")
        if not owner:  # not a sandbox of ours: a container run from one of our images
            continue  # (they inherit the image's gauntlet=1 label): never ours to remove
        if owner.isdigit() and (int(owner) == os.getpid() or _pid_alive(int(owner))):
            continue
        try:
            c.remove(force=True, v=True)
            n += 1
        except Exception:  # noqa: BLE001
            pass
        pool_dir = c.labels.get("gauntlet.dir")
        if pool_dir and pool_dir.startswith(str(STATE_ROOT) + "/"):
            shutil.rmtree(pool_dir, ignore_errors=True)
    return n
