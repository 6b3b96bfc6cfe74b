"""CPU time used so far by every process of a sandbox (issue 34: CPU is activity).

``cpu_meter(sandbox)`` returns a function reading it in seconds, or None when the sandbox
cannot say. The local backend reads its own cgroup (``cpuacct.usage``); a Docker sandbox
reads its container's cgroup, found through ``/proc/<container's init>/cgroup`` (cgroup v1
``cpuacct.usage`` or v2 ``cpu.stat``), since ``docker exec`` processes live in the
container's cgroup too. The rootless local backend has no cgroup: None (docs/gateway.md).
A meter may block (the first Docker read asks the engine once): call it in a thread.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable

ROOT = Path(os.environ.get("GAUNTLET_CGROUP_ROOT", "/sys/fs/cgroup"))

Meter = Callable[[], "float | None"]


def cpu_meter(sandbox: object) -> Meter | None:
    if sandbox is None:
        return None
    cg = getattr(sandbox, "cg", None)
    if cg is not None and hasattr(cg, "cpu_seconds"):
        return lambda: float(cg.cpu_seconds())
    if getattr(sandbox, "backend", "") == "docker" and getattr(sandbox, "container", None) is not None:
        return _DockerMeter(sandbox)
    return None


class _DockerMeter:
    def __init__(self, sandbox: object) -> None:  # a DockerSandbox: its api and container
        self.sb = sandbox
        self.file: Path | None = None
        self.failed = False

    def __call__(self) -> float | None:
        if self.file is None and not self.failed:
            try:
                api, container = getattr(self.sb, "api"), getattr(self.sb, "container")
                pid = int(api.inspect_container(container.id)["State"]["Pid"])
            except Exception:  # noqa: BLE001 — the engine cannot say: no CPU reading
                pid = 0
            self.file = cgroup_cpu_file(pid) if pid > 0 else None
            self.failed = self.file is None
        return read_cpu_file(self.file) if self.file is not None else None


def cgroup_cpu_file(pid: int) -> Path | None:
    """The file holding the CPU time of ``pid``'s cgroup (v1 ``cpuacct.usage``, else v2 ``cpu.stat``)."""
    try:
        lines = Path(f"/proc/{pid}/cgroup").read_text().splitlines()
    except OSError:
        return None
    v2: Path | None = None
    for line in lines:
        hid, _, rest = line.partition(":")
        ctrls, _, path = rest.partition(":")
        rel = path.strip().lstrip("/")
        if "cpuacct" in ctrls.split(","):
            for d in (ctrls, "cpuacct", "cpu,cpuacct", "cpuacct,cpu"):
                f = ROOT / d / rel / "cpuacct.usage"
                if f.is_file():
                    return f
        if hid == "0" and not ctrls:
            f = ROOT / rel / "cpu.stat"
            if f.is_file():
                v2 = f
    return v2


def read_cpu_file(f: Path) -> float | None:
    try:
        text = f.read_text()
    except OSError:
        return None
    try:
        if f.name == "cpuacct.usage":
            return int(text.strip()) / 1e9
        for line in text.splitlines():
            key, _, value = line.partition(" ")
            if key == "usage_usec":
                return int(value) / 1e6
    except ValueError:
        return None
    return None
