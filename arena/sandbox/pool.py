"""Sandbox pools: ``pool.acquire(workspace) -> Sandbox``; never reuse a sandbox.

``CreatePool`` simply creates on acquire (the local backend starts in milliseconds);
the Docker backend has a real pool of pre-started containers (``docker_pool.py``).
Every acquired sandbox is the caller's to ``close()``.
"""
from __future__ import annotations

from pathlib import Path

from arena.sandbox.base import Limits, Mount


class CreatePool:
    def __init__(self, backend, limits: Limits, *, mounts: list[Mount], image: str,
                 workspace_readonly: bool):
        self.backend, self.limits, self.mounts = backend, limits, mounts
        self.image, self.workspace_readonly = image, workspace_readonly

    async def start(self) -> None:
        return None

    async def acquire(self, workspace: Path):
        return await self.backend.create(workspace, self.limits, mounts=self.mounts,
                                         image=self.image,
                                         workspace_readonly=self.workspace_readonly)

    async def close(self) -> None:
        return None
