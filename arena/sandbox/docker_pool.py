"""A bounded pool of pre-started Docker sandboxes for one image + limits + mounts.

Each pooled container binds its own fresh host directory at ``/workspace``; ``acquire``
copies the caller's workspace (links kept as links) into it and hands the sandbox over.
A sandbox leaves the pool once and is never reused: the caller closes it, and the pool
starts a replacement in the background. With no ready container, ``acquire`` creates
one cold (the same way). With ``scratch=<target>`` each container also binds its own
writable directory there (``sandbox.scratch_dir`` on the host).
"""
from __future__ import annotations

import asyncio
import os
import secrets
import shutil
from pathlib import Path

from arena.sandbox import fsutil, registry
from arena.sandbox.base import Limits, Mount, SandboxError
from arena.sandbox.docker_backend import SANDBOX_UID


class DockerPool:
    def __init__(self, backend, limits: Limits, *, mounts: list[Mount], image: str,
                 workspace_readonly: bool, size: int = 2, scratch: str | None = None):
        if size < 0:
            raise SandboxError(f"pool size must be >= 0, got {size}")
        self.backend, self.limits, self.mounts = backend, limits, mounts
        self.image, self.ro, self.size = image, workspace_readonly, size
        self.scratch = scratch
        self.ready: list = []
        self.pending: set[asyncio.Task] = set()
        self.closed = False
        self.errors: list[str] = []

    async def start(self) -> None:
        """Fill the pool and wait until it is full (or a creation failed)."""
        self._refill()
        if self.pending:
            await asyncio.gather(*self.pending, return_exceptions=True)

    def _refill(self) -> None:
        while not self.closed and len(self.ready) + len(self.pending) < self.size:
            task = asyncio.ensure_future(asyncio.to_thread(self._make_one))
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
        sb = task.result()
        if self.closed:
            asyncio.ensure_future(sb.close())
        else:
            self.ready.append(sb)

    def _make_one(self):
        d = registry.STATE_ROOT / f"{registry.owner_tag()}-pool-{secrets.token_hex(5)}"
        ws = d / "ws"
        ws.mkdir(parents=True)
        os.chmod(d, 0o755)
        mounts = list(self.mounts)
        if self.scratch:
            (d / "scratch").mkdir()
            os.chown(d / "scratch", SANDBOX_UID, SANDBOX_UID)
            mounts.append(Mount(d / "scratch", self.scratch, readonly=False))
        try:
            sb = self.backend.create_sync(ws, self.limits, mounts, self.image, self.ro, d)
        except BaseException:
            shutil.rmtree(d, ignore_errors=True)
            raise
        if self.scratch:
            sb.scratch_dir = d / "scratch"
        return sb

    @staticmethod
    def _fill_workspace(src: Path, ws: Path, uid: int | None) -> None:
        shutil.copytree(src, ws, symlinks=True, dirs_exist_ok=True)
        if uid is not None:
            fsutil.chown_tree(ws, uid)

    async def acquire(self, workspace: Path):
        """A fresh sandbox holding a copy of ``workspace``; the caller closes it."""
        if self.closed:
            raise SandboxError("pool is closed")
        workspace = Path(workspace)
        if not workspace.is_dir():
            raise SandboxError(f"workspace {workspace} is not a directory")
        if self.ready:
            sb = self.ready.pop(0)
        else:  # none ready: create one cold, the same way
            sb = await asyncio.to_thread(self._make_one)
        self._refill()
        try:
            await asyncio.to_thread(self._fill_workspace, workspace, sb.workspace,
                                    None if self.ro else sb.uid)
        except BaseException:
            await sb.close()
            raise
        return sb

    async def close(self) -> None:
        self.closed = True
        for t in list(self.pending):
            try:
                await t  # let a creation in flight finish, then remove it
            except Exception:  # noqa: BLE001
                pass
        ready, self.ready = self.ready, []
        await asyncio.gather(*(sb.close() for sb in ready), return_exceptions=True)
