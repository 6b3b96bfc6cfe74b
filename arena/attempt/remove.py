"""Removing stored attempts (``gauntlet attempts rm ID...``; the TUI binds a key to it).

``remove_attempts(store_path, ids)`` checks every id first and removes nothing when one is
unknown or still running (its status ``running`` and the process that runs it alive: the
``runner_pid`` of its latest ``attempt.started``/``attempt.resumed``, judged by that
runner's lock as crash recovery judges it, ``recover.owned_by_live_runner``; this process's
own running attempts count as alive). Otherwise it deletes, in one transaction, the
attempts' rows, events, submissions and feedback (``Store.remove_attempts``), then their
files beside the store: the model-call transcript (``<store>.d/transcripts``), the judge
model's readings (``<store>.d/judge-readings``) and the workspace when it lies under
``<store>.d/workspaces`` (a recorded path elsewhere is never deleted). Submission
snapshots are content-addressed and shared between attempts: they stay. An attempt whose
runner has died without closing it (status still ``running``) may be removed.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from store import Store


@dataclass
class Removal:
    """What ``remove_attempts`` did. ``ok`` is False when nothing was removed because of
    ``unknown`` or ``running`` ids (``refusal`` says why, one line)."""

    removed: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    running: dict[str, int] = field(default_factory=dict)  # attempt -> the pid of its live runner
    files: int = 0  # files and directories deleted beside the store
    left: list[str] = field(default_factory=list)  # paths that could not be deleted (and why)

    @property
    def ok(self) -> bool:
        return not self.unknown and not self.running

    def refusal(self, store: Path) -> str:
        parts = []
        if self.unknown:
            parts.append(f"unknown attempt(s) {', '.join(self.unknown)} in store {store}")
        if self.running:
            live = ", ".join(f"{a} (pid {pid})" for a, pid in self.running.items())
            parts.append(f"still running: {live}; stop it first (the TUI's stop key, or end that process)")
        return "; ".join(parts) + ": nothing removed"


async def runner_alive(store: Store, row: dict) -> int | None:
    """The pid of the live process that runs this attempt now, None if none does."""
    if row.get("status") != "running":
        return None
    from arena.attempt.control import runner_pid  # noqa: PLC0415
    from arena.attempt.records import ResumeState  # noqa: PLC0415
    from arena.attempt.recover import owned_by_live_runner  # noqa: PLC0415

    pid = await runner_pid(store, str(row["id"]))
    if pid is None:
        return None
    if pid == os.getpid():
        return pid  # this process runs it (the TUI's own live attempt)
    state = ResumeState(attempt=str(row["id"]), started={}, elapsed_s=0.0, last_seq=0, runner_pid=pid)
    return pid if owned_by_live_runner(state) else None


async def remove_attempts(store_path: Path, ids: list[str]) -> Removal:
    """Remove the attempts ``ids`` from the store at ``store_path`` and their files; all or
    nothing (see the module's docstring). The store must exist."""
    from store import Store  # noqa: PLC0415

    out = Removal()
    wanted = list(dict.fromkeys(ids))
    st = await Store.open(store_path)
    try:
        rows = {}
        for aid in wanted:
            row = await st.get_attempt(aid)
            if row is None:
                out.unknown.append(aid)
                continue
            rows[aid] = row
            pid = await runner_alive(st, row)
            if pid is not None:
                out.running[aid] = pid
        if not out.ok:
            return out
        removed = await st.remove_attempts(wanted)
    finally:
        await st.close()
    out.removed = [str(r["id"]) for r in removed]
    for row in removed:
        _remove_files(Path(store_path), row, out)
    return out


def _remove_files(store: Path, row: dict, out: Removal) -> None:
    from arena.gateway.transcript import transcript_path  # noqa: PLC0415
    from arena.scoring.llm_judge import cache_path  # noqa: PLC0415

    aid = str(row["id"])
    data = store.with_name(store.name + ".d")
    targets = [transcript_path(data / "transcripts", aid), cache_path(data / "judge-readings", aid)]
    ws = row.get("workspace")
    root = (data / "workspaces").resolve()
    if ws:
        w = Path(str(ws))
        if w.resolve().parent == root and w.name == aid:  # ours: never a path elsewhere
            targets.append(w)
    elif (root / aid).is_dir():
        targets.append(root / aid)
    for p in targets:
        if not p.exists() and not p.is_symlink():
            continue
        try:
            if p.is_dir() and not p.is_symlink():
                shutil.rmtree(p)
            else:
                p.unlink()
            out.files += 1
        except OSError as exc:
            out.left.append(f"{p} ({exc.strerror or exc})")


__all__ = ["Removal", "remove_attempts", "runner_alive"]
