"""100 concurrent scripted attempts on the local backend with a sped-up clock: all
complete, every event is stored, nothing is left behind (sandboxes, processes, sockets,
watches)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from arena import paths
from arena.challenge import load_challenge
from arena.sandbox import registry
from arena import events as ev
from attempt_kit import make_package, of, open_arena

N = 100


def _processes_of(attempts: set[str]) -> list[str]:
    found = []
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                env = (p / "environ").read_bytes()
            except OSError:
                continue
            found += [p.name for a in attempts if f"GAUNTLET_ATTEMPT={a}".encode() in env]
    return found


@pytest.mark.slow
async def test_hundred_concurrent_scripted_attempts(tmp_path, monkeypatch):
    monkeypatch.setenv("GAUNTLET_SOCKETS", str(tmp_path / "socks"))
    steps = [
        {"wait": "30s"},
        {"read": "calc.py"},
        {"overlay": "agents/fixed"},
        {"run": "python3 -c 'import calc; assert calc.add(1, 2) == 3'"},
        "submit",
        {"wait": "20s"},
        {"message": "done"},
    ]
    challenge = load_challenge(make_package(tmp_path / "pkg", fmt="sprint", agents={"many": steps}))
    arena = await open_arena(tmp_path, None, parallel=N, watch_interval=0.25)
    t0 = time.monotonic()
    try:
        attempts = [arena.attempt(challenge, "scripted:many", time_scale=30) for _ in range(N)]
        statuses = await arena.run_all(attempts)
        await arena.store.flush()
        stored = {a.id: await arena.store.events(a.id) for a in attempts}
        rows = {r["id"]: r for r in await arena.store.list_attempts(None)}
        watched = len(arena.shared.watcher)
    finally:
        await arena.close()
    elapsed = time.monotonic() - t0
    assert statuses == ["finished"] * N
    for a in attempts:
        evs = stored[a.id]
        # every event published is stored, in order, nothing refused
        assert [(e.seq, e.kind) for e in evs] == [(e.seq, e.kind) for e in a.events]
        assert [e.seq for e in evs] == list(range(1, len(evs) + 1))
        assert len(of(evs, ev.FEEDBACK_DELIVERED)) == 1 and len(of(evs, ev.COMMAND_RUN)) == 1
        assert of(evs, ev.COMMAND_RUN)[0].data["exit_code"] == 0
        assert of(evs, ev.SUBMISSION_JUDGED)[0].data["score"] == 100.0
        assert evs[-1].kind == ev.ATTEMPT_FINISHED and evs[-1].data["scored_submission"] == 1
        assert rows[a.id]["status"] == "finished"
    # nothing left behind
    ids = {a.id for a in attempts}
    assert watched == 0
    assert registry.live_ids() == []
    assert not list(Path(tmp_path / "socks").glob("a-*"))
    assert not _processes_of(ids)
    state = registry.STATE_ROOT
    mine = [p for p in state.glob(f"{os.getpid()}-*")] if state.exists() else []
    assert mine == []
    assert not list(paths.data_dir(tmp_path / "g.db").glob("judge*"))
    print(f"{N} attempts in {elapsed:.1f}s")
