"""Publish re-judges the calibration a report names (issue 12, item 7).

A calibration report (``gauntlet challenge calibrate DIR --store DB --json``) names the
store it kept its attempts in (``store``) and the attempt ids per agent (``attempts``).
``reproduce(rep)`` opens that store, judges every named attempt again with
``arena.scoring.judge_attempt`` and compares each total with the report's ``runs``: an
attempt that is missing, of another challenge, or whose re-judged total differs from the
reported one by more than ``TOLERANCE`` is an error, and so is a report that names no
attempts (nothing to reproduce). The null and attack baselines are checked the same way
and re-assessed (pipeline/baselines.py).

Each named attempt must also have been made by the agent it is named for (its stored
``agent_spec`` is ``scripted:<name>``: naming the null agent's attempt as the copy attack
is refused) and on the package the report names: ``attempt.started`` records the package
it ran (arena/challenge/content.py ``package_facts``: ``challenge_hash`` over the files
outside ``agents/``, and each ``agents/`` file's hash); publish requires the same files
outside ``agents/`` as the package now, the same benchmark agent files, and nothing else
under ``agents/`` but the baseline agents calibration adds (``null``, ``attack-*``), each
file of which must be one calibration writes for this package (pipeline/baseline_files.py).

Limits (stated, not hidden): re-judging proves the report's numbers are what these
stored events score, not that the events were made by a real run; a store fabricated
event by event would pass.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

from arena.challenge.errors import error, info
from arena.pipeline.baseline_files import allowed_baseline_files, foreign_baseline_files
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


@dataclass
class Judged:
    """One named attempt as the store has it, judged again."""

    attempt: str
    total: float | None = None  # None: it could not be read (``note`` says why)
    objective: float | None = None
    note: str = ""
    challenge: str = ""
    agent: str = ""  # the spec it was made with (``agent_spec``, else ``agent``)
    challenge_hash: str | None = None  # ``attempt.started``'s (files outside agents/), None when not recorded
    agent_files: dict[str, str] | None = None  # ``attempt.started``'s agents/ path -> sha256


async def _rejudge(store: Path, attempts: dict[str, list[str]]) -> dict[str, list[Judged]]:
    from arena import events as ev  # noqa: PLC0415
    from arena.scoring import judge_attempt  # noqa: PLC0415
    from arena.scoring.load import attempt_events  # noqa: PLC0415

    out: dict[str, list[Judged]] = {}
    for agent, ids in attempts.items():
        for aid in ids:
            try:
                row, events = await attempt_events(store, aid)
            except Exception as exc:  # noqa: BLE001 — NotFound, an unreadable store: say which
                out.setdefault(agent, []).append(Judged(aid, note=str(exc)))
                continue
            row = row or {}
            started: dict = next((e.data for e in events if e.kind == ev.ATTEMPT_STARTED), {})
            ch_hash, files = started.get("challenge_hash"), started.get("agent_files")
            card = judge_attempt(events)
            out.setdefault(agent, []).append(
                Judged(
                    aid,
                    total=round(float(card.total), 2),
                    objective=round(float(card.components["objective"]), 2),
                    challenge=str(row.get("challenge_id") or row.get("challenge") or ""),
                    agent=str(row.get("agent_spec") or started.get("agent_spec") or row.get("agent") or ""),
                    challenge_hash=ch_hash if isinstance(ch_hash, str) else None,
                    agent_files={str(k): str(v) for k, v in files.items()} if isinstance(files, dict) else None,
                )
            )
    return out


def _made_by(rep, agent: str, j: Judged, now: dict[str, object] | None) -> list[Finding]:
    """An attempt named for ``agent`` must have been made by that agent (``scripted:<agent>``,
    the spec calibrate runs it with) on the package the report names: ``now`` (the
    package's ``package_facts``) has the same files outside ``agents/`` and the same
    ``agents/`` files (calibration adds only its baseline agents' files)."""
    out = []
    want = f"scripted:{agent}"
    if j.agent != want:
        out.append(
            error(
                "calibration_report",
                f"{rep.source}: agent {agent}: attempt {j.attempt} was made by {j.agent or 'an unnamed agent'!r}: "
                f"expected {want!r} (an attempt named for an agent must be that agent's)",
            )
        )
    if now is None:
        return out
    if j.challenge_hash is None or j.agent_files is None:
        why = "records no package hash (made before attempts recorded one)"
    elif j.challenge_hash != now["challenge_hash"]:
        why = f"was made on challenge files {j.challenge_hash}: expected {now['challenge_hash']}"
    else:
        mine = now["agent_files"]
        assert isinstance(mine, dict)
        differ = sorted(r for r, h in mine.items() if j.agent_files.get(r) != h)
        extra = sorted(r for r in j.agent_files if r not in mine and not _baseline_file(r))
        baselines = now["baselines"]
        assert isinstance(baselines, tuple)
        forged = foreign_baseline_files(j.agent_files, _baseline_file, *baselines)
        if differ or extra:
            why = f"was made with other benchmark agent files ({', '.join((differ + extra)[:3])})"
        elif forged:
            why = f"was made with baseline agent files calibration does not write ({', '.join(forged[:3])})"
        else:
            why = ""
    if why:
        out.append(
            error(
                "calibration_report",
                f"{rep.source}: agent {agent}: attempt {j.attempt} {why}: expected the package the report names "
                f"({rep.package_hash or 'this package'}); calibrate it again",
            )
        )
    return out


def _baseline_file(rel: str) -> bool:
    """A file calibration adds to its copy of the package (a baseline agent's script or overlay)."""
    from arena.pipeline.baselines import BASELINES  # noqa: PLC0415

    parts = rel.split("/")
    return len(parts) >= 2 and (parts[1].removesuffix(".yaml") in BASELINES)


def reproduce(rep, challenge_id: str, root: Path | None = None) -> list[Finding]:
    """Findings of re-judging the attempts ``rep`` names (errors when it cannot be
    reproduced, or when an attempt was not made by the agent it is named for, or not on
    the package at ``root``)."""
    from arena.challenge.content import package_facts  # noqa: PLC0415

    now = {**package_facts(root), "baselines": allowed_baseline_files(root)} if root is not None else None
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
        for i, j in enumerate(rows):
            if j.total is None:
                out.append(
                    error(
                        "calibration_report",
                        f"{rep.source}: agent {agent}: attempt {j.attempt}: {j.note}: cannot re-judge it",
                    )
                )
                continue
            if j.challenge and j.challenge != challenge_id:
                out.append(
                    error(
                        "calibration_report",
                        f"{rep.source}: agent {agent}: attempt {j.attempt} is of challenge {j.challenge!r}: "
                        f"expected {challenge_id!r}",
                    )
                )
            out += _made_by(rep, agent, j, now)
            objs = getattr(rep, "objectives", {}).get(agent, [])
            if i < len(objs) and j.objective is not None and abs(objs[i] - j.objective) > TOLERANCE:
                out.append(
                    error(
                        "calibration_report",
                        f"{rep.source}: agent {agent}: reported objective {objs[i]:g} for attempt {j.attempt}, "
                        f"re-judged {j.objective:g}: the report cannot be reproduced",
                    )
                )
            reported = rep.runs.get(agent, [])
            if i < len(reported) and abs(reported[i] - j.total) > TOLERANCE:
                out.append(
                    error(
                        "calibration_report",
                        f"{rep.source}: agent {agent}: reported {reported[i]:g} for attempt {j.attempt}, "
                        f"re-judged {j.total:g}: the report cannot be reproduced",
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
