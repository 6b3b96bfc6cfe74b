"""What the local judge needs from the host, for ``gauntlet doctor`` (issue 26 item 7).

The local sandbox binds the host's ``/usr`` read-only and runs the trusted runner with
the ``python3`` its PATH finds there (``/usr/local/bin`` before ``/usr/bin``), so that
interpreter must import pytest (``python3-pytest``); coverage (``python3-coverage``) is
optional: without it the coverage pass reports nothing. A judge that cannot run anyway
is an ``infra_error`` naming the missing module (the runner checks before it starts).
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

NEEDED = ("pytest",)
OPTIONAL = ("coverage",)
APT = {"pytest": "python3-pytest", "coverage": "python3-coverage"}
_PROBE = (
    "import importlib.util, sys\n"
    "print(sys.executable)\n"
    "print(' '.join(m for m in sys.argv[1:] if importlib.util.find_spec(m) is None))\n"
)


@dataclass(frozen=True)
class JudgeNeeds:
    python: str
    missing: tuple[str, ...]  # of NEEDED
    missing_optional: tuple[str, ...]
    error: str = ""  # the interpreter itself did not run

    @property
    def ok(self) -> bool:
        return not self.error and not self.missing

    def packages(self, names: tuple[str, ...]) -> str:
        return " ".join(APT.get(m, m) for m in names)


def local_judge_python() -> str:
    """The interpreter the local sandbox runs the judge with (its PATH over the host's /usr)."""
    for p in ("/usr/local/bin/python3", "/usr/bin/python3"):
        if Path(p).exists():
            return p
    return "/usr/bin/python3"


def check(python: str | None = None, timeout: float = 20.0) -> JudgeNeeds:
    """Which of the judge's modules ``python`` (default: the local judge's) cannot import."""
    python = python or local_judge_python()
    try:
        r = subprocess.run(
            [python, "-I", "-c", _PROBE, *NEEDED, *OPTIONAL], capture_output=True, text=True, timeout=timeout
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return JudgeNeeds(python, NEEDED, OPTIONAL, f"{python} did not run: {exc}")
    if r.returncode != 0:
        tail = (r.stderr or r.stdout).strip().splitlines()[-1:] or [f"exit code {r.returncode}"]
        return JudgeNeeds(python, NEEDED, OPTIONAL, f"{python} did not run: {tail[0][:200]}")
    lines = r.stdout.splitlines()
    gone = set(lines[1].split()) if len(lines) > 1 else set()
    return JudgeNeeds(python, tuple(m for m in NEEDED if m in gone), tuple(m for m in OPTIONAL if m in gone))
