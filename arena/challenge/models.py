"""Pydantic v2 models of the manifest, ``challenge.yaml`` (CONTRACT §2).

Unknown keys are refused everywhere (typo protection) except keys starting ``x-``,
which are free for authors. Checks that depend on the format's rule table (time and
budget ranges, phases only for Marathons) are findings made by ``arena.challenge.checks``,
not model errors, so a mismatch is reported with the format's range in the message.
"""

from __future__ import annotations

import math
import re
import shlex
from typing import Any, Final, Literal, Self

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ModelWrapValidatorHandler,
    ValidationInfo,
    PrivateAttr,
    field_validator,
    model_validator,
)

from arena.challenge.safety import unsafe_reason
from arena.challenge.units import parse_duration, parse_size_mb
from arena.formats import CATEGORIES, DEFAULT_HANG_LIMIT_S, WEIGHT_CLASSES

SCHEMA: Final = "gauntlet.challenge/v1"
ID_PATTERN = r"^[a-z0-9][a-z0-9-]*$"
TRAITS = (
    "code_navigation",
    "root_cause_analysis",
    "edge_case_reasoning",
    "system_thinking",
    "time_pressure",
    "ambiguity_tolerance",
    "tool_mastery",
    "communication",
)
DIMENSIONS = (
    "complexity",
    "ambiguity",
    "deception",
    "time_pressure",
    "scope",
    "domain_depth",
    "recovery_demand",
    "adversarial",
)
WEIGHT_TOLERANCE = 1e-6


class Strict(BaseModel):
    """Unknown keys refused; ``x-*`` keys accepted and kept aside in ``extensions``."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    _extensions: dict[str, Any] = PrivateAttr(default_factory=dict)

    @model_validator(mode="wrap")
    @classmethod
    def _strip_extensions(cls, data: object, handler: ModelWrapValidatorHandler[Self]) -> Self:
        ext: dict[str, Any] = {}
        if isinstance(data, dict):
            ext = {k: v for k, v in data.items() if isinstance(k, str) and k.startswith("x-")}
            data = {k: v for k, v in data.items() if k not in ext}
        obj = handler(data)
        if ext and isinstance(obj, Strict):
            obj._extensions = ext
        return obj

    @property
    def extensions(self) -> dict[str, Any]:
        return dict(self._extensions)


def _number_in(lo: float, hi: float, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"expected a number in {lo:g}-{hi:g}")
    if not (lo <= value <= hi) or math.isnan(value):
        raise ValueError(f"expected a number in {lo:g}-{hi:g}")
    return float(value)


class DifficultyProfile(Strict):
    """Seed 003's eight traits, each 0.0-1.0."""

    code_navigation: float
    root_cause_analysis: float
    edge_case_reasoning: float
    system_thinking: float
    time_pressure: float
    ambiguity_tolerance: float
    tool_mastery: float
    communication: float

    @field_validator(*TRAITS, mode="before")
    @classmethod
    def _range(cls, v: object) -> float:
        return _number_in(0.0, 1.0, v)


class Dimensions(Strict):
    """Seed 002's eight envelope dimensions, each 0-10."""

    complexity: float
    ambiguity: float
    deception: float
    time_pressure: float
    scope: float
    domain_depth: float
    recovery_demand: float
    adversarial: float

    @field_validator(*DIMENSIONS, mode="before")
    @classmethod
    def _range(cls, v: object) -> float:
        return _number_in(0.0, 10.0, v)


class Deliverable(Strict):
    name: str = Field(min_length=1)
    kind: Literal["tests", "file"]
    weight: float
    description: str = ""
    # kind file only (docs/judging.md, "Deliverables"): terms the file must mention
    # (case-insensitive; the share found is scored) and a rubric for the judge model.
    must_mention: list[str] = Field(default_factory=list)
    check: str = ""

    @field_validator("weight", mode="before")
    @classmethod
    def _weight(cls, v: object) -> float:
        return _number_in(0.0, 1.0, v)

    @model_validator(mode="after")
    def _file_path(self) -> "Deliverable":
        if self.kind == "file":
            reason = unsafe_reason(self.name, "the workspace")
            if reason:
                raise ValueError(f"file deliverable {self.name!r}: {reason}")
        elif self.must_mention or self.check:
            raise ValueError(f"deliverable {self.name!r}: must_mention and check apply to kind file only")
        if any(not isinstance(t, str) or not t.strip() for t in self.must_mention):
            raise ValueError(f"deliverable {self.name!r}: must_mention expects non-empty strings")
        return self


class Sandbox(Strict):
    image: str = Field(default="gauntlet-base", min_length=1)
    cpus: float = Field(default=1.0, gt=0, le=64)
    memory: str = "512m"
    pids: int = Field(default=128, ge=1)
    network: bool = False
    runtime: str | None = Field(default=None, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")  # docker: e.g. runsc

    @field_validator("memory", mode="before")
    @classmethod
    def _memory(cls, v: object) -> str:
        parse_size_mb(v)
        return str(v)

    @property
    def memory_mb(self) -> float:
        return parse_size_mb(self.memory)


DEFAULT_QUALITY_RULES: Final = ("E9", "F", "B", "C901")
RULE_CODE = r"^[A-Z]{1,4}[0-9]{0,4}$"


class Quality(Strict):
    """The code-quality judge's ruff rules, fixed per package (``judge.quality``)."""

    select: list[str] = Field(default_factory=lambda: list(DEFAULT_QUALITY_RULES))
    ignore: list[str] = Field(default_factory=list)

    @field_validator("select", "ignore")
    @classmethod
    def _codes(cls, v: list[str]) -> list[str]:
        bad = [c for c in v if not isinstance(c, str) or not re.fullmatch(RULE_CODE, c)]
        if bad:
            raise ValueError(f"expected ruff rule codes such as F401 or B, got {bad!r}")
        return v


class Security(Strict):
    """The security judge (``judge.security``): bandit always, semgrep when asked and installed."""

    semgrep: bool = False
    min_severity: Literal["low", "medium", "high"] = "medium"


RESULTS_FORMATS: Final = ("junit", "ctrf", "tap", "reward")
RESULTS_STDOUT: Final = "stdout"  # tap only: the command's standard output
DEFAULT_PATHS: Final = {"junit": "report.xml", "ctrf": "ctrf.json", "tap": "results.tap", "reward": "reward.txt"}
RESULTS_PATH = r"^(stdout|[A-Za-z0-9_][A-Za-z0-9_.-]*(/[A-Za-z0-9_][A-Za-z0-9_.-]*)*)$"


class JudgeResults(Strict):
    """``judge.results``: the file a non-pytest judge command writes (arena/judge/verdict/result_formats.py)."""

    format: Literal["junit", "ctrf", "tap", "reward"]
    # relative to the run's output directory (/judge-out; {report} in the command expands
    # to it); "stdout": the command's standard output (tap only). Default by format.
    path: str = Field(default="", pattern=r"^$|" + RESULTS_PATH)

    @model_validator(mode="after")
    def _path(self) -> "JudgeResults":
        if not self.path:
            self.path = DEFAULT_PATHS[self.format]
        if self.path == RESULTS_STDOUT and self.format != "tap":
            raise ValueError("path stdout applies to format tap only: expected a file name for this format")
        if ".." in self.path.split("/"):
            raise ValueError(f"path {self.path!r}: expected a path inside the run's output directory")
        return self


def _is_pytest(command: str) -> bool:
    """The judge's rule (arena/judge/run/command.py): ``pytest ...`` or ``python[N] [-opts] -m pytest ...``."""
    try:
        parts = shlex.split(command)
    except ValueError:
        return False
    if not parts:
        return False
    exe = parts[0].rsplit("/", 1)[-1]
    if exe in ("pytest", "py.test"):
        return True
    if re.match(r"^python(\d+(\.\d+)?)?$", exe):
        rest = [p for p in parts[1:] if not (p.startswith("-") and p != "-m")]
        return rest[:2] == ["-m", "pytest"]
    return False


class Judge(Strict):
    # before command: its check reads it (a command with results needs no {report})
    results: JudgeResults | None = None
    command: str = Field(min_length=1)
    timeout: float = 60.0  # seconds; written as 60s, 2m ...
    categories: dict[str, str] = Field(default_factory=dict)
    quality: Quality = Field(default_factory=Quality)
    security: Security = Field(default_factory=Security)
    # process: the submission runs in its own process behind a data-only pipe (default);
    # in_process: imported into the judge's test process (for packages that need it).
    # none: a judge command that is not pytest runs the submission as its own program; the
    # package must say so (required with judge.results: docs/judge.md, "Judge commands").
    isolation: Literal["process", "in_process", "none"] = "process"

    @field_validator("command")
    @classmethod
    def _report_arg(cls, v: str, info: ValidationInfo) -> str:
        if "{report}" not in v and info.data.get("results") is None:
            raise ValueError("expected a command containing {report} (the JUnit XML path the command must write)")
        return v

    @model_validator(mode="after")
    def _results(self) -> "Judge":
        if self.results is None:
            if self.isolation == "none":
                raise ValueError("isolation none applies to a judge command with judge.results only")
            return self
        if _is_pytest(self.command):
            raise ValueError(
                "results: applies to a judge command that is not pytest (a pytest command is read from JUnit XML)"
            )
        if self.isolation != "none":
            raise ValueError(
                "isolation: a judge command with judge.results runs the submission as its own program,"
                " outside the judge's process isolation: expected isolation: none (the documented opt-out)"
            )
        return self

    @field_validator("timeout", mode="before")
    @classmethod
    def _timeout(cls, v: object) -> float:
        return parse_duration(v)

    @property
    def timeout_s(self) -> float:
        return self.timeout


class Phase(Strict):
    """A Marathon phase after the first (phase 1 is the top-level briefing)."""

    id: str = Field(pattern=ID_PATTERN)
    reveal_at: float | None = None  # fraction of the time limit; None = the format's mark
    advance_threshold: float | None = None  # share of static tests; None = the format's
    pivot: Literal["none", "minor", "moderate", "major"] = "none"
    hint: str = ""

    @field_validator("reveal_at", "advance_threshold", mode="before")
    @classmethod
    def _fraction(cls, v: object) -> float | None:
        if v is None:
            return None
        value = _number_in(0.0, 1.0, v)
        return value


class Manifest(Strict):
    schema_: Literal["gauntlet.challenge/v1"] = Field(default=SCHEMA, alias="schema")
    id: str = Field(pattern=ID_PATTERN, max_length=64)
    title: str = Field(min_length=1)
    hook: str = ""
    category: str
    format: Literal["sprint", "standard", "marathon"]
    weight_class: str
    time_limit: float  # seconds; written as 90s, 15m, 1h30m
    iterations: int = Field(ge=1)
    difficulty_profile: DifficultyProfile | None = None
    dimensions: Dimensions | None = None
    deliverables: list[Deliverable] = Field(min_length=1)
    expected_failure_modes: list[str] = Field(default_factory=list)
    variables: dict[str, Any] = Field(default_factory=dict)
    anti_repetition_fingerprint: str = ""
    sandbox: Sandbox = Field(default_factory=Sandbox)
    judge: Judge
    phases: list[Phase] = Field(default_factory=list, max_length=3)
    hang_limit: float = DEFAULT_HANG_LIMIT_S  # extension: seed 000's hang rule
    # Marathon (seed 001): "global" = `iterations` spans all phases; "per_phase" = each
    # phase gets `iterations` of its own and unused ones are lost at the phase change.
    budget: Literal["global", "per_phase"] = "global"

    @field_validator("category")
    @classmethod
    def _category(cls, v: str) -> str:
        if v not in CATEGORIES:
            raise ValueError(f"expected one of {', '.join(CATEGORIES)}")
        return v

    @field_validator("weight_class", mode="before")
    @classmethod
    def _weight_class(cls, v: object) -> str:
        expected = f"expected one of {', '.join(WEIGHT_CLASSES)} or a number 1-5"
        if isinstance(v, bool):
            raise ValueError(expected)
        if isinstance(v, str) and re.fullmatch(r"[1-5]", v.strip()):
            v = int(v.strip())
        if isinstance(v, int) and 1 <= v <= len(WEIGHT_CLASSES):
            return WEIGHT_CLASSES[v - 1]
        if isinstance(v, str) and v.strip().lower() in WEIGHT_CLASSES:
            return v.strip().lower()
        raise ValueError(expected)

    @field_validator("time_limit", "hang_limit", mode="before")
    @classmethod
    def _duration(cls, v: object) -> float:
        return parse_duration(v)

    @field_validator("iterations", mode="before")
    @classmethod
    def _iterations(cls, v: object) -> int:
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ValueError("expected a whole number of submissions (an integer >= 1)")
        return v

    @field_validator("deliverables")
    @classmethod
    def _weights(cls, v: list[Deliverable]) -> list[Deliverable]:
        total = sum(d.weight for d in v)
        if abs(total - 1.0) > WEIGHT_TOLERANCE:
            raise ValueError(f"expected weights summing to 1.0, they sum to {total:g}")
        names = [d.name for d in v]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"expected distinct deliverable names, repeated: {', '.join(dupes)}")
        return v

    # -- conveniences (docs/INTERFACES.md) -------------------------------------------
    @property
    def schema(self) -> str:  # type: ignore[override]  # the manifest's "schema" key, over BaseModel.schema()
        return self.schema_

    @property
    def time_limit_s(self) -> float:
        return self.time_limit

    @property
    def hang_limit_s(self) -> float:
        return self.hang_limit

    @property
    def weight_class_number(self) -> int:
        return WEIGHT_CLASSES.index(self.weight_class) + 1
