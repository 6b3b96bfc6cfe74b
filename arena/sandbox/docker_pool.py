"""A bounded pool of pre-started Docker sandboxes for one image + limits + mounts.

Each pooled container binds its own fresh host directory at ``/workspace``; ``acquire``
copies the caller's workspace (links kept as links) into it and hands the sandbox over.
A sandbox leaves the pool once and is never reused: the caller closes it, and the pool
starts a replacement in the background (at acquire, or — ``acquire(refill=False)`` —
when the caller calls ``refill()``, e.g. after its run, so the engine's creation work
does not compete with that run). With no ready container, ``acquire`` creates one cold
(the same way; ``size=0`` is a pool that only ever creates cold). With
``scratch=<target>`` each container also binds its own writable directory there
(``sandbox.scratch_dir`` on the host), a ``scratch_mb`` tmpfs when given and root.
``warm=argv``: a trusted command run once in each new container before it is handed out
(e.g. importing the test runner), so the first real exec does not pay for the fresh
overlay mount's cold file lookups; it runs before any submission is copied in and
every process it started is killed when it ends. ``launcher=(argv, env)`` (needs
``scratch``): each container's main process is that trusted argv instead of an idle
``sleep``, waiting for one request on a FIFO in the scratch directory
(``sandbox.launch(args)``, see docker_launch.py); a pre-started one is handed out once
the launcher is ready (``.ready``) — its start-up is the warm-up. A cold acquire gets an
idle container (run with ``exec``): a launcher there would start while the caller waits.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import shutil
from pathlib import Path
from typing import Callable

from arena.sandbox import docker_launch, fsutil, launch, registry
from arena.sandbox.handover import made_in_thread
from arena.sandbox.base import Limits, Mount, SandboxError
from arena.sandbox.image import SANDBOX_UID


class DockerPool:
    def __init__(
        self,
        backend,
        limits: Limits,
        *,
        mounts: list[Mount],
        image: str,
        workspace_readonly: bool,
        size: int = 2,
        scratch: str | None = None,
        scratch_mb: int | None = None,
        warm: list[str] | None = None,
        warm_env: dict[str, str] | None = None,
        launcher: tuple[list[str], dict[str, str]] | None = None,
    ):
        if size < 0:
            raise SandboxError(f"pool size must be >= 0, got {size}")
        if launcher is not None and not scratch:
            raise SandboxError("a launcher pool needs a scratch directory (its request FIFO)")
        self.launcher = launcher
        self.backend, self.limits, self.mounts = backend, limits, mounts
        self.image, self.ro, self.size = image, workspace_readonly, size
        self.scratch, self.scratch_mb = scratch, scratch_mb
        self.warm, self.warm_env = warm, warm_env
        self.ready: list = []
        self.pending: set[asyncio.Task] = set()
        self.closed = False
        self.errors: list[str] = []

    async def start(self) -> None:
        """Fill the pool and wait until it is full (or a creation failed)."""
        self._refill()
        if self.pending:
            await asyncio.gather(*self.pending, return_exceptions=True)

    def refill(self) -> None:
        """Start creating containers until ``size`` are ready or pending (needs a loop)."""
        self._refill()

    def _refill(self) -> None:
        while not self.closed and len(self.ready) + len(self.pending) < self.size:
            task = asyncio.ensure_future(made_in_thread(lambda: self._make_one(None, True)))
            self.pending.add(task)
            task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task) -> None:
        self.pending.discard(task)
        if task.cancelled():
            return
        exc = task.exception()
        if exc is not None:
            self.errors.append(str(exc))
            return
        self.ready.append(task.result())  # closed pool: close() removes it (awaits pending)

    @staticmethod
    def _new_dir() -> Path:
        d = registry.STATE_ROOT / f"{registry.owner_tag()}-pool-{secrets.token_hex(5)}"
        (d / "ws").mkdir(parents=True)
        os.chmod(d, 0o755)
        return d

    def _make_one(self, d: Path | None = None, warm: bool = False):
        # The whole making (host dirs, tmpfs, container, warm-up) is one creation for
        # the registry: an arena told to stop waits for it, then removes what it made.
        with registry.creating():
            return self._make(d or self._new_dir(), warm)

    def _make(self, d: Path, warm: bool):
        # A launcher only in pre-started containers: started on a cold acquire it would
        # start while the caller waits, like an exec, and gain nothing.
        launcher = self.launcher if warm else None
        ws = d / "ws"
        mounts = list(self.mounts)
        tmpfs = []
        try:
            if self.scratch:
                (d / "scratch").mkdir()
                if self.scratch_mb and fsutil.mount_tmpfs(d / "scratch", self.scratch_mb, SANDBOX_UID):
                    tmpfs.append(d / "scratch")
                else:
                    os.chown(d / "scratch", SANDBOX_UID, SANDBOX_UID)
                mounts.append(Mount(d / "scratch", self.scratch, readonly=False))
                if launcher:
                    launch.make_fifos(d / "scratch", SANDBOX_UID)
            sb = self.backend.create_sync(ws, self.limits, mounts, self.image, self.ro, d, tmpfs, main=launcher)
        except BaseException:
            for m in tmpfs:
                fsutil.umount_lazy(m)
            shutil.rmtree(d, ignore_errors=True)
            raise
        if self.scratch:
            sb.scratch_dir = d / "scratch"
        if launcher:
            sb.request = d / "scratch" / docker_launch.REQUEST
        if warm and (self.warm or launcher):  # not on a cold acquire: the caller waits
            try:
                if launcher:
                    docker_launch.wait_ready(sb)
                else:
                    sb.run_sync(self.warm, self.warm_env)
            except BaseException:
                sb._close_sync()
                raise
        return sb

    @staticmethod
    def _fill_workspace(src: Path, ws: Path, uid: int | None) -> None:
        shutil.copytree(src, ws, symlinks=True, dirs_exist_ok=True)
        if uid is not None:
            fsutil.chown_tree(ws, uid)

    async def acquire(
        self, workspace: Path | None = None, *, fill: Callable[[Path], None] | None = None, refill: bool = True
    ):
        """A fresh sandbox holding a copy of ``workspace`` (or what ``fill(ws_dir)``
        writes there, run in a thread); the caller closes it. Cold (none ready): the
        container is created while the workspace is filled."""
        if self.closed:
            raise SandboxError("pool is closed")
        if fill is None:
            if workspace is None:
                raise TypeError("DockerPool.acquire needs a workspace or fill=")
            src = Path(workspace)
            if not src.is_dir():
                raise SandboxError(f"workspace {src} is not a directory")
            uid = None if self.ro else SANDBOX_UID

            def fill(ws: Path) -> None:
                self._fill_workspace(src, ws, uid)

        if self.ready:
            sb = self.ready.pop(0)
            if refill:
                self._refill()
            try:
                await asyncio.to_thread(fill, sb.workspace)
            except BaseException:
                await sb.close()
                raise
            return sb
        return await self._cold(fill, refill)

    async def _cold(self, fill, refill: bool):
        # The workspace dir is made first, then filled while the container is created:
        # the bind mount shows what is in the directory whenever it is written.
        d = self._new_dir()
        made = asyncio.ensure_future(made_in_thread(lambda: self._make_one(d)))
        filled = asyncio.ensure_future(asyncio.to_thread(fill, d / "ws"))
        try:
            await asyncio.wait({made, filled})  # (wait does not cancel them if we are)
        except asyncio.CancelledError:  # the caller gave up: what is being made is removed
            if not made.done():
                made.cancel()  # (by its thread, even if this loop ends first: handover.py)
            elif not made.cancelled() and made.exception() is None:
                made.result()._close_sync()
            raise
        if refill:
            self._refill()
        made_exc = made.exception()
        if made_exc is not None:
            shutil.rmtree(d, ignore_errors=True)
            raise made_exc
        sb = made.result()
        filled_exc = filled.exception()
        if filled_exc is not None:
            await sb.close()
            raise filled_exc
        return sb

    async def close(self) -> None:
        self.closed = True
        while self.pending:  # let creations in flight finish (_done adds them to ready)
            await asyncio.gather(*list(self.pending), return_exceptions=True)
            await asyncio.sleep(0)
        ready, self.ready = self.ready, []
        await asyncio.gather(*(sb.close() for sb in ready), return_exceptions=True)
