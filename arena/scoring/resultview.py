"""A read-only, fast view of a stored ``JudgeResult`` dict for judging.

Judging reads thousands of stored results; building full pydantic models for each costs
more than reading the events. The view exposes exactly what the judges use (the same
attribute names as ``JudgeResult``), with defaults for missing keys.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any, NamedTuple, TypeAlias

from arena.results import JudgeResult, Suite
from arena.scoring.memo import memo  # noqa: F401 (re-exported for the judges)


class TestView(NamedTuple):
    id: str
    name: str
    suite: str
    phase: int
    outcome: str


# Not a pytest class. Set after the class: in a NamedTuple body mypy takes every
# assignment for a field (and then miscounts the constructor's arguments).
TestView.__test__ = False  # type: ignore[attr-defined]  # a class attribute NamedTuple's stub does not declare


class FindingView(NamedTuple):
    severity: str
    check: str
    detail: str


class BuildView(NamedTuple):
    status: str


class ResultView:
    __slots__ = (
        "submission",
        "build",
        "_raw",
        "_tests",
        "integrity",
        "infra_error",
        "deliverables",
        "cache",
        "quality",
        "security",
    )

    def __init__(self, d: Mapping[str, Any]) -> None:
        self.submission = int(d.get("submission") or 0)
        build = d.get("build") or {}
        self.build = BuildView(str(build.get("status", "success")) if isinstance(build, Mapping) else "success")
        self._raw = d.get("tests") or ()
        self._tests: list[TestView] | None = None
        outcomes: dict[str, bool] = {}
        names: dict[str, str] = {}
        counts: dict[tuple[int, str], list[int]] = {}  # (phase, suite) -> [total, passed]
        try:  # the stored shape (JudgeResult.model_dump): every key present
            for t in self._raw:
                tid, ok, key = t["id"], t["outcome"] == "passed", (t["phase"] or 1, t["suite"])
                outcomes[tid] = ok
                names[tid] = t["name"]
                c = counts.get(key)
                if c is None:
                    counts[key] = [1, int(ok)]
                else:
                    c[0] += 1
                    c[1] += ok
        except (KeyError, TypeError):
            outcomes, names, counts = {}, {}, {}
            for tv in self.tests:
                outcomes[tv.id] = tv.outcome == "passed"
                names[tv.id] = tv.name
                c = counts.setdefault((tv.phase, tv.suite), [0, 0])
                c[0] += 1
                c[1] += tv.outcome == "passed"
        self.integrity = [
            FindingView(str(f.get("severity", "warning")), str(f.get("check", "")), str(f.get("detail", "")))
            for f in d.get("integrity") or ()
        ]
        self.infra_error = d.get("infra_error")
        self.deliverables = dict(d.get("deliverables") or {})
        self.quality = d.get("quality")  # StaticReport dicts (or None): read by scoring/static.py
        self.security = d.get("security")
        # per-result memo for the judges: outcomes and names by test id and (phase, suite)
        # counts come from the one pass above; pass rates etc. are added as they are asked for
        self.cache: dict[Hashable, Any] = {"outcomes": outcomes, "names": names, "counts": counts}

    @property
    def tests(self) -> list[TestView]:
        """Every test as a ``TestView`` (built on first use: most judging needs only the
        one-pass summaries in ``cache``)."""
        if self._tests is None:
            self._tests = [
                TestView(
                    str(t.get("id", "")),
                    str(t.get("name", "")),
                    str(t.get("suite", "static")),
                    int(t.get("phase") or 1),
                    str(t.get("outcome", "failed")),
                )
                for t in self._raw
            ]
        return self._tests

    def suite(self, suite: Suite, phase: int | None = None) -> list[TestView]:
        return [t for t in self.tests if t.suite == suite and (phase is None or t.phase == phase)]

    def passed(self, suite: Suite, phase: int | None = None) -> int:
        return sum(1 for t in self.suite(suite, phase) if t.outcome == "passed")


# What the judges read a submission's result as: the full model (fresh from the judge) or
# the fast view of its stored dict (read back from events). Both have the attributes above.
Judged: TypeAlias = JudgeResult | ResultView


def view(result: JudgeResult | ResultView | Mapping[str, Any]) -> Judged:
    """A ``JudgeResult`` (or a ``ResultView``) as is; a mapping as a ``ResultView``."""
    if type(result) is ResultView:
        return result
    return ResultView(result) if isinstance(result, dict) or isinstance(result, Mapping) else result


def not_passed(result: Judged, suite: Suite) -> int:
    """How many of ``suite``'s tests (every phase) did not pass: the count of
    ``[t for t in result.suite(suite) if t.outcome != "passed"]``, from the view's one-pass
    counts when it has them (no per-test objects built)."""
    cache = getattr(result, "cache", None)
    if cache is not None and "counts" in cache:
        return sum(n - ok for (_, s), (n, ok) in cache["counts"].items() if s == suite)
    return sum(1 for t in result.suite(suite) if t.outcome != "passed")


def test_phases(result: Judged) -> set[int]:
    """``{t.phase for t in result.tests}``, from the one-pass counts when their phases are
    the stored ints (as ``TestView.phase`` would give them)."""
    cache = getattr(result, "cache", None)
    if cache is not None and "counts" in cache:
        phases = {ph for ph, _ in cache["counts"]}
        if all(type(ph) is int for ph in phases):
            return phases
    return {t.phase for t in result.tests}


def phases_from(result: Judged, phase: int) -> bool:
    """True when provably every test of ``result`` has ``TestView.phase >= phase`` (from the
    one-pass counts, whose phases are the stored ints); False when unknown or not so."""
    cache = getattr(result, "cache", None)
    if cache is None or "counts" not in cache:
        return False
    return all(type(ph) is int and ph >= phase for ph, _ in cache["counts"])
