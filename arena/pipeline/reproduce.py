"""Publish re-judges the calibration a report names (issue 12, item 7).

A calibration report (``gauntlet challenge calibrate DIR --store DB --json``) names the
store it kept its attempts in (``store``) and the attempt ids per agent (``attempts``).
``reproduce(rep)`` opens that store, judges every named attempt again with
``arena.scoring.judge_attempt`` and compares each total with the report's ``runs``: an
attempt that is missing, of another challenge, or whose re-judged total differs from the
reported one by more than ``TOLERANCE`` is an error, and so is a report that names no
attempts (nothing to reproduce). The null and attack baselines are checked the same way
and re-assessed (pipeline/baselines.py).

Limits (stated, not hidden): re-judging proves the report's numbers are what these
stored events score, not that the events were made by a real run; a store fabricated
event by event would pass. The stored attempt's challenge id is checked, not the package
hash (calibration runs a copy of the package with the baseline agents added).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from arena.challenge.errors import error, info
from arena.results import Finding

TOLERANCE = 0.05
CALIBRATE_WITH_STORE = "`gauntlet challenge calibrate DIR --store DB --json`"


def _store_path(rep) -> Path | None:
    raw = rep.doc.get("store")
    if not isinstance(raw, str) or not raw:
        return None
    p = Path(raw)
    if not p.is_absolute() and rep.source not in ("calibrate run",):
        p = Path(rep.source).parent / p
    return p


async def _rejudge(store: Path, attempts: dict[str, list[str]]) -> dict[str, list[tuple[str, float | None, str]]]:
    from arena.scoring import judge_attempt  # noqa: PLC0415
    from arena.scoring.load import attempt_events  # noqa: PLC0415

    out: dict[str, list[tuple[str, float | None, str]]] = {}
    for agent, ids in attempts.items():
        for aid in ids:
            try:
                row, events = await attempt_events(store, aid)
            except Exception as exc:  # noqa: BLE001 — NotFound, an unreadable store: say which
                out.setdefault(agent, []).append((aid, None, str(exc)))
                continue
            cid = str((row or {}).get("challenge_id") or (row or {}).get("challenge") or "")
            out.setdefault(agent, []).append((aid, round(float(judge_attempt(events).total), 2), cid))
    return out


def reproduce(rep, challenge_id: str) -> list[Finding]:
    """Findings of re-judging the attempts ``rep`` names (errors when it cannot be reproduced)."""
    from arena.pipeline.baselines import BASELINES  # noqa: PLC0415
    from arena.pipeline.calibration import AGENTS  # noqa: PLC0415

    attempts = rep.doc.get("attempts")
    store = _store_path(rep)
    if store is None or not isinstance(attempts, dict):
        return [
            error(
                "calibration_report",
                f"{rep.source}: names no stored calibration attempts (keys 'store' and "
                f"'attempts'): publish re-judges them and cannot reproduce this report; "
                f"expected the report of {CALIBRATE_WITH_STORE}",
            )
        ]
    if not store.exists():
        return [
            error(
                "calibration_report",
                f"{rep.source}: key 'store': {store}: no such store: cannot re-judge the calibration attempts",
            )
        ]
    clean = {str(a): [str(i) for i in ids] for a, ids in attempts.items() if isinstance(ids, list)}
    out: list[Finding] = []
    if all(rep.runs.get(a) for a in AGENTS):
        for name in BASELINES:
            if not rep.runs.get(name):
                out.append(
                    error(
                        "calibration_report",
                        f"{rep.source}: no run of the {name} baseline: expected the "
                        f"null and attack rows calibrate makes",
                    )
                )
    for agent in [a for a in AGENTS + BASELINES if rep.runs.get(a) or clean.get(a)]:
        if len(clean.get(agent, [])) != len(rep.runs.get(agent, [])):
            out.append(
                error(
                    "calibration_report",
                    f"{rep.source}: agent {agent}: {len(rep.runs.get(agent, []))} reported run(s), "
                    f"{len(clean.get(agent, []))} named attempt(s): expected one stored attempt per run",
                )
            )
    judged = asyncio.run(_rejudge(store, {a: clean[a] for a in AGENTS + BASELINES if a in clean}))
    for agent, rows in judged.items():
        for i, (aid, total, note) in enumerate(rows):
            if total is None:
                out.append(
                    error(
                        "calibration_report", f"{rep.source}: agent {agent}: attempt {aid}: {note}: cannot re-judge it"
                    )
                )
                continue
            if note and note != challenge_id:
                out.append(
                    error(
                        "calibration_report",
                        f"{rep.source}: agent {agent}: attempt {aid} is of challenge {note!r}: expected {challenge_id!r}",
                    )
                )
            reported = rep.runs.get(agent, [])
            if i < len(reported) and abs(reported[i] - total) > TOLERANCE:
                out.append(
                    error(
                        "calibration_report",
                        f"{rep.source}: agent {agent}: reported {reported[i]:g} for attempt {aid}, "
                        f"re-judged {total:g}: the report cannot be reproduced",
                    )
                )
    if not out:
        n = sum(len(r) for r in judged.values())
        out.append(
            info(
                "calibration_report",
                f"{rep.source}: {n} calibration attempts re-judged from {store}: the report's scores reproduce",
            )
        )
    return out
