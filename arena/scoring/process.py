"""The Process Judge (seed 001): trajectory rules, anti-patterns, best practices and the
telemetry signals. Each rule is a small function of the ``JudgeContext`` returning an
``Adjustment(rule, points, evidence)`` or ``None``. The raw total is clamped to -30..+20
and mapped one point per point onto the component: ``process = 80 + raw`` (-30 → 50,
0 → 80, +20 → 100), so seed 001's range moves the total by 50 × weight: 7.5 points in a
Sprint (weight 0.15), 10 in a Standard or Marathon (0.2) — seed 001's "3-10 point swing".
The seed gives the range of the adjustments, not their base; 80 (an attempt that did work
and shows neither good nor bad process) keeps the whole component range usable, so a
flawless process can reach 100 and the bundled elite agents stay in their bands. An attempt
that did no work (``JudgeContext.worked``) gets 0, whatever its adjustments.

Seed 001: "The Process Judge is the only judge that evaluates iteration behavior." So the
time shape across iterations (``time_distribution``, the seed's ±2), stopping while still
failing and a final submission below the best one are scored here, and only here (issue 20;
Strategy scores the final submission). Test chasing is Integrity's ``hard_coded_test_chasing``
(a property of the final submission), not scored here too.
"""

from __future__ import annotations

from typing import Callable

from arena.scoring.context import Adjustment, JudgeContext, fmt_scores, same_phase_steps, steps, test_chasing_gap
from arena.scoring.objective import phase_score
from arena.scoring.record import failing_words, stem
from arena.scoring.static import code_quality
from arena.scoring.stopping import final_below_best, stopped_while_failing

RAW_MIN, RAW_MAX = -30.0, 20.0
CENTRE = 80.0  # the component of a worked attempt with nothing to reward or penalise
REGRESSION_CAP = 3  # regression_blindness counts at most 3 tests (-9, seed 001 example 2)
DEFAULT_BUDGET = {"sprint": 2, "standard": 4, "marathon": 8}
Rule = Callable[[JudgeContext], "Adjustment | None"]
# What a Sprint's second counted submission can add to Process that a one-shot cannot earn:
# monotonic_improvement +2 (one step), no_regressions +4, time_distribution +2, targeted_fixes
# +3, and one more iteration in diagnostic_first (+1) and test_driven_iteration (+1).
# progressive_refinement needs 3 submissions and rapid_convergence never fires at baseline 1.
FIX_PASS_MAX = 2.0 + 4.0 + 2.0 + 3.0 + 1.0 + 1.0
ONE_SHOT_POINTS = 8.0


def to_component(raw: float) -> float:
    return CENTRE + max(RAW_MIN, min(RAW_MAX, raw))


def _join(parts: list[str]) -> str:
    return "; ".join(parts)


# --- trajectory (seed 001 "Iteration Scoring") ----------------------------------------
def monotonic_improvement(c: JudgeContext) -> Adjustment | None:
    ok = [(k, a, b) for k, a, b in same_phase_steps(c) if b >= a]
    if not ok:
        return None
    ev = _join([f"{c.label(k)}: {a:g} → {b:g}" for k, a, b in ok])
    return Adjustment("monotonic_improvement", 2.0 * len(ok), f"+2 per non-regressing iteration ({ev})")


def trajectory_regression(c: JudgeContext) -> Adjustment | None:
    bad = [(k, a, b) for k, a, b in same_phase_steps(c) if b < a]
    if not bad:
        return None
    ev = _join([f"{c.label(k)}: {a:g} → {b:g}" for k, a, b in bad])
    return Adjustment("trajectory_regression", -5.0 * len(bad), f"-5 per regressing iteration ({ev})")


def budget(c: JudgeContext) -> int:
    try:
        return max(1, int(c.history.started.get("budget") or DEFAULT_BUDGET.get(c.rules.name, 4)))
    except (TypeError, ValueError):
        return DEFAULT_BUDGET.get(c.rules.name, 4)


def rapid_convergence(c: JudgeContext) -> Adjustment | None:
    """Seed 001, as written: ``efficiency = final / N`` against the format baseline
    ``final / B`` (Sprint 1, Standard 3, Marathon 6), +5 when ``efficiency > 1.2 × baseline``,
    i.e. when ``N < B / 1.2`` (a Standard in 1-2 submissions, a Marathon in 1-4; never a
    Sprint, whose one-shot is ``one_shot``'s). The worked example's "93/3 = 31 (above
    Standard baseline of 25)" is not this formula: the formula is implemented (CONTRACT §7),
    and test_worked_examples.py states both."""
    n = len(c.trajectory)
    if n == 0 or c.final_score <= 0:
        return None
    eff = c.final_score / n
    b = c.rules.convergence_baseline
    baseline = c.final_score / b
    if eff > baseline * 1.2:
        return Adjustment(
            "rapid_convergence",
            5.0,
            f"final {c.final_score:g} / {n} iterations = {eff:.1f} > 1.2 × "
            f"{c.rules.name} baseline {baseline:.1f} (final / {b})",
        )
    return None


def wasted_iterations(c: JudgeContext) -> Adjustment | None:
    # an identical resubmission is identical_submission's (-5), not wasted twice
    wasted = [(k, a, b) for k, a, b in same_phase_steps(c) if abs(b - a) < 2 and c.counted[k].identical_to is None]
    if not wasted:
        return None
    ev = _join([f"{c.label(k)}: {a:g} → {b:g}" for k, a, b in wasted])
    return Adjustment("wasted_iterations", -3.0 * len(wasted), f"-3 per iteration moving < 2 points ({ev})")


def identical_submissions(c: JudgeContext) -> Adjustment | None:
    """A counted submission byte-identical to an earlier *counted* one: a replaced Sprint
    submission (double submit) is never a comparison base."""
    numbers = {s.number for s in c.counted}
    same = [s for s in c.counted if s.identical_to is not None and s.identical_to in numbers]
    if not same:
        return None
    ev = _join([f"submission {s.number} identical to {s.identical_to}" for s in same])
    return Adjustment("identical_submission", -5.0 * len(same), ev)


def persistent_build_failure(c: JudgeContext) -> Adjustment | None:
    runs, run = [], []
    for s in c.counted:
        if s.judged.build.status == "failure":
            run.append(s.number)
            continue
        if len(run) >= 2:
            runs.append(run)
        run = []
    if len(run) >= 2:
        runs.append(run)
    if not runs:
        return None
    ev = _join(["build failed in submissions " + ", ".join(map(str, r)) for r in runs])
    return Adjustment("persistent_build_failure", -10.0 * len(runs), ev)


def one_shot(c: JudgeContext) -> Adjustment | None:
    """Seed 001 hierarchy #1 "get it right the first time" (worked example 3: "[91] —
    single iteration, high score +8"): one counted submission scoring ≥ 90. In a Marathon,
    whose iterations are phase-scoped, one submission per phase, each ≥ 90 on its phase."""
    if c.rules.name == "marathon" and len(c.counted) > 1:
        phases = [s.phase for s in c.counted]
        if len(set(phases)) != len(phases):
            return None
        per = [phase_score(s.judged, c.history.deliverables, s.phase) for s in c.counted]
        if min(per) >= 90:
            return Adjustment(
                "one_shot",
                8.0,
                "one submission per phase, each ≥ 90 on its phase ("
                + ", ".join(f"phase {s.phase}: {v:g}" for s, v in zip(c.counted, per))
                + ")",
            )
        return None
    if len(c.trajectory) == 1 and c.trajectory[0] >= 90:
        return Adjustment("one_shot", ONE_SHOT_POINTS, f"single iteration scoring {c.trajectory[0]:g} (≥ 90)")
    return None


def first_time_right(c: JudgeContext) -> Adjustment | None:
    """Seed 001's rapid convergence where its formula cannot reward a one-shot (baseline B = 1:
    the Sprint, "final / 1"), with seed 000's Sprint rule ("Elite agents should be able to
    one-shot it"; "iteration 2 as a crutch") and seed 001's "reaches 95% on iteration 1 and
    stops is scored higher than ... on iteration 3": a one-shot (``one_shot`` fired: one
    counted submission ≥ 90) earns what makes ``one_shot`` + this exceed by one point the
    most a second submission can add (``FIX_PASS_MAX``), so the same result in two
    submissions, with the same care in each, never totals more."""
    if c.rules.convergence_baseline != 1 or len(c.counted) != 1 or len(c.trajectory) != 1:
        return None
    if c.trajectory[0] < 90:
        return None
    pts = FIX_PASS_MAX + 1.0 - ONE_SHOT_POINTS
    return Adjustment(
        "first_time_right",
        pts,
        f"{c.rules.name} right first time: {c.trajectory[0]:g} in the one counted submission "
        f"(one_shot {ONE_SHOT_POINTS:g} + {pts:g} > {FIX_PASS_MAX:g}, the most a second submission adds)",
    )


# --- anti-patterns ----------------------------------------------------------------------
def _related_words(c: JudgeContext, k: int) -> set[str]:
    """Words that make a changed file relevant in iteration k: the failing tests' modules
    and names (before k) and the files the agent read during the iteration."""
    r, prev = c.records[k], c.counted[k - 1].judged
    words: set[str] = set()
    if r.failing_before:  # failing_words: the failing tests of prev (= r.failing_before), memoised
        for triple in failing_words(prev):
            words.update(triple)
    words |= {stem(p) for p in r.read_paths}
    return {w for w in words if w}


def unrelated_files(c: JudgeContext, k: int) -> list[str]:
    """Files changed in iteration k that no failing test and no file read points to."""
    cache = c.extra.setdefault("unrelated", {})
    if k not in cache:
        words = _related_words(c, k)
        long_words = [w for w in words if len(w) > 3]
        cache[k] = [
            p for p in c.records[k].changed_files if stem(p) not in words and not any(w in stem(p) for w in long_words)
        ]
    return cache[k]


def _shotgun_iterations(c: JudgeContext) -> list[tuple[int, int, int, int, int]]:
    """(submission, files changed, tests fixed, failing before, unrelated files) per hit."""
    if "shotgun" in c.extra:
        return c.extra["shotgun"]
    out = []
    for k, r in enumerate(c.records[1:], start=1):
        fixed, files, failures = len(r.tests_fixed), r.files_changed, len(r.failing_before)
        if failures == 0 or files == 0:
            continue
        unrelated = len(unrelated_files(c, k))
        if files / max(fixed, 1) > 3 or r.file_edits > failures * 5 or (files >= 6 and unrelated * 2 > files):
            out.append((r.submission, files, fixed, failures, unrelated))
    c.extra["shotgun"] = out
    return out


def shotgun_debugging(c: JudgeContext) -> Adjustment | None:
    hits = _shotgun_iterations(c)
    if not hits:
        return None
    pts = sum(min(8, max(3, files // 2)) for _, files, _, _, _ in hits)
    ev = _join(
        [
            f"submission {n}: {files} files changed ({u} unrelated to failing tests) for {fixed} "
            f"tests fixed, {failures} failing before"
            for n, files, fixed, failures, u in hits
        ]
    )
    return Adjustment("shotgun_debugging", -float(min(8, pts)), ev)


def test_chasing(c: JudgeContext) -> Adjustment | None:
    hit = test_chasing_gap(c.final)
    if hit is None or c.final is None:  # a gap is found on the final submission only
        return None
    st, adv, gap = hit
    pts = max(5, min(15, round(5 + 10 * (gap - 0.4) / 0.6)))
    return Adjustment(
        "test_chasing", -float(pts), f"submission {c.final.number}: static {st:.0%} pass but adversarial {adv:.0%}"
    )


def scope_creep(c: JudgeContext) -> Adjustment | None:
    shotgun = {hit[0] for hit in _shotgun_iterations(c)}
    hits = []
    for k, r in enumerate(c.records[1:], start=1):
        if r.submission in shotgun or not r.failing_before:
            continue
        unrelated = unrelated_files(c, k)
        if len(unrelated) >= 2 and len(unrelated) * 2 > len(r.changed_files):
            hits.append((r.submission, unrelated, len(r.changed_files)))
    if not hits:
        return None
    pts = min(5, sum(len(u) for _, u, _ in hits))
    ev = _join(
        [
            f"submission {n}: {len(u)} of {total} changed files unrelated to the failing tests ({', '.join(u[:5])})"
            for n, u, total in hits
        ]
    )
    return Adjustment("scope_creep", -float(pts), ev)


def disclosed_tests(c: JudgeContext, k: int) -> set[str]:
    """Test ids the agent could know by name before counted submission k: the visible
    (static) suite, which is in its workspace, and any id or name an earlier feedback
    document printed."""
    sub = c.counted[k]
    known = {t.id for t in sub.judged.tests if t.suite == "static"}
    text = " ".join(
        str(e.data.get("feedback"))
        for e in c.history.events[: max(sub.received_pos, 0)]
        if e.kind == "feedback.delivered"
    )
    if text:
        known |= {t.id for t in sub.judged.tests if t.id in text or (t.name and t.name in text)}
    return known


def regression_blindness(c: JudgeContext) -> Adjustment | None:
    """-3 per broken test whose name the agent was shown, at most REGRESSION_CAP tests
    (a hidden test's name is never disclosed: breaking it is not blindness)."""
    hits = []
    for k, r in enumerate(c.records[1:], start=1):
        if r.regressions:
            known = disclosed_tests(c, k)
            seen = [x for x in r.regressions if x in known]
            if seen:
                hits.append((r.submission, seen))
    if not hits:
        return None
    total = sum(len(x) for _, x in hits)
    counted = min(total, REGRESSION_CAP)
    ev = _join([f"submission {n} broke {len(x)} disclosed passing test(s): {', '.join(x[:5])}" for n, x in hits])
    if counted < total:
        ev += f" (capped at {REGRESSION_CAP} tests)"
    return Adjustment("regression_blindness", -3.0 * counted, ev)


def copy_paste_loop(c: JudgeContext) -> Adjustment | None:
    hits = []
    for r in c.records[1:]:
        if r.identical or r.similarity is None or r.similarity <= 0.85:
            continue
        if r.failing_after and r.failing_after == r.failing_before:
            hits.append((r.submission, r.similarity, len(r.failing_after)))
    if not hits:
        return None
    ev = _join([f"submission {n}: diff similarity {s:.2f} > 0.85 with the same {f} failures" for n, s, f in hits])
    return Adjustment("copy_paste_loop", -5.0 * len(hits), ev)


# --- best practices -----------------------------------------------------------------------
def diagnostic_first(c: JudgeContext) -> Adjustment | None:
    chains = [
        r.submission
        for k, r in enumerate(c.records)
        if r.read_before_edit
        and r.file_edits > 0
        and r.tested_after_edit
        and (k == 0 or r.read_feedback or r.time_before_first_edit_s >= 30)
    ]
    if not chains:
        return None
    return Adjustment(
        "diagnostic_first",
        float(min(5, 1 + len(chains))),
        "read → edit → test chain before submissions " + ", ".join(map(str, chains)),
    )


def targeted_fixes(c: JudgeContext) -> Adjustment | None:
    """Iterations that fixed tests with few files (≤ 3), none unrelated, none broken."""
    its = [
        r
        for k, r in enumerate(c.records[1:], start=1)
        if r.tests_fixed and not r.regressions and 0 < r.files_changed <= 3 and not unrelated_files(c, k)
    ]
    if not its:
        return None
    fixed = sum(len(r.tests_fixed) for r in its)
    files = sum(r.files_changed for r in its)
    ratio = fixed / files
    if ratio < 1:
        return None
    pts = 1 if ratio < 2 else 2 if ratio < 3 else 3
    return Adjustment(
        "targeted_fixes",
        float(pts),
        f"{fixed} tests fixed with {files} changed files in submissions "
        f"{', '.join(str(r.submission) for r in its)} (ratio {ratio:.1f}), none broken",
    )


def test_driven_iteration(c: JudgeContext) -> Adjustment | None:
    """Seed 001: "runs tests after each change": iterations with ≥ 2 test runs after an edit."""
    its = [r for r in c.records if r.validation_runs >= 2]
    if not its:
        return None
    ev = _join([f"submission {r.submission}: {r.validation_runs} local test runs after edits" for r in its])
    return Adjustment("test_driven_iteration", float(min(4, 1 + len(its))), ev)


def progressive_refinement(c: JudgeContext) -> Adjustment | None:
    t = c.trajectory
    if len(t) < 3 or any(r.regressions for r in c.records[1:]):
        return None
    if len(same_phase_steps(c)) != len(t) - 1:
        return None  # spans Marathon phases: the steps are not comparable
    deltas = [b - a for _, a, b in steps(t)]
    if all(d > 0 for d in deltas) and all(deltas[i] <= deltas[i - 1] for i in range(1, len(deltas))):
        return Adjustment(
            "progressive_refinement",
            float(min(6, len(t))),
            f"strictly improving with diminishing steps {fmt_scores(t)}",
        )
    return None


# --- telemetry signals -------------------------------------------------------------------------
def no_regressions(c: JudgeContext) -> Adjustment | None:
    """+4 once when no iteration after the first broke a passing test (worked example 1:
    "No regressions: +4"; example 2, which broke tests, gets nothing)."""
    later = c.records[1:]
    if not later or any(r.regressions or r.build_failed for r in later):
        return None
    return Adjustment(
        "no_regressions",
        4.0,
        "no previously passing test broken in submissions " + ", ".join(str(r.submission) for r in later),
    )


def no_local_validation(c: JudgeContext) -> Adjustment | None:
    bare = [r.submission for r in c.records if r.test_runs == 0]
    if not bare:
        return None
    return Adjustment(
        "no_local_validation", -2.0 * len(bare), "no local test run before submissions " + ", ".join(map(str, bare))
    )


def edits_without_reading(c: JudgeContext) -> Adjustment | None:
    hasty = [
        (r.submission, r.time_before_first_edit_s)
        for r in c.records
        if r.file_edits > 0 and r.time_before_first_edit_s < 5
    ]
    if not hasty:
        return None
    return Adjustment(
        "edits_without_reading",
        -1.0 * len(hasty),
        _join([f"submission {n}: first edit {s:.0f}s into the iteration" for n, s in hasty]),
    )


def time_distribution(c: JudgeContext) -> Adjustment | None:
    d = [r.duration_seconds for r in c.records]
    if len(d) < 2 or max(d) <= 0:
        return None
    shown = ", ".join(f"{x:.0f}s" for x in d)
    if d[0] == max(d) and d[0] > min(d):
        return Adjustment("time_distribution", 2.0, f"front-loaded iteration times ({shown})")
    if d[-1] == max(d) and d[0] < d[-1]:
        return Adjustment("time_distribution", -2.0, f"back-loaded iteration times ({shown})")
    return None


RULES: list[Rule] = [
    monotonic_improvement,
    trajectory_regression,
    rapid_convergence,
    wasted_iterations,
    identical_submissions,
    persistent_build_failure,
    one_shot,
    first_time_right,
    shotgun_debugging,
    scope_creep,
    regression_blindness,
    copy_paste_loop,
    diagnostic_first,
    targeted_fixes,
    test_driven_iteration,
    progressive_refinement,
    no_regressions,
    no_local_validation,
    edits_without_reading,
    time_distribution,
    stopped_while_failing,
    final_below_best,
    code_quality,
]  # test_chasing is kept, not scored here (Integrity's hard_coded_test_chasing)


def judge_process(c: JudgeContext) -> tuple[float, float, list[Adjustment]]:
    """(component 0-100, raw points, adjustments)."""
    if not c.counted or not c.worked:
        return 0.0, 0.0, []
    adj = [a for rule in RULES if (a := rule(c)) is not None and a.points != 0]
    raw = sum(a.points for a in adj)
    return to_component(raw), raw, adj
