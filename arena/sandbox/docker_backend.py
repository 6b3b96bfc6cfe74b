"""The Docker backend: one hardened container per sandbox, driven by the docker SDK.

Containers run ``sleep infinity`` under docker-init as uid 65534 (execs run as ``SANDBOX_UID``, a uid no host account has) with ``network_mode="none"``, memory =
memory+swap, a CPU quota, ``pids_limit``, a read-only root with a size-limited ``/tmp``
tmpfs, ``cap_drop=ALL``, ``no-new-privileges``, an ``fsize`` ulimit, and are labelled
``gauntlet=1`` (+ owner pid) so cleanup finds them. Blocking SDK calls run in threads.
The workspace is chowned to ``SANDBOX_UID`` at create (unless bound read-only). A pool's
launcher container runs a trusted main process instead (``main=``, docker_launch.py).
"""

from __future__ import annotations

import asyncio
import base64
import os
import secrets
import shutil
import threading
import time
from pathlib import Path
from typing import Callable, Sequence

from arena.sandbox.handover import made_in_thread
from arena.sandbox import fsutil, quota, registry
from arena.sandbox.base import WORKSPACE, ObserveTarget, ExecResult, Limits, Mount, SandboxError
from arena.sandbox.capture import CappedBuffer, LineSplitter
from arena.sandbox.image import SANDBOX_UID, ensure_image

INIT_UID = 65534  # runs the idle main process (out of reach of kill -1 by SANDBOX_UID)
STDIN_MAX = 1 << 20
CGROUP_PARENT = "gauntlet-docker"
_REAP = '"$@"; rc=$?; kill -9 -1 2>/dev/null; exit $rc'  # the wrapper of every exec
_FEED = 'printf %s "$GAUNTLET_STDIN_B64" | base64 -d | { unset GAUNTLET_STDIN_B64; exec "$@"; }'


class DockerBackend:
    name = "docker"

    def __init__(self, timeout: float = 120.0) -> None:
        try:
            import docker  # noqa: PLC0415

            self.client = docker.from_env(timeout=timeout)
            self.client.ping()
        except Exception as exc:  # noqa: BLE001
            raise SandboxError(f"docker sandbox unavailable: the engine does not answer ({exc})") from None
        self._images: dict[str, str] = {}
        try:
            cgroupfs = self.client.info().get("CgroupDriver") == "cgroupfs"
        except Exception:  # noqa: BLE001
            cgroupfs = False
        self.cgroup_parent = _weighted_cgroup_parent() if cgroupfs else None
        self.runtime = os.environ.get("GAUNTLET_DOCKER_RUNTIME") or None  # global default
        self._runtimes: set[str] | None = None
        if self.runtime:
            self.check_runtime(self.runtime)
        registry.install()

    def check_runtime(self, runtime: str) -> str:
        """``runtime`` if the engine has it registered (daemon.json ``runtimes``), else a
        SandboxError naming the ones it has."""
        if self._runtimes is None:
            try:
                self._runtimes = set(self.client.info().get("Runtimes") or {})
            except Exception as exc:  # noqa: BLE001
                raise SandboxError(f"docker: cannot list the engine's runtimes: {exc}") from None
        if runtime not in self._runtimes:
            raise SandboxError(
                f"sandbox runtime {runtime!r} is not registered with the Docker "
                f"engine (it has: {', '.join(sorted(self._runtimes))}); for "
                "gVisor: apt-get install runsc, add it to daemon.json "
                '"runtimes" and reload dockerd (SIGHUP)'
            )
        return runtime

    def image_ref(self, image: str, log: Callable[[str], None] | None = None) -> str:
        if image not in self._images:
            self._images[image] = ensure_image(self.client, image, log)
        return self._images[image]

    async def create(
        self,
        workspace: Path,
        limits: Limits,
        *,
        mounts: Sequence[Mount] = (),
        image: str = "gauntlet-base",
        workspace_readonly: bool = False,
    ):
        workspace = Path(workspace)
        if not workspace.is_dir():
            raise SandboxError(f"workspace {workspace} is not a directory")
        ws, ms = workspace.resolve(), list(mounts)
        return await made_in_thread(lambda: self.create_sync(ws, limits, ms, image, workspace_readonly, None))

    def pool(
        self,
        limits: Limits,
        *,
        mounts: Sequence[Mount] = (),
        image: str = "gauntlet-base",
        workspace_readonly: bool = True,
        size: int = 2,
        scratch: str | None = None,
        **kw,
    ):
        from arena.sandbox.docker_pool import DockerPool  # noqa: PLC0415

        return DockerPool(
            self,
            limits,
            mounts=list(mounts),
            image=image,
            workspace_readonly=workspace_readonly,
            size=size,
            scratch=scratch,
            **kw,
        )

    def create_sync(
        self,
        workspace: Path,
        limits: Limits,
        mounts: list[Mount],
        image: str,
        ro: bool,
        pool_dir: Path | None,
        host_mounts: Sequence[Path] = (),
        main: tuple[list[str], dict[str, str]] | None = None,
    ) -> "DockerSandbox":
        """Create and start one container. ``host_mounts``: host mounts (a pool's scratch
        tmpfs) the sandbox unmounts at close, before removing ``pool_dir``. ``main``:
        (argv, env) of a trusted main process run as the sandbox user instead of the
        idle ``sleep`` under docker-init: it is PID 1 itself, so nothing inside can signal
        it (a pooled judge launcher; its output is never logged)."""
        with registry.creating():  # an arena told to stop waits for this, then removes it
            return self._create_sync(workspace, limits, mounts, image, ro, pool_dir, host_mounts, main)

    def _create_sync(self, workspace, limits, mounts, image, ro, pool_dir, host_mounts, main):
        from docker.types import LogConfig, Mount as DMount, Ulimit  # noqa: PLC0415

        ref = self.image_ref(image)
        runtime = limits.runtime or self.runtime
        if runtime:  # before anything is made: an unknown runtime leaves nothing behind
            extra = {"runtime": self.check_runtime(runtime)}
        for m in mounts:
            if not Path(m.host).exists():
                raise SandboxError(f"mount source {m.host} does not exist")
        sid = f"{registry.owner_tag()}-{secrets.token_hex(5)}"
        if not ro:
            if os.geteuid() == 0:  # the same quota as local: a sized tmpfs on the workspace
                state = registry.STATE_ROOT / sid  # (fuse-overlayfs has no --storage-opt size)
                state.mkdir(parents=True, mode=0o700)
                try:
                    quota.limit_workspace(workspace, state, limits.workspace_mb, limits.workspace_inodes)
                except BaseException:
                    registry.cleanup_local_state(sid)
                    raise
            fsutil.chown_tree(workspace, SANDBOX_UID)
        binds = [DMount(WORKSPACE, str(workspace), type="bind", read_only=ro)]
        binds += [DMount(m.target, str(Path(m.host).resolve()), type="bind", read_only=m.readonly) for m in mounts]
        fsize = limits.file_mb << 20
        labels = {"gauntlet": "1", "gauntlet.owner": registry.owner_tag(), "gauntlet.sid": sid}
        if pool_dir is not None:
            labels["gauntlet.dir"] = str(pool_dir)
        uid = SANDBOX_UID if main else INIT_UID
        shm_mb = max(1, min(limits.tmpfs_mb, 16))
        # the tmpfs quotas are charged to the container: inside its limit, never OOM-killing it
        mem_mb = limits.cgroup_memory_mb(workspace_tmpfs=not ro and os.geteuid() == 0, shm_mb=shm_mb)
        extra = {
            **(extra if runtime else {}),
            **({"environment": main[1], "log_config": LogConfig(type="none")} if main else {}),
        }
        try:
            c = self.client.containers.create(
                ref,
                main[0] if main else ["sleep", "infinity"],
                name=f"gauntlet-{sid}",
                user=f"{uid}:{uid}",
                init=not main,
                **extra,
                working_dir=WORKSPACE,
                network_mode="none" if not limits.network else "bridge",
                mem_limit=f"{mem_mb}m",
                memswap_limit=f"{mem_mb}m",
                nano_cpus=int(limits.cpus * 1e9),
                pids_limit=limits.pids,
                read_only=True,
                tmpfs={
                    "/tmp": f"size={limits.tmpfs_mb}m,nr_inodes={limits.tmp_inodes},mode=1777"
                    + (",exec" if getattr(limits, "tmp_exec", False) else "")
                },
                shm_size=f"{shm_mb}m",
                cap_drop=["ALL"],
                security_opt=["no-new-privileges"],
                mounts=binds,
                ulimits=[Ulimit(name="fsize", soft=fsize, hard=fsize), Ulimit(name="core", soft=0, hard=0)],
                labels=labels,
                detach=True,
                stdin_open=False,
                tty=False,
                **({"cgroup_parent": self.cgroup_parent} if self.cgroup_parent else {}),
            )
        except Exception as exc:  # noqa: BLE001
            registry.cleanup_local_state(sid)
            raise SandboxError(f"docker: cannot create a sandbox from {ref}: {exc}") from None
        sb = DockerSandbox(self, sid, c, workspace, limits, pool_dir)
        sb.host_mounts = list(host_mounts)
        registry.register(sid, sb._close_sync)
        try:
            c.start()
        except Exception as exc:  # noqa: BLE001
            sb._close_sync()
            raise SandboxError(f"docker: cannot start sandbox {sid}: {exc}") from None
        return sb


def _weighted_cgroup_parent() -> str | None:
    """A cgroup parent weighted like one task per CPU (see cgroups.available()): Docker's
    own ``/docker`` parent weighs as one task, so under load a container gets far less
    CPU than the same command run bare. Only with root, cgroup v1 and the cgroupfs driver."""
    cpu = Path("/sys/fs/cgroup/cpu")
    if os.geteuid() != 0 or not (cpu / "cpu.shares").exists():
        return None
    try:
        d = cpu / CGROUP_PARENT
        d.mkdir(exist_ok=True)
        (d / "cpu.shares").write_text(str(1024 * (os.cpu_count() or 1)))
    except OSError:
        return None
    return "/" + CGROUP_PARENT


class DockerSandbox:
    backend = "docker"

    def __init__(self, be: DockerBackend, sid, container, workspace: Path, limits: Limits, pool_dir: Path | None):
        self.be, self.id, self.container = be, sid, container
        self.workspace, self.limits, self.pool_dir = workspace, limits, pool_dir
        self.uid = SANDBOX_UID
        self.scratch_dir: Path | None = None  # set by a pool created with ``scratch=``
        self.host_mounts: list[Path] = []  # unmounted at close
        self.request: Path | None = None  # a launcher's request FIFO (docker_launch.py)
        self.closed = False

    @property
    def api(self):
        return self.be.client.api

    def _kill_all_sync(self) -> None:
        """SIGKILL every process of the sandbox user except the container's init."""
        try:
            eid = self.api.exec_create(
                self.container.id, ["sh", "-c", "kill -9 -1"], user=f"{SANDBOX_UID}:{SANDBOX_UID}"
            )["Id"]
            self.api.exec_start(eid)
        except Exception:  # noqa: BLE001 — container may be gone already
            pass

    def run_sync(self, argv: list[str], env: dict[str, str] | None = None) -> int | None:
        """Run a trusted command to its end (no output kept, no timeout: pool warm-up),
        then kill every process of the sandbox user, as ``exec`` does."""
        argv = ["sh", "-c", '"$@"; rc=$?; kill -9 -1 2>/dev/null; exit $rc', "sh", *argv]
        try:
            eid = self.api.exec_create(
                self.container.id, argv, user=f"{SANDBOX_UID}:{SANDBOX_UID}", environment=env or None
            )["Id"]
            self.api.exec_start(eid)
            return self.api.exec_inspect(eid).get("ExitCode")
        except Exception as exc:  # noqa: BLE001
            raise SandboxError(f"docker exec in sandbox {self.id} failed: {exc}") from None

    def _run_sync(
        self,
        eid: str,
        out: CappedBuffer,
        err: CappedBuffer,
        split: tuple[LineSplitter | None, LineSplitter | None] = (None, None),
    ) -> None:
        for o, e in self.api.exec_start(eid, stream=True, demux=True):
            if o:
                out.feed(o)
                if split[0] is not None:
                    split[0].feed(o)
            if e:
                err.feed(e)
                if split[1] is not None:
                    split[1].feed(e)
        for s in split:
            if s is not None:
                s.flush()

    def observe_target(self) -> ObserveTarget:
        """Who the observer counts as this sandbox (arena/observe): processes in the
        container's cgroup (``docker exec`` children descend from containerd-shim, not
        from the container's init) running as the exec user, minus the exec wrappers."""

        return ObserveTarget(
            cgroup=self.container.id,
            uid=SANDBOX_UID,
            backend="docker",
            skip=(("sh", "-c", _REAP), ("sh", "-c", _FEED), ("base64", "-d")),
        )

    async def exec(
        self,
        argv: list[str],
        *,
        timeout: float | None = None,
        env: dict[str, str] | None = None,
        cwd: str = WORKSPACE,
        stdin: bytes | None = None,
        on_output: Callable[[str, str], None] | None = None,
    ) -> ExecResult:
        """``on_output(stream, line)``: called on the loop for each line as it arrives."""
        if self.closed:
            raise SandboxError(f"sandbox {self.id} is closed")
        if not argv:
            raise SandboxError("exec needs a command")
        timeout = self.limits.wall_s if timeout is None else timeout
        env = dict(env or {})
        argv = list(argv)
        if stdin is not None:  # fed through the environment (no attach socket needed)
            if len(stdin) > STDIN_MAX:
                raise SandboxError(f"stdin larger than {STDIN_MAX} bytes is not supported")
            env["GAUNTLET_STDIN_B64"] = base64.b64encode(stdin).decode()
            argv = ["sh", "-c", _FEED, "sh", *argv]
        # Nothing the command leaves running outlives it: every process of the sandbox
        # user is killed when it ends (the container's init runs as another uid).
        argv = ["sh", "-c", _REAP, "sh", *argv]
        t0 = time.monotonic()
        try:
            eid = (
                await asyncio.to_thread(
                    self.api.exec_create,
                    self.container.id,
                    argv,
                    user=f"{SANDBOX_UID}:{SANDBOX_UID}",
                    workdir=cwd,
                    environment=env or None,
                )
            )["Id"]
        except Exception as exc:  # noqa: BLE001
            raise SandboxError(f"docker exec in sandbox {self.id} failed: {exc}") from None

        def overflow():  # kill from another thread: the reader must keep draining
            threading.Thread(target=self._kill_all_sync, daemon=True).start()

        out = CappedBuffer(self.limits.output_bytes, overflow)
        err = CappedBuffer(self.limits.output_bytes, overflow)
        split: tuple[LineSplitter | None, LineSplitter | None] = (None, None)
        if on_output is not None:
            loop = asyncio.get_running_loop()

            def relay(name: str, line: str) -> None:  # from the reader thread to the loop
                loop.call_soon_threadsafe(on_output, name, line)

            split = (LineSplitter("stdout", relay), LineSplitter("stderr", relay))
        run = asyncio.ensure_future(asyncio.to_thread(self._run_sync, eid, out, err, split))
        timed_out = False
        try:
            await asyncio.wait_for(asyncio.shield(run), timeout)
        except asyncio.TimeoutError:
            timed_out = True
            await asyncio.to_thread(self._kill_all_sync)
            try:
                await asyncio.wait_for(run, 15)
            except Exception:  # noqa: BLE001
                pass
        except Exception as exc:  # noqa: BLE001
            raise SandboxError(f"docker exec in sandbox {self.id} failed: {exc}") from None
        try:
            info = await asyncio.to_thread(self.api.exec_inspect, eid)
        except Exception as exc:  # noqa: BLE001 — the container died under the command
            raise SandboxError(f"docker sandbox {self.id} died during exec: {exc}") from None
        rc = info.get("ExitCode")
        if not timed_out and not info.get("Pid"):  # the engine never started the process
            raise SandboxError(
                f"docker exec in sandbox {self.id}: {(out.value() + err.value()).decode(errors='replace').strip()}"
            )
        return ExecResult(
            exit_code=None if timed_out else rc,
            stdout=out.value(),
            stderr=err.value(),
            timed_out=timed_out,
            truncated=out.truncated or err.truncated,
            duration_s=time.monotonic() - t0,
        )

    @property
    def launcher(self) -> bool:
        """True when the main process is a pool's launcher: run with ``launch``, once."""
        return self.request is not None

    async def launch(self, args: list[str], *, timeout: float) -> ExecResult:
        """The one run of a launcher container (see docker_launch.py)."""
        from arena.sandbox.docker_launch import launch  # noqa: PLC0415

        if self.request is None:
            raise SandboxError(f"sandbox {self.id} has no launcher")
        return await launch(self, args, timeout=timeout)

    def shell_argv(self, env: dict[str, str] | None = None) -> list[str]:
        """An interactive shell in this container, for the real terminal (see shell.py)."""
        from arena.sandbox.shell import docker_shell_argv  # noqa: PLC0415

        return docker_shell_argv(self, env)

    def _host(self, path: str) -> str:
        rel = fsutil.inside(WORKSPACE, path)
        if rel is None:
            raise SandboxError(f"{path!r}: the docker sandbox copies in and out of {WORKSPACE} only")
        return rel

    async def copy_in(self, src: Path, dest: str) -> None:
        rel = self._host(dest)
        await asyncio.to_thread(fsutil.copy_in, Path(src), self.workspace, rel, SANDBOX_UID)

    async def copy_out(self, src: str, dest: Path) -> None:
        rel = self._host(src)
        await asyncio.to_thread(fsutil.copy_out, self.workspace, rel, Path(dest))

    async def alive(self) -> bool:
        if self.closed:
            return False
        try:
            await asyncio.to_thread(self.container.reload)
        except Exception:  # noqa: BLE001
            return False
        return self.container.status == "running"

    async def close(self) -> None:
        await asyncio.to_thread(self._close_sync)

    def _close_sync(self) -> None:
        self.closed = True
        registry.unregister(self.id)
        try:
            self.container.remove(force=True, v=True)
        except Exception as exc:  # noqa: BLE001
            if "No such container" not in str(exc) and "404" not in str(exc):
                raise SandboxError(f"docker: cannot remove sandbox {self.id}: {exc}") from None
        finally:
            for m in self.host_mounts:  # after the container is gone: nothing holds them
                fsutil.umount_lazy(m)
            self.host_mounts = []
            if self.pool_dir is not None:
                shutil.rmtree(self.pool_dir, ignore_errors=True)
            registry.cleanup_local_state(self.id)  # the workspace quota: copied back, unmounted
