"""Full judge results: everything the judge learned about one submission.

This is the judge's private truth. Agents never see it directly: ``arena.rules``
discloses a CONTRACT §4 feedback document from it according to the format and the
submission number. It is stored (event ``submission.judged``) so judging afterwards
is a pure function of stored events.
"""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

Suite = Literal["static", "hidden", "adversarial"]
Outcome = Literal["passed", "failed", "error", "skipped"]


class TestResult(BaseModel):
    __test__ = False  # not a pytest class

    id: str  # stable across submissions, e.g. "static/test_sort.py::test_single"
    name: str  # the test function name (what feedback shows)
    suite: Suite
    phase: int = 1  # Marathon phase the test belongs to (1 = top-level tests/)
    outcome: Outcome
    message: str = ""  # first line(s) of the failure, capped
    category: str | None = None  # from judge.categories globs


class Build(BaseModel):
    status: Literal["success", "failure"] = "success"
    errors: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)


class Lint(BaseModel):
    errors: int = 0
    warnings: int = 0
    issues: list[str] = Field(default_factory=list)


class Coverage(BaseModel):
    line_percent: float | None = None
    branch_percent: float | None = None
    uncovered_files: list[str] = Field(default_factory=list)


class Finding(BaseModel):
    severity: Literal["info", "warning", "error"] = "warning"
    check: str
    detail: str


class JudgeResult(BaseModel):
    submission: int
    snapshot_hash: str
    build: Build = Field(default_factory=Build)
    tests: list[TestResult] = Field(default_factory=list)
    timed_out: bool = False
    lint: Lint = Field(default_factory=Lint)
    coverage: Coverage | None = None
    duration_s: float = 0.0
    # Set when the sandbox, image or runner failed: never scored as the agent's result.
    infra_error: str | None = None
    integrity: list[Finding] = Field(default_factory=list)
    notices: list[str] = Field(default_factory=list)
    # Manifest deliverables, each 0.0-1.0 met (kind tests: pass rate of the tests in
    # play; kind file: present and non-empty in the snapshot).
    deliverables: dict[str, float] = Field(default_factory=dict)
    # How a pytest judge ran the submission: "process" (its own process, behind a
    # data-only pipe) or "in_process" (imported into the test process); None: not pytest.
    isolation: str | None = None

    def suite(self, suite: Suite, phase: int | None = None) -> list[TestResult]:
        return [t for t in self.tests if t.suite == suite and (phase is None or t.phase == phase)]

    def passed(self, suite: Suite, phase: int | None = None) -> int:
        return sum(1 for t in self.suite(suite, phase) if t.outcome == "passed")
