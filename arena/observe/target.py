"""What a sandbox tells the observer about itself (``Sandbox.observe_target()``)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ObserveTarget:
    root_pid: int | None = None  # processes descending from it are members
    cgroup: str | None = None  # a fragment of /proc/PID/cgroup that marks members at exec
    uid: int | None = None  # only processes running as this uid are reported
    skip: tuple[tuple[str, ...], ...] = ()  # argv prefixes of the backend's own wrappers
    backend: str = ""
