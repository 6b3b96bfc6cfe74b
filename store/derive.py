"""From ingested events to the derived tables (runs, attempts, submissions, feedback,
agents, challenges).

``plan(events, now)`` returns the SQL to run, in order, inside the same transaction
as the events themselves: a list of ``(statement, [params, ...])`` executed with one
``executemany`` each. Statements are grouped by stage (attempt rows first, then
submissions, their replacement, judging, feedback, phases, status), which keeps
every causal order an attempt can produce (a submission is received before it is
judged, judged before its feedback is delivered, ...), so a batch costs a handful
of database calls whatever its size. The INSERTs among them also have a multi-row form
(``BULK``, see ``Bulk``) that the writer uses to put many rows in with one statement step.
Every derived write is an upsert or an update:
a derived row can never make the database refuse an event, so the event log
(the source of truth) is never short of an event because of a derived table.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from arena import events as K
from arena.events import Event
from store.bulk import Bulk
from store.schema import STATUSES

log = logging.getLogger(__name__)

try:  # orjson encodes ~4x faster; the standard library is the fallback
    import orjson
except ImportError:  # pragma: no cover - depends on the environment
    orjson = None  # type: ignore[assignment]  # absent: the standard library encodes

_std_encode = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, default=str).encode

if orjson is not None:
    _dumps, _OPT = orjson.dumps, orjson.OPT_NON_STR_KEYS

    def encode(value: object) -> str:
        """JSON text for a stored value; non-JSON types (paths, datetimes) become strings.

        Raises ValueError only for data that no JSON can hold (circular)."""
        try:
            return _dumps(value, default=str, option=_OPT).decode()
        except TypeError:  # e.g. an int beyond 64 bits, a cycle, a lone surrogate: the standard library decides
            return _std_encode_safe(value)
else:  # pragma: no cover - depends on the environment

    def encode(value: object) -> str:
        return _std_encode_safe(value)


_ascii_encode = json.JSONEncoder(separators=(",", ":"), ensure_ascii=True, default=str).encode


def _std_encode_safe(value: object) -> str:
    """Standard JSON; text holding lone surrogates (an undecodable file name, kept as
    ``os.fsdecode`` gives it) is written ``\\udcXX``-escaped, ASCII: valid JSON that
    SQLite stores and ``json.loads`` reads back unchanged, so no event is refused."""
    text = _std_encode(value)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _ascii_encode(value)
    return text


INSERT_EVENT = "INSERT INTO events (attempt, seq, t, kind, data) VALUES (?, ?, ?, ?, ?)"

# Every attempt seen in a batch gets a row (a placeholder if nothing created it yet)
# and its last_t moved forward.
TOUCH_ATTEMPT = """INSERT INTO attempts (id, started_at, last_t) VALUES (?, ?, ?)
    ON CONFLICT (id) DO UPDATE SET last_t = max(last_t, excluded.last_t)"""

STARTED_COLS = (
    "challenge",
    "title",
    "category",
    "agent",
    "format",
    "weight_class",
    "time_limit_s",
    "budget",
    "grace_s",
    "time_scale",
    "sandbox",
    "workspace",
    "agent_spec",
    "challenge_path",
    "run",
)
# ``run`` only links to a run that exists (a foreign key must never refuse an event).
_STARTED_VALUES = ", ".join("(SELECT id FROM runs WHERE id = ?)" if c == "run" else "?" for c in STARTED_COLS)
STARTED = (
    f"INSERT INTO attempts (id, started_at, {', '.join(STARTED_COLS)}) "
    f"VALUES (?, ?, {_STARTED_VALUES}) ON CONFLICT (id) DO UPDATE SET "
    + ", ".join(f"{c} = coalesce(excluded.{c}, {c})" for c in STARTED_COLS)
)
AGENT_SEEN = "INSERT INTO agents (name, first_seen) VALUES (?, ?) ON CONFLICT (name) DO NOTHING"
CHALLENGE_SEEN = """INSERT INTO challenges (id, title, format, weight_class, category, path, first_seen)
    VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET
    title = coalesce(excluded.title, title), format = coalesce(excluded.format, format),
    weight_class = coalesce(excluded.weight_class, weight_class),
    category = coalesce(excluded.category, category), path = coalesce(excluded.path, path)"""

RECEIVED = """INSERT INTO submissions
    (attempt, n, iteration, hash, at_t, files, bytes, identical_to, diff)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (attempt, n) DO UPDATE SET
    iteration = excluded.iteration, hash = excluded.hash, at_t = excluded.at_t,
    files = excluded.files, bytes = excluded.bytes, identical_to = excluded.identical_to,
    diff = excluded.diff"""
REPLACED = "UPDATE submissions SET counted = 0, replaced_by = ? WHERE attempt = ? AND n = ?"
JUDGED = """INSERT INTO submissions (attempt, n, judged_t, score, phase, result)
    VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (attempt, n) DO UPDATE SET
    judged_t = excluded.judged_t, score = excluded.score, phase = excluded.phase,
    result = excluded.result"""
LAST_SCORE = "UPDATE attempts SET last_score = ? WHERE id = ?"
DELIVERED = """INSERT INTO feedback (attempt, n, document, delivered_t) VALUES (?, ?, ?, ?)
    ON CONFLICT (attempt, n) DO UPDATE SET document = excluded.document,
    delivered_t = excluded.delivered_t"""
READ = "UPDATE feedback SET read = 1, read_t = coalesce(read_t, ?) WHERE attempt = ? AND n = ?"
PHASE = "UPDATE attempts SET phase = max(phase, ?) WHERE id = ?"
STATUS = """UPDATE attempts SET status = ?, reason = ?, finished_at = ?,
    scored_submission = coalesce(?, scored_submission) WHERE id = ?"""
COUNT_USED = """UPDATE attempts SET submissions_used =
    (SELECT count(*) FROM submissions WHERE attempt = ?1 AND counted = 1) WHERE id = ?1"""

DERIVED_KINDS = frozenset(
    {
        K.ATTEMPT_STARTED,
        K.ATTEMPT_RESUMED,
        K.ATTEMPT_FINISHED,
        K.PHASE_REVEALED,
        K.SUBMISSION_RECEIVED,
        K.SUBMISSION_REPLACED,
        K.SUBMISSION_JUDGED,
        K.FEEDBACK_DELIVERED,
        K.FEEDBACK_READ,
    }
)

# The stage order (see the module docstring).
_ORDER = (
    TOUCH_ATTEMPT,
    INSERT_EVENT,
    STARTED,
    AGENT_SEEN,
    CHALLENGE_SEEN,
    RECEIVED,
    REPLACED,
    JUDGED,
    LAST_SCORE,
    DELIVERED,
    READ,
    PHASE,
    STATUS,
    COUNT_USED,
)


def _num(value: object) -> float | None:
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _text(value: object) -> str | None:
    return None if value is None else str(value)


def plan(items: list[tuple[tuple, Event]], now: str) -> list[tuple[str, Any]]:
    """Every statement for one batch, in order, each with its parameter rows. ``items``
    are ``(row, event)`` pairs, ``row`` being the ``events`` row that
    ``BatchWriter.append`` built (data already encoded)."""
    ops: dict[str, list[tuple]] = {sql: [] for sql in _ORDER}
    last_t: dict[str, float] = {}
    counted: set[str] = set()
    rows = ops[INSERT_EVENT]
    for row, e in items:
        rows.append(row)
        if last_t.get(row[0], -1.0) < row[2]:
            last_t[row[0]] = row[2]
        if row[3] in DERIVED_KINDS:
            _derive(e, now, ops, counted)
    ops[TOUCH_ATTEMPT] = [(a, now, t) for a, t in last_t.items()]
    ops[COUNT_USED] = [(a,) for a in counted]
    return [(sql, ops[sql]) for sql in _ORDER if ops[sql]]


# The multi-row forms of the plain INSERTs (``STARTED`` looks runs up per row: executemany).
BULK = {
    sql: Bulk(sql) for sql in (INSERT_EVENT, TOUCH_ATTEMPT, AGENT_SEEN, CHALLENGE_SEEN, RECEIVED, JUDGED, DELIVERED)
}

_NUMBERED = frozenset(
    {K.SUBMISSION_RECEIVED, K.SUBMISSION_REPLACED, K.SUBMISSION_JUDGED, K.FEEDBACK_DELIVERED, K.FEEDBACK_READ}
)


def _derive(e: Event, now: str, ops: dict[str, list[tuple]], counted: set[str]) -> None:
    d, a = e.data, e.attempt
    if e.kind in _NUMBERED and not isinstance(d.get("submission"), int):
        log.warning(
            "attempt %s seq %s: %s without an integer 'submission'; logged, derived tables not updated",
            a,
            e.seq,
            e.kind,
        )
        return
    if e.kind == K.ATTEMPT_STARTED:
        ops[STARTED].append((a, now, *(_text(d.get(c)) if c not in _NUMERIC else _num(d.get(c)) for c in STARTED_COLS)))
        if d.get("agent"):
            ops[AGENT_SEEN].append((str(d["agent"]), now))
        if d.get("challenge"):
            ops[CHALLENGE_SEEN].append(
                (
                    str(d["challenge"]),
                    _text(d.get("title")),
                    _text(d.get("format")),
                    _text(d.get("weight_class")),
                    _text(d.get("category")),
                    _text(d.get("challenge_path")),
                    now,
                )
            )
    elif e.kind == K.SUBMISSION_RECEIVED:
        n = d.get("submission")
        ops[RECEIVED].append(
            (
                a,
                n,
                _num(d.get("iteration")),
                _text(d.get("hash")),
                e.t,
                _num(d.get("files")),
                _num(d.get("bytes")),
                _num(d.get("identical_to")),
                encode(d.get("diff") or {}),
            )
        )
        if isinstance(d.get("replaces"), int):
            ops[REPLACED].append((n, a, d["replaces"]))
        counted.add(a)
    elif e.kind == K.SUBMISSION_REPLACED:
        ops[REPLACED].append((_num(d.get("by")), a, d["submission"]))
        counted.add(a)
    elif e.kind == K.SUBMISSION_JUDGED:
        score = _num(d.get("score"))
        ops[JUDGED].append((a, d.get("submission"), e.t, score, _num(d.get("phase")), encode(d.get("result"))))
        if score is not None:
            ops[LAST_SCORE].append((score, a))
    elif e.kind == K.FEEDBACK_DELIVERED:
        ops[DELIVERED].append((a, d.get("submission"), encode(d.get("feedback") or {}), e.t))
    elif e.kind == K.FEEDBACK_READ:
        ops[READ].append((e.t, a, d.get("submission")))
    elif e.kind == K.PHASE_REVEALED:
        if _num(d.get("phase")) is not None:
            ops[PHASE].append((d["phase"], a))
    elif e.kind == K.ATTEMPT_RESUMED:
        ops[STATUS].append(("running", None, None, None, a))
    elif e.kind == K.ATTEMPT_FINISHED:
        status = d.get("status")
        if status not in STATUSES or status == "running":
            # The event is still logged; only the derived status is left alone.
            log.warning(
                "attempt %s: attempt.finished with status %r (expected one of %s); attempt status not updated",
                a,
                status,
                ", ".join(STATUSES[1:]),
            )
            return
        ops[STATUS].append((status, _text(d.get("reason")), now, _num(d.get("scored_submission")), a))


_NUMERIC = frozenset({"time_limit_s", "budget", "grace_s", "time_scale"})
