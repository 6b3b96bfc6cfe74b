"""What judging needs from an attempt's stored events, parsed once.

``AttemptHistory.from_events(events)`` accepts ``Event`` objects or their dict/flat forms,
orders them by ``seq`` (then ``t``) and collects: the start data, every submission with its
judge result, which submissions are counted (not replaced, not refused, not infra errors),
the finish data and the integrity findings.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Iterable, Mapping
from operator import attrgetter
from typing import Any, cast

from arena.formats import rules_for, FormatRules
from arena.scoring.objective import deliverable_items
from arena.scoring.resultview import Judged, ResultView, view
from arena import events as ev
from arena.events import Event

DEFAULT_PHASE1_ID = "foundation"
# the telemetry kinds the per-iteration records read (arena/scoring/record.py)
ACTION_KINDS = frozenset({ev.FILE_READ, ev.FILE_CHANGED, ev.COMMAND_RUN, ev.FEEDBACK_READ})
_ACTION_KINDS = ACTION_KINDS
_JUDGED_KINDS = frozenset(
    {
        ev.ATTEMPT_STARTED,
        ev.ATTEMPT_FINISHED,
        ev.SUBMISSION_RECEIVED,
        ev.SUBMISSION_REPLACED,
        ev.SUBMISSION_JUDGED,
        ev.FEEDBACK_DELIVERED,
        ev.FEEDBACK_READ,
        ev.INTEGRITY_FINDING,
        ev.PHASE_REVEALED,
        ev.STARTER_JUDGED,
    }
)
_SEQ = attrgetter("seq")


def as_event(e: Event | Mapping[str, Any]) -> Event:
    if type(e) is Event:
        return e
    if isinstance(e, Event):
        return e
    if isinstance(e, Mapping):
        if "data" in e or "attempt" in e:
            d = dict(e)
            d.setdefault("attempt", "")
            return Event.model_validate(d)
        flat = dict(e)  # CONTRACT §5 flat form {"t", "kind", ...data}
        t, kind = flat.pop("t", 0.0), flat.pop("kind")
        seq = flat.pop("seq", 0)
        return Event(attempt="", t=float(t), kind=kind, data=flat, seq=int(seq or 0))
    raise TypeError(f"not an event: {type(e).__name__}")


@dataclass
class Submission:
    number: int
    t: float
    iteration: int = 0
    hash: str = ""
    identical_to: int | None = None
    diff: dict = field(default_factory=dict)
    files: int = 0
    result: Judged | None = None  # a ResultView (or a JudgeResult); None until judged
    score: float | None = None  # the score stored with the judged event
    phase: int = 1
    replaced: bool = False
    judged_t: float | None = None
    feedback_t: float | None = None  # feedback.delivered
    received_pos: int = -1  # positions in AttemptHistory.events (seq order): iteration windows
    feedback_pos: int | None = None
    feedback_read_t: float | None = None  # first feedback.read

    @property
    def counted(self) -> bool:
        return not self.replaced and self.result is not None and not self.result.infra_error

    @property
    def judged(self) -> Judged:
        """The judge's result of a judged submission (every counted one is judged): what the
        judges read where ``result`` cannot be None."""
        if self.result is None:
            raise ValueError(f"submission {self.number} has no judge result")
        return self.result


@dataclass
class AttemptHistory:
    attempt: str = ""
    started: dict = field(default_factory=dict)
    finished: dict | None = None
    finished_t: float | None = None
    events: list[Event] = field(default_factory=list)
    submissions: list[Submission] = field(default_factory=list)
    findings: list[dict] = field(default_factory=list)  # integrity.finding data
    phase_reveals: list[dict] = field(default_factory=list)  # phase.revealed data + t
    starter: Judged | None = None  # starter.judged's result: the untouched starter (attempt/starter.py)
    # (position, event) of the telemetry records' action kinds, in log order (from_events)
    actions: list[tuple[int, Event]] | None = field(default=None, repr=False)
    _counted: list | None = field(default=None, repr=False)
    _deliverables: list | None = field(default=None, repr=False)

    @classmethod
    def from_events(cls, events: Iterable[Event | Mapping[str, Any]]) -> "AttemptHistory":
        given = list(events)
        if set(map(type, given)) - {Event}:  # dicts or flat forms: as Events (store reads are Events)
            evs = [as_event(e) for e in given]
        else:
            evs = cast(list[Event], given)  # every one an Event: checked just above
        seqs = list(map(_SEQ, evs))
        if seqs != sorted(set(seqs)):  # not strictly increasing: not in store order
            evs.sort(key=lambda e: (e.seq, e.t) if e.seq else (0, e.t))
        h = cls(events=evs)
        actions = h.actions = []
        by_number: dict[int, Submission] = {}
        s: Submission | None
        for pos, e in enumerate(evs):
            kind = e.kind
            if kind in _ACTION_KINDS:
                actions.append((pos, e))
            if kind not in _JUDGED_KINDS:
                continue
            d = e.data
            h.attempt = h.attempt or e.attempt
            if kind == ev.ATTEMPT_STARTED:
                h.started = dict(d)
            elif kind == ev.ATTEMPT_FINISHED:
                h.finished, h.finished_t = dict(d), _ended(d, e.t)
            elif kind == ev.SUBMISSION_RECEIVED:
                n = int(d.get("submission", len(by_number) + 1))
                s = Submission(
                    number=n,
                    t=e.t,
                    iteration=int(d.get("iteration", n - 1) or 0),
                    hash=str(d.get("hash", "")),
                    identical_to=d.get("identical_to"),
                    diff=dict(d.get("diff") or {}),
                    files=int(d.get("files", 0) or 0),
                    received_pos=pos,
                )
                by_number[n] = s
            elif kind == ev.SUBMISSION_REPLACED:
                n = int(d.get("submission", 0))
                if n in by_number:
                    by_number[n].replaced = True
            elif kind == ev.SUBMISSION_JUDGED:
                n = int(d.get("submission", 0))
                s = by_number.get(n)
                if s is None:
                    s = by_number[n] = Submission(number=n, t=e.t)
                raw = d.get("result")
                s.result = view(raw) if raw else ResultView({"submission": n})
                s.score = d.get("score")
                s.phase = int(d.get("phase") or 1)
                s.judged_t = e.t
            elif kind in (ev.FEEDBACK_DELIVERED, ev.FEEDBACK_READ):
                s = by_number.get(int(d.get("submission", 0) or 0))
                if s is not None:
                    if kind == ev.FEEDBACK_DELIVERED and s.feedback_t is None:
                        s.feedback_t, s.feedback_pos = e.t, pos
                    elif kind == ev.FEEDBACK_READ and s.feedback_read_t is None:
                        s.feedback_read_t = e.t
            elif kind == ev.INTEGRITY_FINDING:
                h.findings.append(
                    {
                        "severity": d.get("severity", "warning"),
                        "check": d.get("check", ""),
                        "detail": d.get("detail", ""),
                        "t": e.t,
                    }
                )
            elif kind == ev.PHASE_REVEALED:
                h.phase_reveals.append({**d, "t": e.t})
            elif kind == ev.STARTER_JUDGED and isinstance(d.get("result"), Mapping):
                h.starter = view(d["result"])
        h.submissions = [by_number[k] for k in sorted(by_number)]
        return h

    # --- conveniences -------------------------------------------------------------
    @property
    def format(self) -> str:
        return str(self.started.get("format", "standard"))

    @property
    def rules(self) -> FormatRules:
        try:
            return rules_for(self.format)
        except KeyError:
            return rules_for("standard")

    @property
    def deliverables(self) -> list[tuple[str, str, float]]:
        """The manifest's deliverables as parsed (name, kind, weight) tuples."""
        if self._deliverables is None:
            self._deliverables = deliverable_items(self.started.get("deliverables") or [])
        return self._deliverables

    @property
    def time_limit_s(self) -> float:
        return float(self.started.get("time_limit_s") or 0.0)

    @property
    def counted(self) -> list[Submission]:
        """Counted, judged submissions in order (the trajectory's submissions)."""
        if self._counted is None:
            self._counted = [s for s in self.submissions if s.counted]
        return self._counted

    @property
    def final(self) -> Submission | None:
        """The submission scored: ``attempt.finished.scored_submission`` when it names a
        counted one, else the last counted submission."""
        counted = self.counted
        if self.finished and self.finished.get("scored_submission") is not None:
            n = self.finished["scored_submission"]
            for s in counted:
                if s.number == n:
                    return s
        return counted[-1] if counted else None

    def phase_ids(self) -> list[tuple[int, str, dict]]:
        """(number, id, spec) of every phase; phase 1 is the top-level briefing."""
        specs = list(self.started.get("phases") or [])
        out: list[tuple[int, str, dict]] = []
        if specs and (specs[0].get("phase") == 1 or float(specs[0].get("reveal_at") or 0) == 0):
            for i, p in enumerate(specs, start=1):
                out.append((int(p.get("phase", i)), str(p.get("id", f"phase-{i}")), p))
            return out
        out.append((1, DEFAULT_PHASE1_ID, {}))
        for i, p in enumerate(specs, start=2):
            out.append((int(p.get("phase", i)), str(p.get("id", f"phase-{i}")), p))
        return out

    def end_t(self) -> float:
        """The attempt's end on its clock: finish, else the last event."""
        if self.finished_t is not None:
            return self.finished_t
        return self.events[-1].t if self.events else 0.0


def _ended(data: dict, closed_t: float) -> float:
    """When the attempt ended: ``ended_s`` where the record has it (the record closes a
    teardown later), else the close itself (records written before ``ended_s``)."""
    try:
        ended = float(data["ended_s"])
    except (KeyError, TypeError, ValueError):
        return closed_t
    return ended if 0.0 <= ended <= closed_t else closed_t
