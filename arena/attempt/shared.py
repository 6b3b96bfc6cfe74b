"""What every attempt of one arena shares: one bus, one store, one judge pool,
one sandbox backend, one workspace watcher, one data directory."""
from __future__ import annotations

import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena import paths
from arena.bus import EventBus
from arena.telemetry.watch import WorkspaceWatcher


@dataclass
class Shared:
    bus: EventBus
    store: Any  # store.Store
    judge: Any  # arena.judge.Judge
    backend: Any  # arena.sandbox backend
    watcher: WorkspaceWatcher
    store_path: Path

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
        tool = d / "bin" / "gauntlet-agent"
        if not tool.exists():
            src = Path(__file__).resolve().parent.parent / "agents" / "client.py"
            text = src.read_text()
            if text.startswith("#!"):
                text = text.split("\n", 1)[1]
            # python3 inside sandboxes; the arena's own interpreter on the host.
            tool.write_text("#!/usr/bin/env python3\n" + text)
            tool.chmod(0o755)
        host_tool = d / "bin" / "host" / "gauntlet-agent"
        if not host_tool.exists():
            host_tool.parent.mkdir(exist_ok=True)
            host_tool.write_text(f"#!{sys.executable}\n" + tool.read_text().split("\n", 1)[1])
            host_tool.chmod(0o755)
        return d

    def remove_agent_dir(self, attempt: str) -> None:
        shutil.rmtree(paths.sockets_root(self.store_path) / attempt, ignore_errors=True)
