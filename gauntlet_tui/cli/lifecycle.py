"""The published-challenge lifecycle at the command line (seed 003 step 5.2/5.5, issue 12
item 8): before `run`/`arena` start anything, every published challenge of the jobs must
admit its agents (expiry, instance cap, 24 h cooldown, quarantine: a UsageError naming the
rule, exit 2); after the attempts end, the monitors of those challenges run when due."""

from __future__ import annotations

import asyncio
from datetime import datetime, timezone
from pathlib import Path
from typing import Any


def _rows(store: Path) -> list[dict[str, Any]]:
    if not store.exists():
        return []

    async def read() -> list[dict[str, Any]]:
        from store import Store  # noqa: PLC0415

        st = await Store.open(store)
        try:
            return [dict(r) for r in await st.list_attempts(None)]
        finally:
            await st.close()

    return asyncio.run(read())


def _entries(store: Path, jobs: list) -> dict[str, Path]:
    from arena.pipeline.lifecycle_gate import newest_entry  # noqa: PLC0415

    out: dict[str, Path] = {}
    for job in jobs:
        cid = job[0].manifest.id
        entry = newest_entry(store, cid)
        if entry is not None:
            out[cid] = entry
    return out


def admit_all(store: Path, jobs: list, now: datetime | None = None) -> None:
    """Raise UsageError for the first job a published challenge's lifecycle refuses."""
    entries = _entries(store, jobs)
    if not entries:
        return
    from arena.agents.agent_file import agent_identity  # noqa: PLC0415
    from arena.pipeline.lifecycle_gate import admit  # noqa: PLC0415

    rows = _rows(store)
    when = now or datetime.now(timezone.utc)
    for job in jobs:
        entry = entries.get(job[0].manifest.id)
        if entry is not None:  # the cooldown is the agent's identity's, not its file path's (issue 20)
            admit(entry, agent_identity(job[1]), rows, when)


def monitor_all(store: Path, jobs: list, now: datetime | None = None) -> None:
    entries = _entries(store, jobs)
    if not entries:
        return
    from arena.pipeline.lifecycle_gate import run_monitors  # noqa: PLC0415

    import sys  # noqa: PLC0415

    rows = _rows(store)
    for cid, entry in entries.items():
        check = run_monitors(entry, rows, now or datetime.now(timezone.utc))
        if check is not None:  # a check was due (every 10 ended attempts): say what it found and did
            did = f": {check['action']}" if check["action"] else ": still live"
            print(
                f"gauntlet: challenge {cid}: monitors checked {check['attempts']} attempts (solve rate "
                f"{check['solve_rate']:g}, abandonment {check['abandonment_rate']:g}){did}"
                + "".join(f"; {t}" for t in check["retire"] + check["quarantine"] + check["review"]),
                file=sys.stderr,
            )
