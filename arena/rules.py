"""Pure rules of an attempt (no I/O, no clock reads): may a submission be accepted
now, which Marathon phase is open, what a feedback document discloses.

Every number comes from the format's row of ``arena.formats.FORMATS``.
Time instants are attempt seconds. Interval readings (see docs/foundation.md):
- the cutoff instant belongs to "after": a submission at exactly the cutoff is refused;
- a Sprint double submit 30.0 s after the previous one still replaces it (inclusive);
- a Standard submission exactly 60.0 s after the previous one is accepted (cooldown over).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Iterable, Sequence

from arena.formats import (
    FIELD_ADVERSARIAL,
    FIELD_BUILD,
    FIELD_COVERAGE,
    FIELD_DIFF,
    FIELD_FAILURE_MESSAGES,
    FIELD_HIDDEN,
    FIELD_LINT,
    FIELD_PHASE,
    FIELD_REGRESSIONS,
    FIELD_SCORE_PREVIEW,
    FIELD_TESTS,
    FIELD_TRAJECTORY,
    FormatRules,
)
from arena.results import JudgeResult, TestResult

IDENTICAL_NOTICE = "Submission identical to previous iteration."
INFRA_NOTICE = "The judge failed for infrastructure reasons; this result is not held against you."
# A test the judge could not run (timeout, build failure): counted failed, message starting so.
NOT_RUN_PREFIX = "not run"
EPS = 1e-9

# Refusal codes (CONTRACT §3: refused verbs come back as ok: false with a reason).
BUDGET_SPENT = "budget_spent"
COOLDOWN = "cooldown"
TIME_UP = "time_up"
GRACE_MESSAGE_ONLY = "grace_message_only"


@dataclass(frozen=True)
class Prior:
    """An earlier accepted submission: its number, attempt time and whether it still counts
    (False once a Sprint double submit replaced it)."""

    number: int
    at: float
    counted: bool = True
    phase: int = 1  # the Marathon phase open when it was submitted


@dataclass(frozen=True)
class Decision:
    ok: bool
    code: str = "accepted"
    reason: str = ""
    replaces: int | None = None  # the submission this one replaces (Sprint double submit)
    retry_after_s: float | None = None  # cooldown: attempt seconds until a submission is possible


def timeout_notice(timeout_s: float, completed: int, total: int) -> str:
    return f"Execution timed out after {timeout_s:g} seconds. {completed}/{total} tests completed."


def _priors(history: Iterable[Any]) -> list[Prior]:
    out = []
    for h in history:
        out.append(h if isinstance(h, Prior) else Prior(*h))
    return sorted(out, key=lambda p: (p.at, p.number))


def _replaceable(priors: list[Prior], rules: FormatRules, at: float) -> Prior | None:
    """The submission a new one at ``at`` replaces under the double-submit rule, if any.
    Only a counted submission that did not itself replace another can be replaced, so
    a chain of quick submissions cannot go on replacing for ever."""
    if rules.double_submit_window_s <= 0 or not priors:
        return None
    last = priors[-1]
    if not last.counted or at - last.at > rules.double_submit_window_s + EPS:
        return None
    if len(priors) >= 2 and not priors[-2].counted:
        return None  # ``last`` was itself a replacement
    return last


def budget_used(history: Iterable[Any], *, per_phase: bool = False, phase: int = 1) -> int:
    """Counted submissions charged to the budget in play: all of them, or with a
    phase-scoped budget (manifest ``budget: per_phase``) those of the open phase only —
    seed 001: "unused iterations in phase 1 are lost"."""
    return sum(1 for p in _priors(history) if p.counted and (not per_phase or p.phase == phase))


def decide_submission(
    rules: FormatRules,
    *,
    budget: int,
    at: float,
    stage: str,
    history: Iterable[Any] = (),
    per_phase: bool = False,
    phase: int = 1,
) -> Decision:
    """Accept or refuse a submission at attempt time ``at``; ``stage`` is the clock's
    (running / grace / over); ``history`` the earlier accepted submissions. With
    ``per_phase`` the budget is ``budget`` per Marathon phase (``phase`` = the open one)."""
    if stage == "grace":
        return Decision(
            False,
            GRACE_MESSAGE_ONLY,
            "Time is up: during the grace period no new code is run; you may send a final message.",
        )
    if stage != "running":
        return Decision(False, TIME_UP, "Time is up: the attempt is past its cutoff; no more submissions.")
    priors = _priors(history)
    replaced = _replaceable(priors, rules, at)
    if replaced is not None:
        return Decision(
            True,
            "replaces",
            f"Submitted within {rules.double_submit_window_s:g} s of submission {replaced.number}: "
            f"only this one counts.",
            replaces=replaced.number,
        )
    used = budget_used(priors, per_phase=per_phase, phase=phase)
    if used >= budget:
        if per_phase:
            return Decision(
                False,
                BUDGET_SPENT,
                f"Phase {phase} submission budget spent: {used} of {budget} used "
                "(each phase has its own budget; the next opens with the next phase).",
            )
        return Decision(False, BUDGET_SPENT, f"Submission budget spent: {used} of {budget} used.")
    if rules.cooldown_s > 0 and priors:
        wait = priors[-1].at + rules.cooldown_s - at
        if wait > EPS:
            return Decision(
                False,
                COOLDOWN,
                f"Cooldown: {rules.cooldown_s:g} s between submissions; next possible in {wait:.1f} s.",
                retry_after_s=wait,
            )
    return Decision(True)


def decide_message(rules: FormatRules, *, stage: str) -> Decision:
    """A final message (seed 000 grace): allowed while running and in grace, not after."""
    if stage in ("running", "grace"):
        return Decision(True)
    return Decision(False, TIME_UP, "Time is up: the grace period is over.")


def identical_to(snapshot_hash: str, previous: Sequence[tuple[int, str]]) -> int | None:
    """The number of the previous submission when this one is byte-for-byte the same
    (same content hash), else None. ``previous`` is ``(number, hash)`` in order."""
    if previous and previous[-1][1] == snapshot_hash:
        return previous[-1][0]
    return None


# -- Marathon phases --------------------------------------------------------------------
@dataclass(frozen=True)
class PhaseOpening:
    phase: int  # 2..4
    by: str  # "threshold" or "time"


def open_phase(
    rules: FormatRules,
    *,
    current: int,
    phase_count: int,
    fraction: float,
    pass_rate: float | None = None,
    reveal_at: Sequence[float] | None = None,
    thresholds: Sequence[float] | None = None,
) -> list[PhaseOpening]:
    """Phases that open now, in order. ``current`` is the open phase; ``fraction`` the
    elapsed share of the time limit; ``pass_rate`` the share of the current phase's static
    tests the latest judged submission passed (None when nothing new was judged or the
    phase has no static tests). A phase opens by threshold (pass rate >= its threshold,
    one phase per judgement) or by its time mark, whichever comes first."""
    marks = list(reveal_at) if reveal_at is not None else list(rules.reveal_marks)
    opened: list[PhaseOpening] = []
    phase = current
    rate = pass_rate
    while phase < phase_count:
        nxt = phase + 1
        threshold = (
            thresholds[nxt - 2] if thresholds is not None and len(thresholds) > nxt - 2 else rules.advance_threshold
        )
        mark = marks[nxt - 2] if len(marks) > nxt - 2 else None
        if rate is not None and threshold > 0 and rate + EPS >= threshold:
            opened.append(PhaseOpening(nxt, "threshold"))
        elif mark is not None and fraction + EPS >= mark:
            opened.append(PhaseOpening(nxt, "time"))
        else:
            break
        phase, rate = nxt, None  # the new phase's tests were not judged yet
    return opened


def regressions(prev: JudgeResult | None, cur: JudgeResult, suites: Iterable[str] | None = None) -> list[str]:
    """Names of tests that passed in ``prev`` and do not pass in ``cur`` (failed, error,
    or did not run). ``suites`` limits the suites looked at."""
    if prev is None:
        return []
    wanted = set(suites) if suites is not None else None
    now = {t.id: t.outcome for t in cur.tests}
    out: list[str] = []
    for t in prev.tests:
        if wanted is not None and t.suite not in wanted:
            continue
        if t.outcome == "passed" and now.get(t.id) != "passed" and now.get(t.id) != "skipped":
            if t.name not in out:
                out.append(t.name)
    return out


# -- disclosure (CONTRACT §4) -----------------------------------------------------------
_EXC = re.compile(r"^\s*(?:E\s+)?([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Failed))\b")


def failure_category(t: TestResult) -> str:
    """The judge's category (judge.categories globs) or, failing that, a brief reason:
    the exception class named by the message, ``error``, or ``failed``."""
    if t.category:
        return t.category
    m = _EXC.match(t.message or "")
    if m:
        return m.group(1).rsplit(".", 1)[-1]
    if t.message.startswith(NOT_RUN_PREFIX):
        return "not_run"
    return "error" if t.outcome == "error" else "failed"


def _failure(t: TestResult, messages: bool) -> dict[str, Any]:
    d: dict[str, Any] = {"name": t.name}
    if messages and t.message:
        d["message"] = t.message
    d["category"] = failure_category(t)
    return d


def _suite_doc(tests: list[TestResult], messages: bool, *, results: bool) -> dict[str, Any]:
    passed = sum(t.outcome == "passed" for t in tests)
    skipped = sum(t.outcome == "skipped" for t in tests)
    failing = [t for t in tests if t.outcome in ("failed", "error")]
    doc: dict[str, Any] = {
        "total": len(tests),
        "passed": passed,
        "failed": len(failing),
        "skipped": skipped,
        "failures": [_failure(t, messages) for t in failing],
    }
    if results:
        doc["results"] = [
            {
                "name": t.name,
                "outcome": "passed" if t.outcome == "passed" else ("skipped" if t.outcome == "skipped" else "failed"),
            }
            | ({"category": failure_category(t)} if t.outcome in ("failed", "error") else {})
            for t in tests
        ]
    return doc


def _iso(at: datetime | str) -> str:
    if isinstance(at, datetime):
        if at.tzinfo is None:
            at = at.replace(tzinfo=timezone.utc)
        return at.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    return str(at)


def disclose(
    rules: FormatRules,
    submission: int,
    result: JudgeResult,
    *,
    at: datetime | str,
    elapsed_s: float,
    diff: dict[str, Any] | None = None,
    regressions: Sequence[str] | None = None,
    phase: dict[str, Any] | None = None,
    score_preview: dict[str, Any] | None = None,
    trajectory: Sequence[float] | None = None,
    notices: Sequence[str] = (),
    timeout_s: float | None = None,
) -> dict[str, Any]:
    """The CONTRACT §4 feedback document for submission ``submission`` (1-based) from the
    judge's full result; fields the format withholds at this submission are left out."""
    shown = rules.disclosed(submission)
    messages = FIELD_FAILURE_MESSAGES in shown
    doc: dict[str, Any] = {
        "submission": submission,
        "iteration": submission - 1,
        "at": _iso(at),
        "elapsed_s": round(float(elapsed_s), 3),
    }
    if FIELD_BUILD in shown:
        doc["build"] = result.build.model_dump()
    if FIELD_TESTS in shown:
        doc["tests"] = _suite_doc(result.suite("static"), messages, results=True)
    hidden = result.suite("hidden")
    if FIELD_HIDDEN in shown and hidden:
        doc["hidden"] = {"total": len(hidden), "passed": sum(t.outcome == "passed" for t in hidden)}
    adversarial = result.suite("adversarial")
    if FIELD_ADVERSARIAL in shown and adversarial:
        full = _suite_doc(adversarial, messages, results=False)
        doc["adversarial"] = {"total": full["total"], "passed": full["passed"], "failures": full["failures"]}
    if FIELD_LINT in shown:
        doc["lint"] = result.lint.model_dump()
    if FIELD_COVERAGE in shown and result.coverage is not None:
        doc["coverage"] = result.coverage.model_dump(exclude_none=True)
    if FIELD_DIFF in shown and diff is not None:
        doc["diff"] = {k: diff[k] for k in ("files_changed", "lines_added", "lines_removed") if k in diff}
    if FIELD_REGRESSIONS in shown and regressions is not None:
        visible = {t.name for t in result.suite("static")}
        if FIELD_ADVERSARIAL in shown:
            visible |= {t.name for t in adversarial}
        doc["regressions"] = [n for n in regressions if n in visible]  # hidden names never leak
    if FIELD_PHASE in shown and phase is not None:
        doc["phase"] = dict(phase)
    if FIELD_SCORE_PREVIEW in shown and score_preview is not None:
        doc["score_preview"] = dict(score_preview)
    if FIELD_TRAJECTORY in shown and trajectory is not None:
        doc["trajectory"] = [float(x) for x in trajectory]
    all_notices = list(notices) + [n for n in result.notices if n not in notices]
    if result.timed_out and not any(n.startswith("Execution timed out") for n in all_notices):
        done = sum(1 for t in result.tests if not t.message.startswith(NOT_RUN_PREFIX))
        limit = timeout_s if timeout_s is not None else round(result.duration_s)
        all_notices.append(timeout_notice(limit, done, len(result.tests)))
    if result.infra_error:
        all_notices.append(INFRA_NOTICE)
    if all_notices:
        doc["notices"] = all_notices
    return doc
