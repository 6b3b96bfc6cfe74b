"""Two stored attempts side by side (CONTRACT §11 ``gauntlet compare A B``): their
timelines aligned on the attempt clock, their scorecards component by component and the
diff of their scored submissions. Read from the store only; nothing is re-run.

The scorecards are ``arena.scoring.judge_attempt`` over the stored events with the judge
model's stored readings, as ``gauntlet judge`` computes them (compare never calls a
model: an attempt whose readings were never taken is judged without them, as its
scorecard's ``not_judged`` says).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena import events as ev
from arena import paths
from arena.compare.diff import SubmissionDiff, submission_diff
from arena.compare.timeline import Line, Row, align, timeline
from arena.scoring.llm_judge import load_readings
from arena.scoring.load import NotFound, attempt_events
from arena.scoring.scorecard import COMPONENTS, Scorecard, judge_attempt


@dataclass
class Side:
    attempt: str
    row: dict[str, Any]
    card: Scorecard
    lines: list[Line]
    scored_hash: str | None

    def head(self) -> dict[str, Any]:
        c = self.card
        return {
            "attempt": self.attempt,
            "challenge": c.challenge or self.row.get("challenge"),
            "agent": c.agent or self.row.get("agent"),
            "format": c.format,
            "status": c.status,
            "total": c.total,
            "trajectory": c.trajectory,
            "scored_submission": c.scored_submission,
        }


@dataclass
class Comparison:
    a: Side
    b: Side
    rows: list[Row]
    diff: SubmissionDiff
    notes: list[str] = field(default_factory=list)

    @property
    def same_challenge(self) -> bool:
        return self.a.head()["challenge"] == self.b.head()["challenge"]

    def components(self) -> list[dict[str, Any]]:
        """objective, process, strategy, integrity and total: A, B and B - A."""
        out = []
        for name in (*COMPONENTS, "total"):
            va = self.a.card.total if name == "total" else self.a.card.components.get(name)
            vb = self.b.card.total if name == "total" else self.b.card.components.get(name)
            diff = None if va is None or vb is None else round(vb - va, 1)
            out.append({"component": name, "a": va, "b": vb, "diff": diff})
        return out

    def as_dict(self) -> dict[str, Any]:
        return {
            "a": self.a.head(),
            "b": self.b.head(),
            "same_challenge": self.same_challenge,
            "notes": self.notes,
            "components": self.components(),
            "scorecards": {"a": self.a.card.model_dump(mode="json"), "b": self.b.card.model_dump(mode="json")},
            "timeline": [r.as_dict() for r in self.rows],
            "diff": self.diff.as_dict(),
        }


def scored_hash(events: list[Any], number: int | None) -> str | None:
    """The snapshot hash of submission ``number`` (the scored one)."""
    if number is None:
        return None
    for e in events:
        if e.kind == ev.SUBMISSION_RECEIVED and e.data.get("submission") == number:
            return str(e.data.get("hash") or "") or None
    return None


async def _side(store: Path, attempt: str) -> Side:
    row, events = await attempt_events(store, attempt)
    readings = load_readings(paths.data_dir(store) / "judge-readings", attempt)
    card = judge_attempt(events, readings=readings)
    return Side(attempt, row, card, timeline(events), scored_hash(events, card.scored_submission))


async def compare(store: Path | str, a: str, b: str) -> Comparison:
    """Compare stored attempts ``a`` and ``b``; ``NotFound`` names an unknown one."""
    store = Path(store)
    if not store.exists():
        raise NotFound(f"attempt {a}: not found (no store at {store})")
    side_a = await _side(store, a)
    side_b = await _side(store, b)
    notes = []
    ca, cb = side_a.head()["challenge"], side_b.head()["challenge"]
    if ca != cb:
        notes.append(f"different challenges: A is {ca}, B is {cb}; scores and the diff compare unlike tasks")
    if a == b:
        notes.append("A and B are the same attempt")
    diff = submission_diff(paths.data_dir(store) / "snapshots", side_a.scored_hash, side_b.scored_hash)
    return Comparison(side_a, side_b, align(side_a.lines, side_b.lines), diff, notes)
