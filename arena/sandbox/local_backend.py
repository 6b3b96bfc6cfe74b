"""The local backend: Linux namespaces through bubblewrap, limits through cgroup v1.

Run as root (the normal case here) each exec is::

    bwrap --unshare-{ipc,pid,net,uts,cgroup} --die-with-parent --new-session
          <host /usr read-only, a few /etc files, /proc, minimal /dev, /tmp, /workspace>
          setpriv --reuid 65534 ... --bounding-set=-all --no-new-privs -- ARGV

with exactly ``BASE_ENV`` + the caller's ``env`` as bwrap's environment (never on its
command line: secrets such as a gateway token would be readable by every host process),
inside a per-sandbox cgroup (memory = memsw, pids, cpu quota, freezer) joined before bwrap
starts. ``/tmp`` is a size-limited tmpfs mounted per sandbox (kept between execs of one
sandbox, gone at close). Without root: unprivileged bwrap (``--unshare-all --uid 65534``),
rlimits instead of a cgroup and a per-exec tmpfs (see docs/sandbox.md).
"""

from __future__ import annotations

import asyncio
import ctypes
import os
import resource
import secrets
import shutil
import signal
import subprocess
import time
from pathlib import Path, PurePosixPath
from typing import Callable, Sequence

from arena.sandbox.handover import made_in_thread
from arena.sandbox import cgroups, fsutil, quota, registry
from arena.sandbox.base import WORKSPACE, ObserveTarget, ExecResult, Limits, Mount, SandboxError
from arena.sandbox.capture import CappedBuffer, LineSplitter, drain

SANDBOX_UID = 65534  # without root (user namespace); as root each sandbox has its own uid
PATH = "/opt/gauntlet/bin:/usr/local/bin:/usr/bin:/bin"
ENV_MARK = "\0env"  # where the environment goes in the prefix (never passed to bwrap)
BASE_ENV = {"PATH": PATH, "HOME": "/tmp", "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1"}
_ETC_FROM_HOST = [
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "alternatives",
    "localtime",
    "nsswitch.conf",
    "mime.types",
]
_PASSWD = "root:x:0:0:root:/root:/usr/sbin/nologin\nsandbox:x:{uid}:{uid}:gauntlet sandbox:/tmp:/bin/sh\n"
_GROUP = "root:x:0:\nsandbox:x:{uid}:\n"
_HOSTS = "127.0.0.1 localhost\n::1 localhost\n"
_libc = ctypes.CDLL(None, use_errno=True)
_MS_NOSUID, _MS_NODEV, _MNT_DETACH = 2, 4, 2


def _umount(path: Path) -> None:
    _libc.umount2(os.fsencode(path), _MNT_DETACH)


class LocalBackend:
    name = "local"

    def __init__(self) -> None:
        bwrap = shutil.which("bwrap")
        if not bwrap:
            raise SandboxError("local sandbox needs bubblewrap: `bwrap` is not on PATH (apt-get install -y bubblewrap)")
        self.bwrap: str = bwrap
        self.privileged = os.geteuid() == 0 and shutil.which("setpriv") is not None
        self.use_cgroups = self.privileged and cgroups.available()
        registry.install()

    async def create(
        self,
        workspace: Path,
        limits: Limits,
        *,
        mounts: Sequence[Mount] = (),
        image: str = "gauntlet-base",
        workspace_readonly: bool = False,
    ):
        # ``image`` is ignored: the host system is the image (CONTRACT §2).
        ws, ms = Path(workspace), list(mounts)
        return await made_in_thread(lambda: self._create_sync(ws, limits, ms, workspace_readonly))

    def pool(
        self,
        limits: Limits,
        *,
        mounts: Sequence[Mount] = (),
        image: str = "gauntlet-base",
        workspace_readonly: bool = True,
        size: int = 2,
        scratch: str | None = None,
    ):
        from arena.sandbox.pool import CreatePool  # noqa: PLC0415

        return CreatePool(
            self, limits, mounts=list(mounts), image=image, workspace_readonly=workspace_readonly, scratch=scratch
        )

    def _create_sync(self, workspace, limits, mounts, ro) -> "LocalSandbox":
        if not workspace.is_dir():
            raise SandboxError(f"workspace {workspace} is not a directory")
        if limits.runtime:
            raise SandboxError(
                f"sandbox runtime {limits.runtime!r} needs the docker backend "
                "(--sandbox docker); the local backend is bubblewrap only"
            )
        for m in mounts:
            if not Path(m.host).exists():
                raise SandboxError(f"mount source {m.host} does not exist")
        sid = f"{registry.owner_tag()}-{secrets.token_hex(5)}"
        sb = LocalSandbox(self, sid, workspace.resolve(), limits, mounts, ro)
        try:
            sb._setup()
        except BaseException:
            sb._close_sync()
            raise
        registry.register(sid, sb._close_sync)
        return sb


class LocalSandbox:
    backend = "local"

    def __init__(self, be: LocalBackend, sid, workspace, limits, mounts, ro):
        self.be, self.id, self.workspace, self.limits = be, sid, workspace, limits
        self.mounts, self.workspace_readonly = mounts, ro
        self.state = registry.STATE_ROOT / sid
        self.tmp = self.state / "tmp"
        self.cg = cgroups.CgroupSet(sid) if be.use_cgroups else None
        self.uid = os.geteuid()  # as root: a uid of its own, allocated in _setup
        self.inner_uid = SANDBOX_UID  # the uid its processes run as
        self.scratch_dir: Path | None = None  # set by a pool created with ``scratch=``
        self.closed = False
        self._argv_prefix: list[str] = []

    # -- setup -------------------------------------------------------------------------
    def _setup(self) -> None:
        etc = self.state / "etc"
        etc.mkdir(parents=True, mode=0o755)
        os.chmod(self.state, 0o755)
        lim = self.limits
        if self.be.privileged:
            self.uid = self.inner_uid = quota.allocate_uid(self.id)
        (etc / "passwd").write_text(_PASSWD.format(uid=self.inner_uid))
        (etc / "group").write_text(_GROUP.format(uid=self.inner_uid))
        (etc / "hosts").write_text(_HOSTS)
        if self.be.privileged:
            self.tmp.mkdir(mode=0o1777)
            quota.mount_tmp(self.tmp, lim.tmpfs_mb, lim.tmp_inodes)
        if self.cg is not None:
            self.cg.create(lim, workspace_tmpfs=self.be.privileged and not self.workspace_readonly)
        if self.be.privileged and not self.workspace_readonly:
            quota.limit_workspace(self.workspace, self.state, lim.workspace_mb, lim.workspace_inodes)
            fsutil.chown_tree(self.workspace, self.uid)
        self._argv_prefix = self._build_prefix(etc)

    @property
    def shell_prefix(self) -> list[str]:
        """The prefix with a cleared environment of ``BASE_ENV`` given on the command line
        (the operator's interactive shell: shell.py adds only non-secret variables)."""
        out: list[str] = []
        for a in self._argv_prefix:
            if a == ENV_MARK:
                out.append("--clearenv")
                for k, v in BASE_ENV.items():
                    out += ["--setenv", k, v]
            else:
                out.append(a)
        return out

    def _build_prefix(self, etc: Path) -> list[str]:
        a = [self.be.bwrap]
        if self.be.privileged:
            a += ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try"]
        else:
            a += ["--unshare-all", "--uid", str(self.inner_uid), "--gid", str(self.inner_uid), "--cap-drop", "ALL"]
        a += [
            "--die-with-parent",
            "--new-session",
            ENV_MARK,  # exec passes BASE_ENV + env as bwrap's own environment instead
            "--ro-bind",
            "/usr",
            "/usr",
            "--symlink",
            "usr/lib",
            "/lib",
            "--symlink",
            "usr/lib64",
            "/lib64",
            "--symlink",
            "usr/bin",
            "/bin",
            "--symlink",
            "usr/sbin",
            "/sbin",
            "--dir",
            "/etc",
        ]
        for name in _ETC_FROM_HOST:
            a += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
        for name in ("passwd", "group", "hosts"):
            a += ["--ro-bind", str(etc / name), f"/etc/{name}"]
        a += ["--proc", "/proc", "--dev", "/dev"]
        if self.be.privileged:
            a += ["--bind", str(self.tmp), "/tmp"]
        else:
            a += ["--perms", "1777", "--size", str(self.limits.tmpfs_mb << 20), "--tmpfs", "/tmp"]
        a += ["--ro-bind" if self.workspace_readonly else "--bind", str(self.workspace), WORKSPACE]
        made: set[str] = {"/", "/tmp", "/etc", WORKSPACE}
        for m in self.mounts:
            for parent in reversed(PurePosixPath(m.target).parents):
                if str(parent) not in made:  # bwrap would create it 0700 (unreadable)
                    made.add(str(parent))
                    a += ["--perms", "0755", "--dir", str(parent)]
            a += ["--ro-bind" if m.readonly else "--bind", str(m.host), m.target]
        a += ["--dir", "/opt/gauntlet/bin", "--symlink", "/usr/bin/python3", "/opt/gauntlet/bin/python"]
        return a

    def _preexec(self):
        procs = self.cg.procs_paths() if self.cg is not None else []
        lim = self.limits
        fsize = lim.file_mb << 20
        rootless = not self.be.privileged

        def pre():
            pid = str(os.getpid()).encode()
            for p in procs:
                fd = os.open(p, os.O_WRONLY)
                os.write(fd, pid)
                os.close(fd)
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
            if rootless:  # no cgroup: per-process rlimits only (documented weaker)
                mem = lim.memory_mb << 20
                resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
                resource.setrlimit(resource.RLIMIT_NPROC, (lim.pids, lim.pids))

        return pre

    # -- protocol ----------------------------------------------------------------------
    async def exec(
        self,
        argv: list[str],
        *,
        timeout: float | None = None,
        env: dict[str, str] | None = None,
        cwd: str = WORKSPACE,
        stdin: bytes | None = None,
        as_pid_1: bool = False,
        on_output: Callable[[str, str], None] | None = None,
    ) -> ExecResult:
        """``as_pid_1``: the command is PID 1 of the sandbox's pid namespace (bwrap
        ``--as-pid-1``, no reaper): nothing inside can signal it (a judge launcher).
        ``on_output(stream, line)``: called on the loop for each line as it arrives."""
        if self.closed:
            raise SandboxError(f"sandbox {self.id} is closed")
        if not argv:
            raise SandboxError("exec needs a command")
        timeout = self.limits.wall_s if timeout is None else timeout
        # The environment reaches bwrap as its own environment, never its command line:
        # a gateway token in argv is readable by every host process (/proc/*/cmdline),
        # /proc/<pid>/environ only by the process's own uid (bwrap runs as root here).
        cmd = [a for a in self._argv_prefix if a != ENV_MARK]
        if as_pid_1:
            cmd.insert(1, "--as-pid-1")
        run_env = {**BASE_ENV, **(env or {})}
        # Set-up sentinel: a shell writes to this pipe once bwrap has built the sandbox and
        # changed directory, then execs the command; nothing written = bwrap itself failed.
        info_r, info_w = os.pipe()
        cmd += [
            "--chdir",
            cwd,
            "/bin/bash",
            "--norc",
            "--noprofile",
            "-c",
            f'printf x >/proc/self/fd/{info_w} && exec {info_w}>&- && exec "$@"',
            "sh",
        ]
        if self.be.privileged:
            cmd += [
                "/usr/bin/setpriv",
                "--reuid",
                str(self.uid),
                "--regid",
                str(self.uid),
                "--clear-groups",
                "--inh-caps=-all",
                "--bounding-set=-all",
                "--no-new-privs",
                "--",
            ]
        cmd += list(argv)
        t0 = time.monotonic()
        try:
            proc = await asyncio.create_subprocess_exec(
                *cmd,
                stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                preexec_fn=self._preexec(),
                start_new_session=True,
                pass_fds=(info_w,),
                env=run_env,
            )
        except (OSError, subprocess.SubprocessError) as exc:  # e.g. its cgroup is gone
            os.close(info_r)
            raise SandboxError(f"sandbox {self.id}: cannot start bubblewrap: {exc}") from None
        finally:
            os.close(info_w)
        os.set_blocking(info_r, False)

        def kill():
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

        out = CappedBuffer(self.limits.output_bytes, kill)
        err = CappedBuffer(self.limits.output_bytes, kill)
        split = [LineSplitter(n, on_output) if on_output else None for n in ("stdout", "stderr")]
        # Both are PIPEs (and stdin when given) so asyncio made the streams.
        assert proc.stdout is not None and proc.stderr is not None
        readers = [
            asyncio.ensure_future(drain(proc.stdout, out, split[0])),
            asyncio.ensure_future(drain(proc.stderr, err, split[1])),
        ]
        if stdin is not None:
            assert proc.stdin is not None
            proc.stdin.write(stdin)
            try:
                await proc.stdin.drain()
            except (BrokenPipeError, ConnectionResetError):
                pass
            proc.stdin.close()
        timed_out = False
        try:
            await asyncio.wait_for(asyncio.shield(asyncio.gather(proc.wait(), *readers)), timeout)
        except asyncio.TimeoutError:
            timed_out = True
        except asyncio.CancelledError:
            kill()
            await asyncio.to_thread(self._sweep)
            raise
        if timed_out:
            kill()
            await asyncio.to_thread(self._sweep)
            try:
                await asyncio.wait_for(asyncio.gather(proc.wait(), *readers), 10)
            except asyncio.TimeoutError:
                raise SandboxError(f"sandbox {self.id}: process tree did not die") from None
        elif self.cg is not None and self.cg.pids():
            await asyncio.to_thread(self._sweep)
        rc = proc.returncode
        stderr = err.value()
        try:
            started = bool(os.read(info_r, 4096))
        except BlockingIOError:
            started = False
        finally:
            os.close(info_r)
        if not started and not timed_out:  # bwrap failed before running the command
            raise SandboxError(f"bubblewrap failed: {stderr.decode(errors='replace').strip()}")
        return ExecResult(
            exit_code=None if timed_out else rc,
            stdout=out.value(),
            stderr=stderr,
            timed_out=timed_out,
            truncated=out.truncated or err.truncated,
            duration_s=time.monotonic() - t0,
        )

    def shell_argv(self, env: dict[str, str] | None = None) -> list[str]:
        """An interactive shell in this sandbox, for the real terminal (see shell.py)."""
        from arena.sandbox.shell import local_shell_argv  # noqa: PLC0415

        return local_shell_argv(self, env)

    def observe_target(self) -> ObserveTarget:
        """Who the observer counts as this sandbox (arena/observe): members of its cgroup,
        running as the sandbox user (bwrap and the set-up shell run as root)."""

        return ObserveTarget(
            cgroup=f"/{cgroups.PARENT}/{self.id}\n" if self.cg else None,
            uid=self.uid if self.be.privileged else None,
            backend="local",
        )

    def _sweep(self) -> None:
        if self.cg is not None:
            self.cg.kill_all()

    def _host_path(self, path: str) -> tuple[Path, str]:
        rel = fsutil.inside(WORKSPACE, path)
        if rel is not None:
            return self.workspace, rel
        rel = fsutil.inside("/tmp", path)
        if rel is not None and self.be.privileged:
            return self.tmp, rel
        raise SandboxError(f"{path!r}: only {WORKSPACE} and /tmp can be copied in or out")

    async def copy_in(self, src: Path, dest: str) -> None:
        base, rel = self._host_path(dest)
        await asyncio.to_thread(fsutil.copy_in, Path(src), base, rel, self.uid if self.be.privileged else None)

    async def copy_out(self, src: str, dest: Path) -> None:
        base, rel = self._host_path(src)
        await asyncio.to_thread(fsutil.copy_out, base, rel, Path(dest))

    async def alive(self) -> bool:
        return not self.closed and self.state.is_dir()

    async def close(self) -> None:
        await asyncio.to_thread(self._close_sync)

    def _close_sync(self) -> None:
        self.closed = True
        registry.unregister(self.id)
        if self.cg is not None:
            self.cg.remove()
        if self.be.privileged and self.tmp.exists():
            _umount(self.tmp)
        registry.cleanup_local_state(self.id)  # the workspace quota mount released there
        if self.be.privileged and self.uid != os.geteuid():
            quota.free_uid(self.uid, self.id)
        if self.scratch_dir is not None:
            shutil.rmtree(self.scratch_dir, ignore_errors=True)
