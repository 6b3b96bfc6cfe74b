"""Seed 003 step 5.2/5.5 enforced (issue 12, item 8): a published challenge's lifecycle
decides whether an attempt may start, and its monitors run every ``check_interval``
finished attempts.

``admit(entry, agent, attempts, now)`` raises ``UsageError`` (exit 2) naming the rule:

- ``lifecycle.state``: not ``live`` (quarantined or retired by its monitors);
- ``lifecycle.expires_at``: ``now`` at or past it;
- ``lifecycle.max_instances``: that many attempts of the challenge still running;
- ``lifecycle.cooldown_period_s``: this agent started an attempt of it less than that ago.

``run_monitors(entry, attempts, now)`` (after an attempt ends) counts the finished
attempts of the challenge; at every multiple of the solve-rate monitor's
``check_interval`` (10) not checked yet it computes the solve rate (a finished attempt
whose last score is >= ``SOLVED_AT``), the abandonment rate (an attempt that did not end
``finished``) and the count, and quarantines (solve rate above/below its thresholds) or
retires (abandonment above, attempts at ``retire_after_attempts``) by rewriting
``lifecycle.json``. ``attempts`` are store rows (``challenge``, ``agent``, ``status``,
``started_at``, ``last_score``); ``now`` is injected.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from arena.errors import UsageError
from arena.pipeline.published import published_root, read_record, versions

SOLVED_AT = 90.0
RUNNING = ("running", "created", "starting", "grace")


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


def run_monitors(entry: Path, attempts: list[dict], now: datetime) -> dict[str, Any] | None:
    """The monitors' check when one is due: the check's record (also written to
    ``lifecycle.json`` under ``monitor_checks``), else None."""
    life = read_record(entry, "lifecycle")
    mons = read_record(entry, "monitors")
    mons = mons if isinstance(mons, list) else mons.get("monitors", [])
    interval = next((int(m.get("check_interval") or 10) for m in mons if m.get("metric") == "solve_rate"), 10)
    mine = [a for a in _mine(attempts, entry.parent.name) if a.get("status") not in RUNNING]
    n = len(mine)
    done = {c.get("attempts") for c in life.get("monitor_checks", [])}
    if n == 0 or n % interval or n in done:
        return None
    solve = sum(a.get("status") == "finished" and float(a.get("last_score") or 0) >= SOLVED_AT for a in mine) / n
    abandon = sum(a.get("status") != "finished" for a in mine) / n
    check: dict[str, Any] = {
        "attempts": n,
        "at": now.isoformat(),
        "solve_rate": round(solve, 3),
        "abandonment_rate": round(abandon, 3),
        "action": None,
    }
    if life.get("state", "live") == "live":
        if solve > float(life.get("retire_if_solve_rate_above", 1.0)):
            check["action"], reason = (
                "quarantined",
                f"solve rate {solve:.2f} above {life['retire_if_solve_rate_above']}",
            )
        elif solve < float(life.get("retire_if_solve_rate_below", 0.0)):
            check["action"], reason = (
                "quarantined",
                f"solve rate {solve:.2f} below {life['retire_if_solve_rate_below']}",
            )
        elif abandon > float(life.get("retire_if_abandonment_above", 1.0)):
            check["action"], reason = (
                "retired",
                f"abandonment rate {abandon:.2f} above {life['retire_if_abandonment_above']}",
            )
        elif life.get("retire_after_attempts") and n >= int(life["retire_after_attempts"]):
            check["action"], reason = "retired", f"{n} attempts, retire_after_attempts {life['retire_after_attempts']}"
        if check["action"]:
            life.update(state=check["action"], reason=f"{reason} after {n} attempts", changed_at=now.isoformat())
    life.setdefault("monitor_checks", []).append(check)
    (entry / "lifecycle.json").write_text(json.dumps(life, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return check
