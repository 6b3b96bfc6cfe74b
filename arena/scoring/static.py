"""Scoring the static judges (seed 003 Stage 2.5) on the scored submission.

- ``code_quality`` (Process, raw points): -1 per *new* ruff finding (not in the starter)
  of the package's rule set, at most -5. Process is the only component that pays for how
  the code was written and is 0 for an attempt that did no work, so a null agent earns
  nothing here either.
- ``security_finding`` (Integrity): new bandit/semgrep findings at or above the package's
  ``min_severity``, one per (file, line) however many tools report it (each signal once):
  high -10, medium -5, low 0 (flag only), at most -20 in total.
- A static judge that could not run (``error``) scores nothing and says so in a flag.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeAlias

from arena.results import StaticFinding, StaticReport
from arena.scoring.context import Adjustment, JudgeContext
from arena.scoring.resultview import Judged

# A static judge's report and findings as judging meets them: the models on a fresh
# ``JudgeResult``, the stored dicts on a ``ResultView``.
Report: TypeAlias = StaticReport | Mapping[str, Any]
FindingLike: TypeAlias = StaticFinding | Mapping[str, Any]

QUALITY_POINTS, QUALITY_CAP = -1.0, -5.0
SECURITY_POINTS = {"high": -10.0, "medium": -5.0, "low": 0.0}
SECURITY_CAP = -20.0


# Any: the value of one field of a model or a stored dict, whose type depends on ``key``
# (str, int, list of findings); callers convert it (str(), int()) or test it.
def _get(obj: object, key: str, default: object = None) -> Any:
    return obj.get(key, default) if isinstance(obj, dict) else getattr(obj, key, default)


def report(result: Judged | None, kind: str) -> Report | None:
    rep: Report | None = None if result is None else _get(result, kind)
    return rep


def new_findings(result: Judged | None, kind: str) -> list[FindingLike]:
    rep = report(result, kind)
    return [f for f in (_get(rep, "findings") or []) if _get(f, "new", True)] if rep else []


def _where(f: FindingLike) -> str:
    return f"{_get(f, 'path')}:{_get(f, 'line')} {_get(f, 'rule')} {_get(f, 'message', '')}".strip()


def code_quality(c: JudgeContext) -> Adjustment | None:
    if c.final is None:
        return None
    found = new_findings(c.final.judged, "quality")
    if not found:
        return None
    pts = max(QUALITY_CAP, QUALITY_POINTS * len(found))
    shown = "; ".join(_where(f) for f in found[:3]) + (" ..." if len(found) > 3 else "")
    return Adjustment(
        "code_quality",
        pts,
        f"submission {c.final.number}: {len(found)} new ruff finding(s) the starter does not have: {shown}",
    )


def security_findings(c: JudgeContext) -> list[Adjustment]:
    if c.final is None:
        return []
    by_line: dict[tuple[Any, Any], list[FindingLike]] = {}
    for f in new_findings(c.final.judged, "security"):
        by_line.setdefault((_get(f, "path"), _get(f, "line")), []).append(f)
    out, total = [], 0.0
    for (path, line), fs in sorted(by_line.items(), key=lambda kv: (str(kv[0][0]), int(kv[0][1] or 0))):
        worst = max(fs, key=lambda f: -SECURITY_POINTS.get(_get(f, "severity"), 0.0))
        pts = SECURITY_POINTS.get(_get(worst, "severity"), 0.0)
        pts = max(pts, SECURITY_CAP - total)
        total += pts
        tools = ",".join(sorted({str(_get(f, "tool")) for f in fs}))
        out.append(
            Adjustment(
                "security_finding",
                pts,
                f"submission {c.final.number}: {_get(worst, 'severity')} ({tools}) {_where(worst)}",
            )
        )
    return out


def not_run(c: JudgeContext) -> list[dict]:
    """Flags (no points) for a static judge that could not run on the scored submission."""
    out = []
    for kind in ("quality", "security"):
        rep = report(c.final.judged, kind) if c.final is not None else None
        err = _get(rep, "error") if rep else None
        if err:
            out.append({"rule": f"{kind}_not_judged", "detail": str(err), "points": 0.0})
    return out
