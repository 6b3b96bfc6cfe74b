"""Seed 003 step 5.2/5.5 enforced (issue 12, item 8): a published challenge's lifecycle
decides whether an attempt may start, and its monitors run every ``check_interval``
ended attempts (pipeline/monitors.py).

``admit(entry, agent, attempts, now)`` raises ``UsageError`` (exit 2) naming the rule:

- ``lifecycle.state``: not ``live`` (quarantined or retired by its monitors);
- ``lifecycle.expires_at``: ``now`` at or past it;
- ``lifecycle.max_instances``: that many attempts of the challenge still running;
- ``lifecycle.cooldown_period_s``: this agent started an attempt of it less than that ago.

``run_monitors(entry, attempts, now)`` (after attempts end) reads ``monitors.json``
with the model publish wrote it with (pipeline/monitors.py) and, when the ended attempts
of the publication reach a multiple of the solve-rate monitor's ``check_interval`` (10)
not checked yet, evaluates seed 003's retire, quarantine and review triggers and acts:
``lifecycle.json`` gets the check under ``monitor_checks``, review flags under
``review``, and ``state`` ``retired`` or ``quarantined`` (then ``admit`` refuses).
``attempts`` are store rows (``challenge``, ``agent``, ``status``, ``started_at``,
``last_score``); ``now`` is injected.
"""

from __future__ import annotations

import json
import os
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from arena.errors import UsageError
from arena.pipeline.monitors import RUNNING, SOLVED_AT, MonitorsFile, counted, due, evaluate, parse_monitors
from arena.pipeline.published import published_root, read_record, versions
from arena.pipeline.sealing import SealError


def _when(text: object) -> datetime | None:
    try:
        return datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    except ValueError:
        return None


def newest_entry(store: Path, challenge_id: str) -> Path | None:
    d = published_root(store) / challenge_id
    v = versions(d)
    return d / str(v[-1]) if v else None


def _mine(attempts: list[dict], cid: str) -> list[dict]:
    return [a for a in attempts if a.get("challenge") == cid]


def admit(entry: Path, agent: str, attempts: list[dict], now: datetime) -> None:
    life = read_record(entry, "lifecycle")
    cid = entry.parent.name
    where = f"{entry}/lifecycle.json"
    if life.get("state", "live") != "live":
        why = life.get("reason") or "by its monitors"
        raise UsageError(
            f"challenge {cid}: {life.get('state')} ({why}): rule lifecycle.state "
            f"({where}): expected live to start an attempt"
        )
    expires = _when(life.get("expires_at"))
    if expires is not None and now >= expires:
        raise UsageError(
            f"challenge {cid}: expired at {life['expires_at']}: rule lifecycle.expires_at "
            f"({where}): publish a new version to run it again"
        )
    mine = _mine(attempts, cid)
    cap = int(life.get("max_instances") or 0)
    running = [a for a in mine if a.get("status") in RUNNING]
    if cap and len(running) >= cap:
        raise UsageError(
            f"challenge {cid}: {len(running)} attempts running, at its cap of {cap}: "
            f"rule lifecycle.max_instances ({where}): wait for one to end"
        )
    cool = timedelta(seconds=float(life.get("cooldown_period_s") or 0))
    if cool:
        for a in mine:
            started = _when(a.get("started_at"))
            if a.get("agent") == agent and started is not None and now - started < cool:
                ready = started + cool
                raise UsageError(
                    f"challenge {cid}: agent {agent} started attempt {a.get('id')} at "
                    f"{a.get('started_at')}: rule lifecycle.cooldown_period_s "
                    f"({int(cool.total_seconds())} s, {where}): next attempt from {ready.isoformat()}"
                )


def load_monitors(entry: Path) -> MonitorsFile:
    """The entry's ``monitors.json`` read by the model publish wrote it with; ``SealError``
    (one line naming the file and key) when it is not that."""
    where = entry / "monitors.json"
    try:
        doc = json.loads(where.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SealError(
            f"{where}: unreadable ({exc.__class__.__name__}): expected the monitors publish wrote"
        ) from None
    try:
        return parse_monitors(doc, str(where))
    except ValueError as exc:
        raise SealError(str(exc)) from None


def write_lifecycle(entry: Path, life: dict[str, Any]) -> None:
    """Rewrite ``lifecycle.json`` whole (a temporary file renamed over it: a reader never
    sees half a record)."""
    tmp = entry / f".lifecycle.{os.getpid()}.tmp"
    tmp.write_text(json.dumps(life, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, entry / "lifecycle.json")


def run_monitors(entry: Path, attempts: list[dict], now: datetime) -> dict[str, Any] | None:
    """The monitors' check when one is due (pipeline/monitors.py): its record, also
    appended to ``lifecycle.json`` under ``monitor_checks``, with the state changed when a
    retire or quarantine trigger fired and review flags under ``review``; else None."""
    life = read_record(entry, "lifecycle")
    mons = load_monitors(entry)
    mine = counted(attempts, entry.parent.name, life.get("published_at"))
    checked = [int(c.get("attempts") or 0) for c in life.get("monitor_checks", [])]
    if not due(len(mine), mons.interval, checked):
        return None
    check = {"at": now.isoformat(), **evaluate(mons, life, mine)}
    state = life.get("state", "live")
    if check["action"] and state in ("live", "quarantined") and check["action"] != state:
        why = "; ".join(check["retire"] if check["action"] == "retired" else check["quarantine"])
        life.update(state=check["action"], reason=f"{why} after {check['attempts']} attempts", changed_at=check["at"])
    elif check["action"] and state != "live":
        check["action"] = None  # already out of service: nothing more to do
    for flag in check["review"]:
        life.setdefault("review", []).append({"at": check["at"], "attempts": check["attempts"], "flag": flag})
    life.setdefault("monitor_checks", []).append(check)
    write_lifecycle(entry, life)
    return check


__all__ = ["RUNNING", "SOLVED_AT", "admit", "load_monitors", "newest_entry", "run_monitors", "write_lifecycle"]
