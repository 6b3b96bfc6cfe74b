"""What every attempt of one arena shares: one bus, one store, one judge pool,
one sandbox backend, one workspace watcher, one data directory."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import time
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from arena import paths
from arena.bus import EventBus
from arena.telemetry.watch import WorkspaceWatcher

if TYPE_CHECKING:
    from arena.challenge import Challenge
    from arena.gateway import Gateway
    from arena.judge import Judge
    from arena.sandbox.base import Backend
    from store import Store

log = logging.getLogger(__name__)
_WARMING: set[asyncio.Future[None]] = set()  # strong references to the background warm-ups


@dataclass
class Shared:
    bus: EventBus
    store: Store
    judge: Judge
    backend: Backend
    watcher: WorkspaceWatcher
    store_path: Path
    _gateway: Gateway | None = None  # started on first use

    async def gateway(self) -> Gateway:
        """The arena process's one model gateway (CONTRACT §8), serving every attempt;
        transcripts are kept beside the store (``<store>.d/transcripts/``)."""
        if self._gateway is None:
            from arena.gateway import Gateway  # noqa: PLC0415

            gw = Gateway(
                root=paths.sockets_root(self.store_path) / f"gw-{os.getpid()}",
                transcript_dir=paths.transcripts_root(self.store_path),
            )
            await gw.start()
            self._gateway = gw
        return self._gateway

    async def close_gateway(self) -> None:
        if self._gateway is not None:
            gw, self._gateway = self._gateway, None
            with contextlib.suppress(Exception):
                await gw.aclose()

    @property
    def workspaces(self) -> Path:
        return paths.workspaces_root(self.store_path)

    @property
    def snapshots(self) -> Path:
        return paths.snapshots_root(self.store_path)

    def agent_dir(self, attempt: str) -> Path:
        """Per-attempt directory holding the socket, the briefing and ``bin/gauntlet-agent``
        (mounted read-only at ``/gauntlet`` inside sandboxes). Kept short for socket paths."""
        d = paths.sockets_root(self.store_path) / attempt
        (d / "bin").mkdir(parents=True, exist_ok=True)
        owner = d / "owner"
        if not owner.exists():
            owner.write_text(str(os.getpid()))
        tool = d / "bin" / "gauntlet-agent"
        if not tool.exists():
            src = Path(__file__).resolve().parent.parent / "agents" / "client.py"
            text = src.read_text()
            if text.startswith("#!"):
                text = text.split("\n", 1)[1]
            # python3 inside sandboxes; the arena's own interpreter on the host.
            tool.write_text("#!/usr/bin/env python3\n" + text)
            tool.chmod(0o755)
        shim = d / "bin" / "python"
        if not shim.exists():
            # the local backend runs on the host's system, which may have only python3
            shim.write_text('#!/bin/sh\nexec python3 "$@"\n')
            shim.chmod(0o755)
        host_tool = d / "bin" / "host" / "gauntlet-agent"
        if not host_tool.exists():
            host_tool.parent.mkdir(exist_ok=True)
            host_tool.write_text(f"#!{sys.executable}\n" + tool.read_text().split("\n", 1)[1])
            host_tool.chmod(0o755)
        # `gauntlet-agent mcp` loads the MCP server from beside itself (both copies)
        mcp_src = Path(__file__).resolve().parent.parent / "agents" / "gauntlet_mcp.py"
        for where in (d / "bin", host_tool.parent):
            if not (where / mcp_src.name).exists():
                shutil.copyfile(mcp_src, where / mcp_src.name)
        return d

    def warm_judge(self, challenge: Challenge, phases: list[int]) -> None:
        """Have the judge prepare a sandbox for these phases in the background (a Docker
        container from the pool, a prepared local sandbox), so the first submission does
        not pay a cold start. Never delays the attempt; a failure only costs that."""
        warm = getattr(self.judge, "warm", None)
        if warm is None:
            return

        async def run() -> None:
            try:
                await warm(challenge, phases)
            except Exception as exc:  # noqa: BLE001 — the next run is simply cold
                log.warning("judge warm-up for %s failed: %s", getattr(challenge, "id", "?"), exc)

        task = asyncio.ensure_future(run())
        _WARMING.add(task)
        task.add_done_callback(_WARMING.discard)

    def remove_agent_dir(self, attempt: str) -> None:
        shutil.rmtree(paths.sockets_root(self.store_path) / attempt, ignore_errors=True)

    def sweep_stale_agent_dirs(self) -> int:
        """Remove agent directories whose arena process is gone (a crash or a kill left
        them). A resumed attempt gets its directory back when it starts again."""
        n = 0
        for d in paths.sockets_root(self.store_path).glob("a-*"):
            try:
                pid = int((d / "owner").read_text())
            except (OSError, ValueError):
                pid = None
                with contextlib.suppress(OSError):
                    if d.stat().st_mtime > time.time() - 60:
                        continue  # being created right now by another arena
            if pid is not None and (pid == os.getpid() or Path(f"/proc/{pid}").exists()):
                continue
            shutil.rmtree(d, ignore_errors=True)
            n += 1
        return n
