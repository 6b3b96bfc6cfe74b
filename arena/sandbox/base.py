"""One sandbox protocol, many backends (docker, local).

A sandbox is created from a host workspace directory (bound at ``/workspace``) plus
optional read-only mounts, runs commands with limits, and is closed leaving nothing
behind. Everything here is async; blocking backends run their calls in a thread.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Protocol, Sequence

WORKSPACE = "/workspace"  # where the workspace (or submission snapshot) appears inside


@dataclass(frozen=True)
class Limits:
    cpus: float = 1.0
    memory_mb: int = 512
    pids: int = 128
    wall_s: float = 60.0  # default exec timeout
    output_bytes: int = 1 << 20  # cap on stdout/stderr read back, each
    tmpfs_mb: int = 64  # size-limited scratch at /tmp
    file_mb: int = 256  # largest file a sandboxed process may write (RLIMIT_FSIZE)
    tmp_inodes: int = 4096  # inodes of the /tmp tmpfs
    tmp_exec: bool = False  # Docker: /tmp allows exec (a judge command that builds and runs its tests)
    workspace_mb: int = 512  # quota of a writable workspace (as root; arena/sandbox/quota.py)
    workspace_inodes: int = 20_000
    network: bool = False
    runtime: str | None = None  # Docker OCI runtime (e.g. "runsc" for gVisor); None: the default

    def cgroup_memory_mb(self, *, workspace_tmpfs: bool, shm_mb: int = 0) -> int:
        """The memory cgroup of a sandbox whose workspace has its quota tmpfs (an agent's):
        ``memory_mb`` for its processes plus its own tmpfs quotas (the workspace's, /tmp,
        Docker's /dev/shm). The kernel charges a tmpfs page to the cgroup of the process
        that wrote it and cannot reclaim it, so with the quotas inside ``memory_mb`` a full
        workspace OOM-killed the sandbox's processes (on Docker the container) instead of
        failing with ENOSPC (issue 26). Files and processes share the group: a full quota
        still leaves ``memory_mb`` to the processes. Without a workspace tmpfs (a judge's
        read-only snapshot) the group is ``memory_mb``, as before."""
        if not workspace_tmpfs:
            return self.memory_mb
        return self.memory_mb + self.workspace_mb + self.tmpfs_mb + shm_mb


@dataclass(frozen=True)
class Mount:
    host: Path
    target: str  # absolute path inside the sandbox
    readonly: bool = True


@dataclass
class ExecResult:
    exit_code: int | None  # None when killed for timeout
    stdout: bytes
    stderr: bytes
    timed_out: bool = False
    truncated: bool = False
    duration_s: float = 0.0


@dataclass(frozen=True)
class ObserveTarget:
    """What a sandbox tells the observer (arena/observe) about itself."""

    root_pid: int | None = None  # processes descending from it are members
    cgroup: str | None = None  # a fragment of /proc/PID/cgroup that marks members at exec
    uid: int | None = None  # only processes running as this uid are reported
    skip: tuple[tuple[str, ...], ...] = ()  # argv prefixes of the backend's own wrappers
    backend: str = ""


class SandboxError(RuntimeError):
    """An infrastructure failure of the sandbox itself (never the agent's fault)."""


class Sandbox(Protocol):
    backend: str

    async def exec(
        self,
        argv: list[str],
        *,
        timeout: float | None = None,
        env: dict[str, str] | None = None,
        cwd: str = WORKSPACE,
        stdin: bytes | None = None,
        on_output: "Callable[[str, str], None] | None" = None,  # (stream, line) as lines arrive
    ) -> ExecResult: ...

    async def copy_in(self, src: Path, dest: str) -> None: ...

    async def copy_out(self, src: str, dest: Path) -> None: ...

    async def alive(self) -> bool: ...

    def shell_argv(self, env: dict[str, str]) -> list[str]:
        """The argv of an interactive shell inside this sandbox (cwd /workspace, ``env``
        added, same limits and isolation as ``exec``), to run in the foreground of a real
        terminal with stdin/stdout/stderr inherited. See ``arena/sandbox/shell.py``."""
        ...

    async def close(self) -> None: ...


class Backend(Protocol):
    name: str

    async def create(
        self,
        workspace: Path,
        limits: Limits,
        *,
        mounts: Sequence[Mount] = (),
        image: str = "gauntlet-base",
        workspace_readonly: bool = False,
    ) -> Sandbox: ...
