"""From what a judge run left behind to test results, build status and findings.

Sources: the JUnit report (the result of record, CONTRACT §2), the progress log
the trusted plugin wrote as tests finished (survives a timeout kill or an early
``os._exit``), and the expected tests read from the judge-side files. Rules:

- every expected test must report an explicit pass; a missing one is failed
  ("not reported"), or "not run" after a timeout;
- where the report and the progress log disagree, the worse outcome stands and an
  integrity finding is raised (e.g. an ``atexit`` hook rewrote the report);
- collection errors are a build failure, with the errors;
- a reported test that is not expected is ignored (and recorded).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from arena.judge.verdict.expected import Expected, Matcher, test_id, to_result
from arena.judge.verdict.junit import RawCase, cap_message, read_report
from arena.judge.verdict.claims import SKIP_DIRS, Work, index_tree, starter_files
from arena.judge.verdict.substance import substance_score
from arena.results import Build, Coverage, Finding, Outcome, Suite, TestResult

_RANK: dict[Outcome, int] = {"passed": 0, "skipped": 1, "failed": 2, "error": 3}
# (expected test, reported name, outcome, message)
_Hit = tuple[Expected, str, Outcome, str]


@dataclass
class Progress:
    started: bool = False
    finished: bool = False
    exitstatus: int | None = None
    collected: int | None = None
    collect_errors: list[str] = field(default_factory=list)
    tests: list[tuple[str, Outcome, str]] = field(default_factory=list)  # nodeid, outcome, message
    forged: list[str] = field(default_factory=list)  # node ids whose call raised but report passed
    signed: bool = False  # read with the run's key: only lines signed with it were kept
    unsigned: int = 0  # lines dropped for a missing or wrong signature


def signature(key: str, ev: dict) -> str:
    """What the trusted plugin appends to a progress line as ``mac`` (trusted.PLUGIN)."""
    body = json.dumps({k: v for k, v in ev.items() if k != "mac"}, sort_keys=True)
    return hmac.new(key.encode(), body.encode(), hashlib.sha256).hexdigest()


def parse_progress(data: bytes | None, key: str | None = None) -> Progress:
    """The progress log; with ``key`` (the run's, given to the trusted process only) a
    line counts only when signed with it: the submission's process, which can write
    into the output directory, cannot add or change one."""
    p = Progress(signed=bool(key))
    for line in (data or b"").splitlines():
        try:
            ev = json.loads(line)
        except ValueError:
            p.unsigned += bool(key)
            continue
        if not isinstance(ev, dict):
            p.unsigned += bool(key)
            continue
        if key and not (isinstance(ev.get("mac"), str) and hmac.compare_digest(ev["mac"], signature(key, ev))):
            p.unsigned += 1
            continue
        kind = ev.get("event")
        if kind == "start":
            p.started = True
        elif kind == "finish":
            p.finished = True
            p.exitstatus = ev.get("exitstatus") if isinstance(ev.get("exitstatus"), int) else None
        elif kind == "collected" and isinstance(ev.get("n"), int):
            p.collected = ev["n"]
        elif kind == "collect_error":
            where = scrub_paths(str(ev.get("nodeid", "")))
            p.collect_errors.append(cap_message(f"{where}: {scrub_paths(_tail(str(ev.get('message', ''))))}"))
        elif kind == "test" and isinstance(ev.get("outcome"), str) and ev.get("outcome") in _RANK:
            p.tests.append(
                (str(ev.get("nodeid", "")), ev["outcome"], cap_message(scrub_paths(str(ev.get("message", "")))))
            )
            if ev.get("forged"):
                p.forged.append(str(ev.get("nodeid", "")))
    return p


_JUDGE_PATH = re.compile(r"(?:/judge/tests/)?\b(\d+)/(static|hidden|adversarial)/([\w./-]+)")


def scrub_paths(text: str) -> str:
    """Judge-side paths as the agent may see them: static files by name, others not at all."""

    def repl(m: re.Match) -> str:
        phase, suite, rel = m.groups()
        if suite == "static":
            return f"static/{'phase' + phase + '/' if phase != '1' else ''}{rel}"
        return f"<a {suite} test module>"

    return _JUDGE_PATH.sub(repl, text)


def _tail(text: str) -> str:
    """The informative end of a collection error: its ``E`` lines, else its last lines."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    e_lines = [ln[1:].strip() for ln in lines if ln.startswith("E ")]
    return "\n".join(e_lines[-4:] if e_lines else lines[-4:])


def _id(hit: _Hit) -> str:
    e, name = hit[0], hit[1]
    return test_id(e.phase, e.suite, e.relpath, e.classes, name)


@dataclass
class Verdict:
    tests: list[TestResult]
    build: Build
    integrity: list[Finding]
    notices: list[str]
    completed: int  # expected cases with an outcome of their own


def assemble(
    expected: list[Expected],
    matcher: Matcher,
    *,
    junit: list[RawCase] | None,
    progress: Progress,
    timed_out: bool,
    timeout_s: float,
    categories: dict[str, str] | None,
) -> Verdict:
    integrity: list[Finding] = []
    notices: list[str] = []
    # name -> (expected, outcome, message) from each source, worst outcome per case
    rep: dict[str, _Hit] = {}
    prog: dict[str, _Hit] = {}
    unexpected: list[str] = []

    def put(store: dict[str, _Hit], hit: tuple[Expected, str], outcome: Outcome, message: str) -> None:
        e, name = hit
        key = f"{e.base}|{name}"
        old = store.get(key)
        if old is None or _RANK[outcome] > _RANK[old[2]]:
            store[key] = (e, name, outcome, message)

    for case in junit or []:
        hit = matcher.from_junit(case.classname, case.name, case.file)
        if hit:
            put(rep, hit, case.outcome, case.message)
        elif case.classname or case.name:
            unexpected.append(f"{case.classname}::{case.name}")
    for nodeid, outcome, message in progress.tests:
        hit = matcher.from_nodeid(nodeid)
        if hit:
            put(prog, hit, outcome, message)
        else:
            unexpected.append(nodeid)

    if progress.unsigned:
        integrity.append(
            Finding(
                severity="error",
                check="judge.forged_progress",
                detail=f"{progress.unsigned} line(s) of the progress log were not written by the judge; ignored",
            )
        )
    if progress.forged:
        integrity.append(
            Finding(
                severity="error",
                check="judge.forged_report",
                detail=f"{len(progress.forged)} test(s) raised but were reported passed (first: "
                f"{progress.forged[0][:160]}); counted as failed",
            )
        )
    build = Build()
    if progress.collect_errors:
        build = Build(status="failure", errors=progress.collect_errors[:20])

    merged: dict[str, _Hit] = {}
    for key in set(rep) | set(prog):
        r, p = rep.get(key), prog.get(key)
        if r and p and r[2] != p[2]:
            worse = r if _RANK[r[2]] >= _RANK[p[2]] else p
            integrity.append(
                Finding(
                    severity="error",
                    check="judge.report_mismatch",
                    detail=f"{_id(r)}: report says {r[2]}, the live progress log says {p[2]}; {worse[2]} stands",
                )
            )
            merged[key] = worse
        elif r and not p and (progress.started or progress.signed) and junit is not None:
            # In the report but never seen running: the report was written by someone else.
            integrity.append(
                Finding(
                    severity="error",
                    check="judge.report_mismatch",
                    detail=f"{_id(r)}: in the report but never run; counted as failed",
                )
            )
            merged[key] = (r[0], r[1], "failed", "reported but never run")
        else:
            merged[key] = r if r is not None else prog[key]  # the key came from rep or prog

    if unexpected and not build.errors:
        integrity.append(
            Finding(
                severity="warning",
                check="judge.unexpected_tests",
                detail=f"{len(unexpected)} reported test(s) are not judge-side tests and were ignored "
                f"(first: {unexpected[0][:120]})",
            )
        )

    by_base: dict[str, list[_Hit]] = {}
    for v in merged.values():
        by_base.setdefault(v[0].base, []).append(v)
    results: list[TestResult] = []
    completed = 0
    if timed_out:
        missing_msg = f"not run: execution timed out after {timeout_s:g} seconds"
    elif build.status == "failure":
        missing_msg = "not run: the submission did not build (collection errors)"
    else:
        missing_msg = "not reported: no result for this test"
    for e in expected:
        got = sorted(by_base.get(e.base, []), key=lambda v: v[1])
        for _e, name, outcome, message in got:
            results.append(to_result(e, name, outcome, message, categories))
        completed += len(got)
        names = {v[1] for v in got}
        if e.ids is None:  # ids not known statically: any reported case counts, none is a failure
            if not got:
                results.append(to_result(e, e.func, "failed", missing_msg, categories))
            continue
        ids = list(e.ids)
        known = [i for i in ids if i != "?"]
        for pid in known:  # statically known cases that did not report
            name = f"{e.func}[{pid}]" if pid else e.func
            if name not in names:
                results.append(to_result(e, name, "failed", missing_msg, categories))
        unknown = len(ids) - len(known)
        extra = len([n for n in names if n not in {f"{e.func}[{p}]" if p else e.func for p in known}])
        for i in range(max(0, unknown - extra)):
            results.append(to_result(e, f"{e.func}[not-reported-{i + 1}]", "failed", missing_msg, categories))

    total = len(results)
    if timed_out:
        notices.append(f"Execution timed out after {timeout_s:g} seconds. {completed}/{total} tests completed.")
    elif progress.started and not progress.finished and build.status == "success":
        notices.append(
            f"The test process ended before it finished ({completed}/{total} tests reported); "
            "unreported tests count as failed."
        )
    return Verdict(results, build, integrity, notices, completed)


_RAW_SUITES: tuple[Suite, ...] = ("hidden", "adversarial")  # else "static"
_RAW_PHASE = re.compile(r"/judge/tests/(\d+)/(?:static|hidden|adversarial)/")


def raw_results(cases: list[RawCase], categories: dict[str, str] | None) -> list[TestResult]:
    """Results of a non-Python runner where no expected ids are known: suite from the names."""
    from arena.judge.verdict.expected import category_for  # noqa: PLC0415

    out: dict[str, TestResult] = {}
    for c in cases:
        hay = f"{c.file or ''} {c.classname}".replace("\\", "/")
        suite: Suite = next(
            (s for s in _RAW_SUITES if f"/{s}/" in hay or f".{s}." in hay or hay.startswith((f"{s}.", f"{s}/"))),
            "static",
        )
        # a result under a judge-side path (/judge/tests/<phase>/<suite>/) is that Marathon phase's
        at = _RAW_PHASE.search(hay)
        phase = int(at.group(1)) if at else 1
        tid = f"{suite}/{'phase' + str(phase) + '/' if phase > 1 else ''}{c.classname}::{c.name}"
        r = TestResult(
            id=tid,
            name=c.name,
            suite=suite,
            phase=phase,
            outcome=c.outcome,
            message=c.message if c.outcome != "passed" else "",
            category=category_for(c.name, categories),
        )
        if tid not in out or _RANK[r.outcome] > _RANK[out[tid].outcome]:
            out[tid] = r
    return list(out.values())


def read_coverage(path: Path) -> Coverage | None:
    """The coverage the run wrote (``coverage.json``), None when absent or unreadable."""
    data = read_report(str(path))
    if not data:
        return None
    try:
        doc = json.loads(data)
        totals = doc["totals"]
        line = (
            float(totals["percent_covered"])
            if not totals.get("num_branches")
            else 100.0 * totals["covered_lines"] / max(1, totals["num_statements"])
        )
        branch = 100.0 * totals["covered_branches"] / totals["num_branches"] if totals.get("num_branches") else None
        uncovered = sorted(
            f.removeprefix("/workspace/")
            for f, v in doc.get("files", {}).items()
            if v.get("summary", {}).get("covered_lines", 1) == 0
        )
        return Coverage(
            line_percent=round(line, 1),
            branch_percent=None if branch is None else round(branch, 1),
            uncovered_files=uncovered[:50],
        )
    except (ValueError, KeyError, TypeError, ZeroDivisionError):
        return None


def deliverables(spec, snapshot, result) -> dict[str, float]:
    """Each deliverable's score: ``tests`` = the pass rate; ``file`` = 0 when absent or
    empty, else its substance (arena/judge/verdict/substance.py: the share of its ``must_mention``
    terms said in prose that does not repeat the briefing; a term naming a function, file or
    test counts only when the submission changed it or moved the test, claims.py; without
    terms, the share of the prose's claims that hold). A ``check:`` rubric is the judge model's (arena/scoring/llm_judge.py)."""
    out: dict[str, float] = {}
    tests = result.tests
    rate = (sum(1 for t in tests if t.outcome == "passed") / len(tests)) if tests else 0.0
    if result.build.status == "failure" or result.infra_error:
        rate = 0.0
    mentions = {
        d.name: list(getattr(d, "must_mention", []) or []) for d in getattr(spec, "deliverable_specs", None) or []
    }
    work: Work | None = None
    checked = False
    for name, kind in spec.deliverables:
        if kind == "tests":
            out[name] = round(rate, 4)
            continue
        rel = name.lstrip("./")
        e = snapshot.entries.get(rel)
        if e is None or e.kind != "file" or e.size == 0:
            out[name] = 0.0
            continue
        terms = mentions.get(name) or []
        try:
            text = (snapshot.path / rel).read_bytes()[: 1024 * 1024].decode("utf-8", "replace")
        except OSError:
            text = ""
        if not checked:
            work, checked = submission_work(spec, snapshot, result), True
        out[name] = round(substance_score(text, terms, getattr(spec, "briefing", "") or "", work), 4)
    return out


def submission_work(spec, snapshot, result) -> Work | None:
    """The submission against the package's starter (claims.py); None when the spec names
    no starter (claims are then not checked)."""
    root = getattr(spec, "starter", None)
    if root is None or not Path(root).is_dir():
        return None
    ours = [
        (rel, snapshot.path / rel)
        for rel, e in snapshot.entries.items()
        if e.kind == "file" and rel.endswith(".py") and not (set(rel.split("/")[:-1]) & SKIP_DIRS)
    ]
    tests = [(t.name, t.outcome == "passed") for t in result.tests]
    return Work.between(index_tree(starter_files(Path(root))), index_tree(ours), tests)
