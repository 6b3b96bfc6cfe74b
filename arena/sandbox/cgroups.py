"""cgroup v1 limits for the local backend: memory (+memsw), pids, cpu quota, cpuacct, freezer.

One group per sandbox at ``/sys/fs/cgroup/<controller>/gauntlet/<sandbox id>``. A process
joins by writing its pid into each ``cgroup.procs`` (done in the child before it execs
bubblewrap, so nothing it forks escapes). ``kill_all`` freezes the group, SIGKILLs every
member (stopped ones included) and thaws it, so a fork bomb cannot outrun the sweep.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from arena.sandbox.base import Limits

ROOT = Path(os.environ.get("GAUNTLET_CGROUP_ROOT", "/sys/fs/cgroup"))
PARENT = "gauntlet"
CONTROLLERS = ("memory", "pids", "cpu", "cpuacct", "freezer")


def available() -> bool:
    """True when we may create child groups under every controller we use."""
    if os.geteuid() != 0:
        return False
    for c in CONTROLLERS:
        base = ROOT / c
        if not (base / "cgroup.procs").exists():
            return False
        try:
            (base / PARENT).mkdir(exist_ok=True)
        except OSError:
            return False
    # A group weighs as much as one ungrouped task (1024) in CFS: under load a sandbox
    # would get far less CPU than the same command run bare. Weigh the parent like one
    # task per CPU so a lone sandbox is scheduled like a bare process.
    try:
        _write(ROOT / "cpu" / PARENT / "cpu.shares", str(1024 * (os.cpu_count() or 1)))
    except OSError:
        pass
    return True


def _write(path: Path, value: str) -> None:
    with open(path, "w") as f:
        f.write(value)


class CgroupSet:
    def __init__(self, sid: str):
        self.sid = sid
        self.dirs = {c: ROOT / c / PARENT / sid for c in CONTROLLERS}

    def create(self, limits: Limits, workspace_tmpfs: bool = False) -> None:
        """``workspace_tmpfs``: the workspace has its quota tmpfs, charged to this group."""
        for d in self.dirs.values():
            d.mkdir(parents=True, exist_ok=True)
        mem = self.dirs["memory"]
        nbytes = str(limits.cgroup_memory_mb(workspace_tmpfs=workspace_tmpfs) * 1024 * 1024)
        _write(mem / "memory.limit_in_bytes", nbytes)
        if (mem / "memory.memsw.limit_in_bytes").exists():
            _write(mem / "memory.memsw.limit_in_bytes", nbytes)  # no swap beyond the limit
        _write(self.dirs["pids"] / "pids.max", str(limits.pids))
        period = 100_000
        _write(self.dirs["cpu"] / "cpu.cfs_period_us", str(period))
        _write(self.dirs["cpu"] / "cpu.cfs_quota_us", str(max(1000, int(limits.cpus * period))))

    def procs_paths(self) -> list[bytes]:
        """Paths a child writes its pid into (precomputed: used in a preexec hook)."""
        return [os.fsencode(d / "cgroup.procs") for d in self.dirs.values()]

    def pids(self) -> list[int]:
        try:
            text = (self.dirs["pids"] / "cgroup.procs").read_text()
        except OSError:
            return []
        return [int(x) for x in text.split()]

    def cpu_seconds(self) -> float:
        """CPU time used by every process of the sandbox so far."""
        try:
            return int((self.dirs["cpuacct"] / "cpuacct.usage").read_text()) / 1e9
        except (OSError, ValueError):
            return 0.0

    def oom_killed(self) -> bool:
        try:
            text = (self.dirs["memory"] / "memory.oom_control").read_text()
        except OSError:
            return False
        for line in text.splitlines():
            if line.startswith("oom_kill "):
                return int(line.split()[1]) > 0
        return (self.dirs["memory"] / "memory.failcnt").read_text().strip() != "0"

    def kill_all(self, deadline_s: float = 5.0) -> None:
        freezer = self.dirs["freezer"] / "freezer.state"
        end = time.monotonic() + deadline_s
        while self.pids() and time.monotonic() < end:
            try:
                _write(freezer, "FROZEN")
            except OSError:
                pass
            for pid in self.pids():
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            try:
                _write(freezer, "THAWED")
            except OSError:
                pass
            if self.pids():
                time.sleep(0.002)

    def remove(self) -> None:
        self.kill_all()
        for d in self.dirs.values():
            for _ in range(100):
                try:
                    d.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.005)  # members still exiting


def stale_groups() -> list[str]:
    """Sandbox ids with a leftover group under any controller."""
    found: set[str] = set()
    for c in CONTROLLERS:
        base = ROOT / c / PARENT
        if base.is_dir():
            found.update(p.name for p in base.iterdir() if p.is_dir())
    return sorted(found)
