"""Seed 001's per-iteration telemetry record, derived from stored events.

Iteration k is the window between the feedback of counted submission k-1 (or the
attempt's start) and counted submission k. Replaced submissions (Sprint double-submit) are
not iteration boundaries: their window merges into the next counted one.

Derivations (where seed 001 names a field but the events carry it differently):
- tool calls = file reads + file edits + commands run; a command is a *test run* when the
  runner marked ``ran_tests``; a *search* when its program is grep/rg/find/ag/ack/locate.
- ``time_before_first_edit_s`` counts from the window's start (feedback delivered) to the
  first ``file.changed``; with no edit at all it is the whole window.
- test results compare the judge's results of the previous and this counted submission
  over every suite; a *regression* is a test id that passed before and fails now.
- ``failure_messages_referenced``: previously failing tests whose module (``test_x.py`` →
  ``x``) or name was named by a file the agent read or edited in the window.
"""

from __future__ import annotations

import shlex
import posixpath
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import PurePosixPath
from collections.abc import Iterable, Mapping
from typing import Any

from arena import events as ev
from arena.events import Event

from arena.scoring.history import ACTION_KINDS, AttemptHistory, Submission
from arena.scoring.memo import memo
from arena.scoring.resultview import Judged

FILE_READ, FILE_CHANGED, COMMAND_RUN, FEEDBACK_READ = ev.FILE_READ, ev.FILE_CHANGED, ev.COMMAND_RUN, ev.FEEDBACK_READ
SEARCH_PROGRAMS = {"grep", "rg", "find", "ag", "ack", "locate", "fd"}


@dataclass(slots=True)  # one per iteration of every judged attempt: cheaper to build and read
class IterationRecord:
    iteration_number: int
    submission: int
    timestamp_start: float
    timestamp_submit: float
    duration_seconds: float
    # actions
    tool_calls_total: int = 0
    file_reads: int = 0
    file_edits: int = 0
    test_runs: int = 0
    validation_runs: int = 0  # test runs after an edit of this iteration
    search_operations: int = 0
    other_tools: int = 0
    # changes
    files_modified: int = 0
    files_created: int = 0
    files_deleted: int = 0
    files_changed: int = 0
    lines_added: int = 0
    lines_removed: int = 0
    changed_files: list[str] = field(default_factory=list)
    similarity: float | None = None
    identical: bool = False
    # test results
    pre: dict[str, int] | None = None  # {passed, failed, total}
    post: dict[str, int] = field(default_factory=dict)
    tests_fixed: list[str] = field(default_factory=list)
    regressions: list[str] = field(default_factory=list)
    failing_before: list[str] = field(default_factory=list)
    failing_after: list[str] = field(default_factory=list)
    build_failed: bool = False
    # score
    score_pre: float | None = None
    score_post: float = 0.0
    # feedback analysis
    read_feedback: bool = False
    time_before_first_edit_s: float = 0.0
    failure_messages_referenced: int = 0
    read_before_edit: bool = False  # a file read before the first edit
    tested_after_edit: bool = False  # a test run after the last edit, before submitting
    read_paths: list[str] = field(default_factory=list)
    edited_paths: list[str] = field(default_factory=list)

    @property
    def net_lines_changed(self) -> int:
        return self.lines_added - self.lines_removed

    @property
    def score_delta(self) -> float | None:
        return None if self.score_pre is None else round(self.score_post - self.score_pre, 1)

    def to_dict(self) -> dict[str, Any]:
        """Seed 001's nested record shape."""
        return {
            "iteration_number": self.iteration_number,
            "submission": self.submission,
            "timestamp_start": round(self.timestamp_start, 3),
            "timestamp_submit": round(self.timestamp_submit, 3),
            "duration_seconds": round(self.duration_seconds, 3),
            "actions": {
                "tool_calls_total": self.tool_calls_total,
                "file_reads": self.file_reads,
                "file_edits": self.file_edits,
                "test_runs": self.test_runs,
                "search_operations": self.search_operations,
                "other_tools": self.other_tools,
            },
            "changes": {
                "files_modified": self.files_modified,
                "files_created": self.files_created,
                "files_deleted": self.files_deleted,
                "lines_added": self.lines_added,
                "lines_removed": self.lines_removed,
                "net_lines_changed": self.net_lines_changed,
            },
            "test_results": {
                "pre_iteration": self.pre,
                "post_iteration": self.post,
                "delta": None if self.pre is None else self.post["passed"] - self.pre["passed"],
                "regressions": len(self.regressions),
            },
            "score": {"pre_iteration": self.score_pre, "post_iteration": self.score_post, "delta": self.score_delta},
            "feedback_analysis": {
                "read_feedback": self.read_feedback,
                "time_before_first_edit_seconds": round(self.time_before_first_edit_s, 3),
                "failure_messages_referenced": self.failure_messages_referenced,
            },
        }


def _counts(result: Judged | None) -> dict[str, int]:
    passed, total = memo(result, "passed_total", lambda: _passed_total(result))
    return {"passed": passed, "failed": total - passed, "total": total}


def _passed_total(result: Judged | None) -> tuple[int, int]:
    outcomes = _outcomes(result)
    return sum(outcomes.values()), len(outcomes)


def _outcomes(result: Judged | None) -> dict[str, bool]:
    if result is None:
        return {}
    cache = getattr(result, "cache", None)
    if cache is not None and "outcomes" in cache:
        outcomes: dict[str, bool] = cache["outcomes"]
        return outcomes
    return memo(result, "outcomes", lambda: {t.id: t.outcome == "passed" for t in result.tests})


def test_names(result: Judged) -> dict[str, str]:
    """Test id → name (from the result view's one-pass summary when it has one)."""
    return memo(result, "names", lambda: {t.id: t.name for t in result.tests})


def _failing(result: Judged | None) -> list[str]:
    return memo(result, "failing", lambda: sorted([i for i, ok in _outcomes(result).items() if not ok]))


def failing_words(result: Judged) -> list[tuple[str, str, str]]:
    """(module stem, module without ``test_``, test name) of each failing test of ``result``,
    in ``_failing`` order: what relates a file to a failure (computed once per result)."""

    def compute() -> list[tuple[str, str, str]]:
        names = test_names(result)
        out = []
        for tid in _failing(result):
            s = stem(tid.split("::", 1)[0])
            out.append((s, s[5:] if s.startswith("test_") else s, names.get(tid, "")))
        return out

    return memo(result, "failing_words", compute)


def _program(command: object) -> str:
    if isinstance(command, list):
        words = [str(w) for w in command]
    else:
        try:
            words = shlex.split(str(command))
        except ValueError:
            words = str(command).split()
    return PurePosixPath(words[0]).name if words else ""


@lru_cache(maxsize=4096)
def stem(path: str) -> str:
    """``src/app.py`` → ``app`` (string operations: this runs for every path of every attempt)."""
    return posixpath.splitext(posixpath.basename(path))[0]


def build_records(
    history: AttemptHistory | Iterable[Event | Mapping[str, Any]], scores: list[float] | None = None
) -> list[IterationRecord]:
    """One record per counted submission. ``history`` is an ``AttemptHistory`` (or events);
    ``scores`` the trajectory (defaults to each submission's objective)."""
    from arena.scoring.objective import submission_score  # noqa: PLC0415

    if not isinstance(history, AttemptHistory):
        history = AttemptHistory.from_events(history)
    counted = history.counted
    if scores is None:
        scores = [submission_score(s.judged, history.deliverables, s.phase) for s in counted]
    # Windows by position in the (seq-ordered) log, not by time: a scripted agent edits,
    # tests and submits at one clock instant, and that instant belongs to one iteration.
    relevant = history.actions  # collected by AttemptHistory.from_events in its one pass
    if relevant is None:
        relevant = [(pos, e) for pos, e in enumerate(history.events) if e.kind in ACTION_KINDS]
    positions = [pos for pos, _ in relevant]
    records: list[IterationRecord] = []
    prev: Submission | None = None
    for k, sub in enumerate(counted):
        start = 0.0 if prev is None else (prev.feedback_t or prev.judged_t or prev.t)
        start = min(start, sub.t)
        rec = IterationRecord(
            iteration_number=k,
            submission=sub.number,
            timestamp_start=start,
            timestamp_submit=sub.t,
            duration_seconds=max(0.0, sub.t - start),
        )
        lo = -1 if prev is None else (prev.feedback_pos if prev.feedback_pos is not None else prev.received_pos)
        window = relevant[bisect_right(positions, lo) : bisect_left(positions, sub.received_pos)]
        _fill_actions(rec, window, start, sub.t, prev)
        _fill_changes(rec, sub)
        _fill_tests(rec, prev, sub)
        rec.score_post = scores[k]
        rec.score_pre = scores[k - 1] if k > 0 else None
        records.append(rec)
        prev = sub
    return records


def _fill_actions(
    rec: IterationRecord, window: Iterable[tuple[int, Event]], start: float, end: float, prev: Submission | None
) -> None:
    """``window``: (position, event) pairs of the iteration, in log order."""
    first_edit = last_edit = None  # times
    first_read_pos = first_edit_pos = None
    test_after_edit = read_feedback = False
    reads: list[str] = []
    edits: list[str] = []
    created = deleted = test_runs = validation_runs = searches = others = 0
    prev_number = None if prev is None else prev.number
    for pos, e in window:  # counts in locals: this runs for every action of every attempt
        kind, data = e.kind, e.data
        if kind == FILE_READ:
            reads.append(str(data.get("path", "")))
            if first_read_pos is None:
                first_read_pos = pos
        elif kind == FILE_CHANGED:
            edits.append(str(data.get("path", "")))
            change = data.get("change")
            if change == "created":
                created += 1
            elif change == "deleted":
                deleted += 1
            if first_edit is None:
                first_edit, first_edit_pos = e.t, pos
            last_edit = e.t
            test_after_edit = False
        elif kind == COMMAND_RUN:
            if data.get("ran_tests"):
                test_runs += 1
                validation_runs += first_edit is not None
                test_after_edit = test_after_edit or last_edit is not None
            elif _program(data.get("command", "")) in SEARCH_PROGRAMS:
                searches += 1
            else:
                others += 1
        elif kind == FEEDBACK_READ and prev is not None and data.get("submission") == prev_number:
            read_feedback = True
    rec.file_reads, rec.file_edits = len(reads), len(edits)
    rec.files_created += created
    rec.files_deleted += deleted
    rec.test_runs, rec.validation_runs, rec.search_operations, rec.other_tools = (
        test_runs,
        validation_runs,
        searches,
        others,
    )
    if read_feedback:
        rec.read_feedback = True
    rec.tool_calls_total = rec.file_reads + rec.file_edits + rec.test_runs + rec.search_operations + rec.other_tools
    rec.time_before_first_edit_s = max(0.0, (first_edit if first_edit is not None else end) - start)
    rec.read_before_edit = first_read_pos is not None and (first_edit_pos is None or first_read_pos < first_edit_pos)
    rec.tested_after_edit = test_after_edit
    rec.read_paths = sorted(set(reads))
    rec.edited_paths = sorted(set(edits))
    if prev is not None and prev.feedback_read_t is not None and prev.feedback_read_t <= end:
        rec.read_feedback = True


def _fill_changes(rec: IterationRecord, sub: Submission) -> None:
    diff = sub.diff or {}
    if diff:
        rec.files_changed = int(diff.get("files_changed", 0) or 0)
        rec.lines_added = int(diff.get("lines_added", 0) or 0)
        rec.lines_removed = int(diff.get("lines_removed", 0) or 0)
        rec.changed_files = sorted(str(p) for p in diff.get("changed_files") or [])
        sim = diff.get("similarity")
        rec.similarity = None if sim is None else float(sim)
    else:
        rec.files_changed = len(rec.edited_paths)
        rec.changed_files = list(rec.edited_paths)
    rec.files_modified = max(0, rec.files_changed - rec.files_created - rec.files_deleted)
    rec.identical = sub.identical_to is not None


def _fill_tests(rec: IterationRecord, prev: Submission | None, sub: Submission) -> None:
    result = sub.judged
    rec.post = _counts(result)
    rec.build_failed = result.build.status == "failure"
    after = _outcomes(result)
    rec.failing_after = _failing(result)
    if prev is None:
        return
    before = _outcomes(prev.judged)
    rec.pre = _counts(prev.judged)
    rec.failing_before = _failing(prev.judged)
    rec.tests_fixed = [i for i in rec.failing_before if after.get(i)]
    # passed before (in before, not failing: outcomes are bools) and failing now, by set algebra:
    # the same ids as [i for i, ok in before.items() if ok and after.get(i) is False]
    rec.regressions = sorted(set(rec.failing_after).difference(rec.failing_before).intersection(before))
    if rec.failing_before:
        touched = {stem(p) for p in rec.read_paths + rec.edited_paths}
        if touched:
            rec.failure_messages_referenced = sum(
                1 for _, module, name in failing_words(prev.judged) if module in touched or name in touched
            )
