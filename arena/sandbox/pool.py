"""Sandbox pools: ``pool.acquire(workspace) -> Sandbox``; never reuse a sandbox.

``CreatePool`` simply creates on acquire (the local backend starts in milliseconds);
the Docker backend has a real pool of pre-started containers (``docker_pool.py``).
Every acquired sandbox is the caller's to ``close()``.

``scratch="/judge-out"``: every sandbox also gets its own fresh writable host directory
bound there (``sandbox.scratch_dir``), removed at close — where a judge run writes its
report, since a pooled sandbox's mounts are fixed when the pool creates it.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from arena.sandbox import registry
from arena.sandbox.base import Limits, Mount


def scratch_dir(uid: int | None) -> Path:
    """A fresh writable directory tagged with our pid (cleanup_stale finds it)."""
    d = registry.STATE_ROOT / f"{registry.owner_tag()}-scratch-{secrets.token_hex(5)}"
    d.mkdir(parents=True)
    if uid is not None and os.geteuid() == 0:
        os.chown(d, uid, uid)
    os.chmod(d, 0o755 if uid is not None and os.geteuid() == 0 else 0o777)
    return d


class CreatePool:
    def __init__(
        self,
        backend,
        limits: Limits,
        *,
        mounts: list[Mount],
        image: str,
        workspace_readonly: bool,
        scratch: str | None = None,
    ):
        self.backend, self.limits, self.mounts = backend, limits, mounts
        self.image, self.workspace_readonly, self.scratch = image, workspace_readonly, scratch

    async def start(self) -> None:
        return None

    async def acquire(self, workspace: Path):
        mounts, scratch = list(self.mounts), None
        privileged = getattr(self.backend, "privileged", False) and os.geteuid() == 0
        if self.scratch:
            scratch = scratch_dir(0 if privileged else None)  # chowned to the sandbox's uid below
            mounts.append(Mount(scratch, self.scratch, readonly=False))
        try:
            sb = await self.backend.create(
                workspace, self.limits, mounts=mounts, image=self.image, workspace_readonly=self.workspace_readonly
            )
        except BaseException:
            if scratch is not None:
                import shutil  # noqa: PLC0415

                shutil.rmtree(scratch, ignore_errors=True)
            raise
        sb.scratch_dir = scratch
        if scratch is not None and privileged:
            os.chown(scratch, sb.uid, sb.uid)  # each sandbox has a uid of its own
        return sb

    async def close(self) -> None:
        return None
