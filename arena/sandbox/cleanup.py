"""Leftovers of crashed runs removed: containers, cgroups, state directories, mounts and
uids of arenas that are gone (``registry.install`` starts the reaper that runs
``cleanup_stale`` the moment its arena dies; ``gauntlet sandbox cleanup`` runs it by hand)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from arena.sandbox import cgroups, owners, quota
from arena.sandbox.owners import is_stale, pid_alive


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
    d = owners.STATE_ROOT / sid
    quota.release_workspace(d)  # the workspace's quota tmpfs: copied back, unmounted
    _unmount_all_under(d)
    shutil.rmtree(d, ignore_errors=True)


def cleanup_stale(docker: bool = True) -> dict[str, int]:
    """Remove leftovers of crashed runs: containers, cgroups, state dirs and mounts."""
    removed = {"containers": 0, "cgroups": 0, "dirs": 0}
    if docker:  # first: nothing writes into a workspace while it is copied back
        removed["containers"] = _cleanup_containers()
    for sid in cgroups.stale_groups():
        if is_stale(sid):
            cgroups.CgroupSet(sid).remove()
            removed["cgroups"] += 1
    if owners.STATE_ROOT.is_dir():
        for d in owners.STATE_ROOT.iterdir():
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
        if owner.isdigit() and (int(owner) == os.getpid() or pid_alive(int(owner))):
            continue
        try:
            c.remove(force=True, v=True)
            n += 1
        except Exception:  # noqa: BLE001
            pass
        pool_dir = c.labels.get("gauntlet.dir")
        if pool_dir and pool_dir.startswith(str(owners.STATE_ROOT) + "/"):
            shutil.rmtree(pool_dir, ignore_errors=True)
    return n
