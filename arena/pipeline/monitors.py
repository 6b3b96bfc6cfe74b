"""Seed 003 step 5.5: the monitors of a publication, one file shape (``monitors.json``)
written and read by the same model, and their evaluation (issue 20 item 6).

``monitors.json`` is a JSON object ``{"challenge", "version", "monitors": [Monitor, ...]}``;
``MonitorsFile`` writes it (publish) and reads it (every run of a published challenge).

``evaluate(mons, life, rows)`` is the check made every ``check_interval`` (10) ended
attempts. Its triggers, in the order they act:

1. **retire** (seed 003 step 5.2's auto-retirement triggers, from ``lifecycle.json``):
   solve rate above ``retire_if_solve_rate_above`` (0.90) or below
   ``retire_if_solve_rate_below`` (0.02), abandonment above ``retire_if_abandonment_above``
   (0.70), ``retire_after_attempts`` (500) reached; the abandonment and attempts monitors'
   own thresholds too. The challenge's state becomes ``retired``.
2. **quarantine** (step 5.5's solve-rate monitor, ``auto_quarantine_above/below``): the
   state becomes ``quarantined``. With the seed's values these thresholds are the
   retirement ones, so retirement (the stronger state) acts first; a monitors file with
   tighter quarantine thresholds quarantines between the two.
3. **review** (step 5.2's review triggers): a bimodal score distribution (Sarle's
   bimodality coefficient above 5/9, at least 4 scores), an average score more than
   ``flag_if_drift_above`` (10) points from the calibration's mean, a solve rate more than
   ``alert_if_deviation_from_expected`` from an expected one (the package gives none:
   not evaluated while ``expected`` is null). Flags are recorded; the state is unchanged.

An attempt is *solved* when it finished and its last judged score is at least
``SOLVED_AT`` (90); *abandoned* when it ended any other way (interrupted, infra_error).
Only attempts started at or after the publication's ``published_at`` count."""

from __future__ import annotations

import statistics
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

SOLVED_AT = 90.0
RUNNING = ("running", "created", "starting", "grace")
BIMODAL_ABOVE = 5 / 9  # Sarle's bimodality coefficient of a uniform distribution
MIN_BIMODAL_SCORES = 4
Metric = Literal["solve_rate", "abandonment_rate", "attempts", "score_distribution", "avg_score"]


class Thresholds(BaseModel):
    model_config = ConfigDict(extra="forbid")
    auto_quarantine_above: float | None = None
    auto_quarantine_below: float | None = None
    alert_if_deviation_from_expected: float | None = None
    auto_retire_above: float | None = None
    auto_retire_at: int | None = None
    flag_if_bimodal: bool | None = None
    flag_if_drift_above: float | None = None


class Monitor(BaseModel):
    model_config = ConfigDict(extra="forbid")
    metric: Metric
    check_interval: int | None = Field(default=None, ge=1)
    source: Literal["seed", "lifecycle"]
    thresholds: Thresholds
    expected: float | None = None


class MonitorsFile(BaseModel):
    """The whole of ``monitors.json``."""

    model_config = ConfigDict(extra="forbid")
    challenge: str
    version: int = Field(ge=1)
    monitors: list[Monitor]

    @property
    def interval(self) -> int:
        """How many ended attempts between two checks: the solve-rate monitor's (seed: 10)."""
        return next((m.check_interval for m in self.monitors if m.metric == "solve_rate" and m.check_interval), 10)

    def of(self, metric: str) -> Monitor | None:
        return next((m for m in self.monitors if m.metric == metric), None)

    def dump(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_none=True)


def parse_monitors(doc: object, where: str) -> MonitorsFile:
    """``MonitorsFile`` from the JSON ``doc`` of ``where``; ``ValueError`` naming the key."""
    if not isinstance(doc, dict):
        raise ValueError(
            f"{where}: not a JSON object ({type(doc).__name__}): expected "
            '{"challenge", "version", "monitors": [...]} as challenge publish writes it (publish again)'
        )
    try:
        return MonitorsFile.model_validate(doc)
    except ValidationError as exc:
        e = exc.errors()[0]
        key = ".".join(str(p) for p in e["loc"]) or "(document)"
        raise ValueError(f"{where}: key {key!r}: {e['msg']}: expected the monitors challenge publish writes") from None


def build(meta: dict[str, Any], life: dict[str, Any], *, interval: int, deviation: float) -> MonitorsFile:
    """Step 5.5's monitors for a publication. The seed's text gives the solve-rate monitor
    and breaks off after it; the others watch the step 5.2 triggers (``source:
    lifecycle``) with the same thresholds."""
    scores = meta["calibration_scores"]
    mons = [
        Monitor(
            metric="solve_rate",
            check_interval=interval,
            source="seed",
            thresholds=Thresholds(
                auto_quarantine_above=life["retire_if_solve_rate_above"],
                auto_quarantine_below=life["retire_if_solve_rate_below"],
                alert_if_deviation_from_expected=deviation,
            ),
        ),
        Monitor(
            metric="abandonment_rate",
            check_interval=interval,
            source="lifecycle",
            thresholds=Thresholds(auto_retire_above=life["retire_if_abandonment_above"]),
        ),
        Monitor(
            metric="attempts", source="lifecycle", thresholds=Thresholds(auto_retire_at=life["retire_after_attempts"])
        ),
        Monitor(
            metric="score_distribution",
            check_interval=interval,
            source="lifecycle",
            thresholds=Thresholds(flag_if_bimodal=life["flag_if_score_bimodal"]),
        ),
        Monitor(
            metric="avg_score",
            check_interval=interval,
            source="lifecycle",
            expected=round(statistics.fmean(scores.values()), 2),
            thresholds=Thresholds(flag_if_drift_above=life["flag_if_avg_score_drifts"]),
        ),
    ]
    return MonitorsFile(challenge=meta["id"], version=meta["version"], monitors=mons)


# ---- evaluation ------------------------------------------------------------------------------


def _when(text: object) -> datetime | None:
    try:
        return datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    except ValueError:
        return None


def counted(rows: list[dict], cid: str, published_at: object) -> list[dict]:
    """The ended attempts of challenge ``cid`` started at or after the publication."""
    since = _when(published_at)
    out = []
    for a in rows:
        if a.get("challenge") != cid or a.get("status") in RUNNING:
            continue
        started = _when(a.get("started_at"))
        if since is not None and started is not None and started < since:
            continue
        out.append(a)
    return out


def due(n: int, interval: int, checked: list[int]) -> bool:
    """A check is due when ``n`` ended attempts reach a multiple of ``interval`` not checked
    yet (several attempts ending together may step over the multiple itself)."""
    return n > 0 and n // interval > max(checked, default=0) // interval


def bimodality(scores: list[float]) -> float | None:
    """Sarle's sample bimodality coefficient (g^2 + 1) / (k + 3(n-1)^2 / ((n-2)(n-3))),
    g the skewness and k the excess kurtosis; None below 4 scores or with no spread."""
    n = len(scores)
    if n < MIN_BIMODAL_SCORES:
        return None
    mean = statistics.fmean(scores)
    m2 = sum((x - mean) ** 2 for x in scores) / n
    if m2 == 0:
        return None
    m3 = sum((x - mean) ** 3 for x in scores) / n
    m4 = sum((x - mean) ** 4 for x in scores) / n
    g = (m3 / m2**1.5) * ((n * (n - 1)) ** 0.5) / (n - 2)
    k = ((n + 1) * (m4 / m2**2 - 3) + 6) * (n - 1) / ((n - 2) * (n - 3))
    return (g * g + 1) / (k + 3 * (n - 1) ** 2 / ((n - 2) * (n - 3)))


def _score(a: dict) -> float:
    try:
        return float(a.get("last_score") or 0.0)
    except (TypeError, ValueError):
        return 0.0


def evaluate(mons: MonitorsFile, life: dict[str, Any], mine: list[dict]) -> dict[str, Any]:
    """The check over the ended attempts ``mine``: its figures, the triggers that fired
    (``retire``, ``quarantine``, ``review``) and the resulting ``action`` (the state to set,
    or None)."""
    n = len(mine)
    finished = [a for a in mine if a.get("status") == "finished"]
    solve = sum(_score(a) >= SOLVED_AT for a in finished) / n
    abandon = (n - len(finished)) / n
    scores = [_score(a) for a in finished]
    mean = round(statistics.fmean(scores), 2) if scores else None
    bc = bimodality(scores)
    retire: list[str] = []
    quarantine: list[str] = []
    review: list[str] = []

    def over(value: float, limit: object, what: str, into: list[str], above: bool = True) -> None:
        if isinstance(limit, (int, float)) and not isinstance(limit, bool):
            if (value > limit) if above else (value < limit):
                into.append(f"{what} {value:.2f} {'above' if above else 'below'} {limit:g}")

    over(solve, life.get("retire_if_solve_rate_above"), "solve rate", retire)
    over(solve, life.get("retire_if_solve_rate_below"), "solve rate", retire, above=False)
    over(abandon, life.get("retire_if_abandonment_above"), "abandonment rate", retire)
    ab = mons.of("abandonment_rate")
    if ab is not None:
        over(abandon, ab.thresholds.auto_retire_above, "abandonment rate", retire)
    cap = life.get("retire_after_attempts")
    am = mons.of("attempts")
    cap = am.thresholds.auto_retire_at if am is not None and am.thresholds.auto_retire_at else cap
    if isinstance(cap, int) and cap > 0 and n >= cap:
        retire.append(f"{n} attempts: retire_after_attempts {cap}")
    sr = mons.of("solve_rate")
    if sr is not None:
        over(solve, sr.thresholds.auto_quarantine_above, "solve rate", quarantine)
        over(solve, sr.thresholds.auto_quarantine_below, "solve rate", quarantine, above=False)
        dev = sr.thresholds.alert_if_deviation_from_expected
        if sr.expected is not None and dev is not None and abs(solve - sr.expected) > dev:
            review.append(f"solve rate {solve:.2f} deviates from the expected {sr.expected:g} by more than {dev:g}")
    sd = mons.of("score_distribution")
    if sd is not None and sd.thresholds.flag_if_bimodal and bc is not None and bc > BIMODAL_ABOVE:
        review.append(f"scores bimodal (bimodality coefficient {bc:.2f} above {BIMODAL_ABOVE:.3f})")
    avg = mons.of("avg_score")
    if avg is not None and avg.expected is not None and mean is not None:
        limit = avg.thresholds.flag_if_drift_above
        if limit is not None and abs(mean - avg.expected) > limit:
            review.append(
                f"average score {mean:g} drifts {abs(mean - avg.expected):.1f} from the calibration's {avg.expected:g} "
                f"(more than {limit:g})"
            )
    retire = list(dict.fromkeys(retire))  # the lifecycle's and a monitor's same threshold: once
    action = "retired" if retire else "quarantined" if quarantine else None
    return {
        "attempts": n,
        "solve_rate": round(solve, 3),
        "abandonment_rate": round(abandon, 3),
        "avg_score": mean,
        "bimodality": None if bc is None else round(bc, 3),
        "retire": retire,
        "quarantine": quarantine,
        "review": review,
        "action": action,
    }


__all__ = [
    "MonitorsFile",
    "Monitor",
    "SOLVED_AT",
    "Thresholds",
    "bimodality",
    "build",
    "counted",
    "due",
    "evaluate",
    "parse_monitors",
]
