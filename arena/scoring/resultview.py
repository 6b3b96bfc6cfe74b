"""A read-only, fast view of a stored ``JudgeResult`` dict for judging.

Judging reads thousands of stored results; building full pydantic models for each costs
more than reading the events. The view exposes exactly what the judges use (the same
attribute names as ``JudgeResult``), with defaults for missing keys.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from arena.telemetry.record import memo  # noqa: F401 (re-exported for the judges)


class TestView(NamedTuple):
    __test__ = False  # not a pytest class

    id: str
    name: str
    suite: str
    phase: int
    outcome: str


class FindingView(NamedTuple):
    severity: str
    check: str
    detail: str


class BuildView(NamedTuple):
    status: str


_new = tuple.__new__


class ResultView:
    __slots__ = ("submission", "build", "tests", "integrity", "infra_error", "deliverables", "cache")

    def __init__(self, d: Mapping[str, Any]) -> None:
        self.submission = int(d.get("submission") or 0)
        build = d.get("build") or {}
        self.build = BuildView(str(build.get("status", "success")) if isinstance(build, Mapping) else "success")
        tests = d.get("tests") or ()
        outcomes: dict[str, bool] = {}
        counts: dict[tuple, list[int]] = {}  # (phase, suite) -> [total, passed]
        views: list[TestView] = []
        for t in tests:
            try:  # the stored shape (JudgeResult.model_dump): every key present
                tv = _new(TestView, (t["id"], t["name"], t["suite"], t["phase"] or 1, t["outcome"]))
            except (KeyError, TypeError):
                tv = TestView(str(t.get("id", "")), str(t.get("name", "")), str(t.get("suite", "static")),
                              int(t.get("phase") or 1), str(t.get("outcome", "failed")))
            views.append(tv)
            ok = tv[4] == "passed"
            outcomes[tv[0]] = ok
            c = counts.get((tv[3], tv[2]))
            if c is None:
                counts[(tv[3], tv[2])] = [1, int(ok)]
            else:
                c[0] += 1
                c[1] += ok
        self.tests = views
        self.integrity = [FindingView(str(f.get("severity", "warning")), str(f.get("check", "")),
                                      str(f.get("detail", ""))) for f in d.get("integrity") or ()]
        self.infra_error = d.get("infra_error")
        self.deliverables = dict(d.get("deliverables") or {})
        # per-result memo for the judges: outcomes by test id and (phase, suite) counts are
        # gathered in the one pass above; pass rates etc. are added as they are asked for
        self.cache: dict = {"outcomes": outcomes, "counts": counts}

    def suite(self, suite: str, phase: int | None = None) -> list[TestView]:
        return [t for t in self.tests if t.suite == suite and (phase is None or t.phase == phase)]

    def passed(self, suite: str, phase: int | None = None) -> int:
        return sum(1 for t in self.suite(suite, phase) if t.outcome == "passed")


def view(result: Any) -> Any:
    """A ``JudgeResult`` (or anything shaped like it) as is; a mapping as a ``ResultView``."""
    return ResultView(result) if isinstance(result, dict) or isinstance(result, Mapping) else result
