"""What an imported task is read as, shared by task_import.py (one task) and
task_steps.py (its Harbor steps as Marathon phases): the error an import raises, the
pydantic models of the task files' documented fields (harbor 0.25.0's TaskConfig,
terminal-bench 0.2.18's Task), the small readers that name the file they fail on, and
the rewriting of a task's absolute paths. Imports nothing of the other task_* modules."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from arena.pipeline.safe_copy import CopyRefused, inside_file, read_text

TESTS_IN_JUDGE = "/judge/tests/1/static"
SOLUTION_DIR = ".gauntlet-solution"  # where the reference agent lays the solution, then removes it


class ImportError_(ValueError):
    """A task that cannot be imported: the message names the file and the field."""


WORKDIR_EXPECTED = "expected an absolute path of letters, digits and . _ - + / (no spaces, quotes or shell characters)"


def workdir_ok(path: str) -> bool:
    """A task's workdir as the gauntlet layer of its image can paste it (issue 36): absolute,
    plain characters only, no ``.`` or ``..`` component, not ``/``."""
    parts = path.rstrip("/").split("/")
    return (
        re.fullmatch(r"(/[A-Za-z0-9._+-]+)+/?", path) is not None
        and len(path) <= 200
        and not any(p in (".", "..") for p in parts[1:])
    )


class _Loose(BaseModel):
    model_config = ConfigDict(extra="ignore")


class HarborAgent(_Loose):
    timeout_sec: float | None = None


class HarborVerifier(_Loose):
    timeout_sec: float = 600.0
    env: dict[str, str] = {}


class HarborEnvironment(_Loose):
    docker_image: str | None = None
    cpus: float | None = None
    memory_mb: int | None = None
    workdir: str | None = None
    allow_internet: bool | None = None

    @field_validator("workdir")
    @classmethod
    def _plain_workdir(cls, v: str | None) -> str | None:
        if v is not None and not workdir_ok(v):
            raise ValueError(f"{v!r}: {WORKDIR_EXPECTED}")
        return v


class HarborStepVerifier(_Loose):
    timeout_sec: float = 600.0  # harbor's VerifierConfig default (not the task's)


class HarborStep(_Loose):
    """A ``[[steps]]`` entry (harbor ``StepConfig``): arena/pipeline/task_steps.py."""

    name: str
    agent: HarborAgent = HarborAgent()
    verifier: HarborStepVerifier = HarborStepVerifier()
    min_reward: float | dict[str, float] | None = None


class HarborTask(_Loose):
    """The fields of Harbor's ``TaskConfig`` (task.toml) an import reads."""

    schema_version: str = "1.4"
    metadata: dict[str, Any] = {}
    verifier: HarborVerifier = HarborVerifier()
    agent: HarborAgent = HarborAgent()
    environment: HarborEnvironment = HarborEnvironment()
    steps: list[HarborStep] | None = None


class TerminalBenchTask(_Loose):
    """The fields of Terminal-Bench's ``Task`` (task.yaml) an import reads."""

    instruction: str
    difficulty: str = "medium"
    category: str = "software_engineering"
    parser_name: str = "pytest"
    max_agent_timeout_sec: float = 360.0
    max_test_timeout_sec: float = 60.0


def _validation(exc: ValidationError, file: str) -> ImportError_:
    e = exc.errors()[0]
    key = ".".join(str(p) for p in e["loc"]) or "(document)"
    return ImportError_(f"{file}: key {key!r}: {e['msg']}")


def _need(path: Path, root: Path, what: str) -> Path:
    """``path`` when a regular file inside ``root`` (a link inside the task followed, a link
    out refused: ``ImportError_`` names it)."""
    if not is_file_inside(path, root):
        raise ImportError_(f"{path.relative_to(root)}: required file missing: expected {what}")
    return path


def is_file_inside(path: Path, root: Path) -> bool:
    """True for a regular file inside ``root``; a link that leads out of it is an ``ImportError_``."""
    try:
        return inside_file(root, path.relative_to(root).as_posix()) is not None
    except CopyRefused as e:
        raise ImportError_(str(e)) from None


def _text(path: Path, root: Path) -> str:
    """The UTF-8 text of ``path`` (bounded), never read through a link out of ``root``."""
    rel = path.relative_to(root)
    try:
        return read_text(root, rel.as_posix())
    except CopyRefused as e:
        raise ImportError_(str(e)) from None
    except (OSError, UnicodeDecodeError) as e:
        raise ImportError_(f"{rel}: unreadable: expected UTF-8 text ({e})") from None


def rewrite_paths(text: str, workdir: str) -> str:
    """The task's absolute paths as overridable variables (unset: the same paths)."""
    subs = [
        ("/logs/verifier", "${GAUNTLET_TASK_VERIFIER:-/logs/verifier}"),
        ("/tests", "${GAUNTLET_TASK_TESTS:-/tests}"),
        ("/solution", "${GAUNTLET_TASK_SOLUTION:-/solution}"),
        (workdir.rstrip("/"), "${GAUNTLET_TASK_WORKDIR:-" + workdir.rstrip("/") + "}"),
    ]
    for path, var in subs:
        if not path or path == "/":
            continue
        text = re.sub(r"(?<![\w/.$-])" + re.escape(path) + r"(?=/|\b|$)(?![\w.-])", var.replace("\\", "\\\\"), text)
    return text
