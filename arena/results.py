"""Full judge results: everything the judge learned about one submission.

This is the judge's private truth. Agents never see it directly: ``arena.rules``
discloses a CONTRACT §4 feedback document from it according to the format and the
submission number. It is stored (event ``submission.judged``) so judging afterwards
is a pure function of stored events.
"""

from __future__ import annotations

import warnings
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


with warnings.catch_warnings():  # the field ``construct`` shadows BaseModel.construct (deprecated)
    warnings.simplefilter("ignore", UserWarning)

    class IsolationNotice(BaseModel):
        """A construct of a test that process isolation could not carry faithfully (docs/judge.md 4b)."""

        test: str  # TestResult.id of the test (the raw node id when it matches none)
        construct: str  # type: ignore[assignment]  # the field name is the contract; "eq-test-value", "setattr-test-object", "patch-target", "isinstance", "unsupported"
        detail: str = ""


class StaticFinding(BaseModel):
    """One finding of a static analyser (ruff, bandit, semgrep) on a submission."""

    tool: str
    rule: str
    path: str
    line: int = 0
    severity: Literal["low", "medium", "high"] = "low"
    message: str = ""
    new: bool = True  # not also found in the starter (same rule, file and line text)


class StaticReport(BaseModel):
    """What one static judge (code quality or security) found; ``error`` when it could not run."""

    tools: list[str] = Field(default_factory=list)
    rules: list[str] = Field(default_factory=list)
    findings: list[StaticFinding] = Field(default_factory=list)
    baseline: int = 0  # findings in the starter (not the agent's)
    error: str | None = None

    @property
    def new(self) -> list[StaticFinding]:
        return [f for f in self.findings if f.new]


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
    # Seed 003 Stage 2.5 static judges (arena/judge/static/static_checks.py); None = not run.
    quality: StaticReport | None = None
    security: StaticReport | None = None
    # How a pytest judge ran the submission: "process" (its own process, behind a
    # data-only pipe) or "in_process" (imported into the test process); None: not pytest.
    isolation: str | None = None
    # Constructs the isolated judge could not carry across the process boundary (issue 27):
    # the counts of those tests may differ from plain pytest's (docs/judge.md 4b).
    isolation_notices: list[IsolationNotice] = Field(default_factory=list)
    # What a verifier run as written (not pytest: an imported task's test.sh) printed, its
    # last 8 KB, redacted (issue 37; arena/judge/verdict/verifier_output.py); shown by show.
    verifier_output: str | None = None

    def suite(self, suite: Suite, phase: int | None = None) -> list[TestResult]:
        return [t for t in self.tests if t.suite == suite and (phase is None or t.phase == phase)]

    def passed(self, suite: Suite, phase: int | None = None) -> int:
        return sum(1 for t in self.suite(suite, phase) if t.outcome == "passed")
