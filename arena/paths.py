"""Where Gauntlet keeps its files. The store defaults to ./gauntlet.db (CONTRACT §5);
workspaces, snapshots and sockets of a store live in ``<store>.d/`` beside it."""

from __future__ import annotations

import os
from pathlib import Path


def store_path(explicit: str | os.PathLike | None = None) -> Path:
    """The store file, absolute: its data directory (workspaces, transcripts) is bind-mounted
    into sandboxes and host agents' namespaces, where a relative path means nothing."""
    if explicit:
        return Path(explicit).absolute()
    return Path(os.environ.get("GAUNTLET_STORE", "gauntlet.db")).absolute()


def data_dir(store: Path) -> Path:
    d = store.with_name(store.name + ".d")
    if not d.is_dir():  # private, as its store (store.Store.open): no host agent's uid reads it
        d.mkdir(parents=True, exist_ok=True)
        os.chmod(d, d.stat().st_mode & 0o7770)
    return d


def workspaces_root(store: Path) -> Path:
    """One shared root for every attempt's workspace (one watcher watches it all)."""
    d = data_dir(store) / "workspaces"
    d.mkdir(parents=True, exist_ok=True)
    return d


def snapshots_root(store: Path) -> Path:
    d = data_dir(store) / "snapshots"
    d.mkdir(parents=True, exist_ok=True)
    return d


def transcripts_root(store: Path) -> Path:
    """Model-call transcripts of real agents, one compressed file per attempt."""
    d = data_dir(store) / "transcripts"
    d.mkdir(parents=True, exist_ok=True)
    return d


def sockets_root(store: Path) -> Path:
    # Unix socket paths are limited to ~107 bytes: keep them short, under /tmp.
    d = Path(os.environ.get("GAUNTLET_SOCKETS", "/tmp/gauntlet-sockets"))
    d.mkdir(parents=True, exist_ok=True)
    return d
