"""A read-only, fast view of a stored ``JudgeResult`` dict for judging.

Judging reads thousands of stored results; building full pydantic models for each costs
more than reading the events. The view exposes exactly what the judges use (the same
attribute names as ``JudgeResult``), with defaults for missing keys.
"""
from __future__ import annotations

from typing import Any, Mapping, NamedTuple

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


class ResultView:
    __slots__ = ("submission", "build", "tests", "integrity", "infra_error", "deliverables", "cache")

    def __init__(self, d: Mapping[str, Any]) -> None:
        self.submission = int(d.get("submission") or 0)
        build = d.get("build") or {}
        self.build = BuildView(str(build.get("status", "success")) if isinstance(build, Mapping) else "success")
        self.tests = [TestView(str(t.get("id", "")), str(t.get("name", "")), str(t.get("suite", "static")),
                               int(t.get("phase") or 1), str(t.get("outcome", "failed")))
                      for t in d.get("tests") or ()]
        self.integrity = [FindingView(str(f.get("severity", "warning")), str(f.get("check", "")),
                                      str(f.get("detail", ""))) for f in d.get("integrity") or ()]
        self.infra_error = d.get("infra_error")
        self.deliverables = dict(d.get("deliverables") or {})
        self.cache: dict = {}  # per-result memo for the judges (pass rates, outcomes)

    def suite(self, suite: str, phase: int | None = None) -> list[TestView]:
        return [t for t in self.tests if t.suite == suite and (phase is None or t.phase == phase)]

    def passed(self, suite: str, phase: int | None = None) -> int:
        return sum(1 for t in self.suite(suite, phase) if t.outcome == "passed")


def view(result: Any) -> Any:
    """A ``JudgeResult`` (or anything shaped like it) as is; a mapping as a ``ResultView``."""
    return ResultView(result) if isinstance(result, Mapping) else result
