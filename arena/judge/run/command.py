"""From the manifest's ``judge.command`` to the argv the sandbox runs.

The command is the author's. When it is a pytest command (``python -m pytest ...``,
``python3 -m pytest ...``, ``pytest ...``) it is rewritten to run under the trusted
bootstrap, isolated, with the trusted options appended last (pytest keeps the last
value of ``-c``, ``--rootdir`` and ``--confcutdir``, so these win over any the
author wrote). Any other command (another language's runner) runs as written under
``sh -c``: the judge then relies on the sandbox, the JUnit report and the expected
ids alone.
"""

from __future__ import annotations

import re
import shlex

JUDGE_ROOT = "/judge"
TESTS_ROOT = "/judge/tests"
CONFIG_DIR = "/judge/config"
OUT_DIR = "/judge-out"
REPORT = f"{OUT_DIR}/report.xml"
PROGRESS = f"{OUT_DIR}/progress.jsonl"
COVERAGE = f"{OUT_DIR}/coverage.json"

FORCED_PYTEST_OPTIONS = [
    "-c",
    f"{CONFIG_DIR}/pytest.ini",
    f"--rootdir={TESTS_ROOT}",
    f"--confcutdir={TESTS_ROOT}",
    "-p",
    "no:cacheprovider",
]
BOOTSTRAP = ["python3", "-I", "-B", f"{CONFIG_DIR}/run.py"]
# First argument after the bootstrap: trace coverage in this run (the untimed coverage
# pass after the timed run; the timed run itself is never traced).
COVERAGE_FLAG = "--gauntlet-coverage"

_PYTHON = re.compile(r"^python(\d+(\.\d+)?)?$")


def _pytest_args(parts: list[str]) -> list[str] | None:
    """The arguments after ``pytest`` when ``parts`` is a pytest command, else None."""
    if not parts:
        return None
    exe = parts[0].rsplit("/", 1)[-1]
    if exe in ("pytest", "py.test"):
        return parts[1:]
    if _PYTHON.match(exe):
        i = 1
        while i < len(parts) and parts[i].startswith("-") and parts[i] != "-m":
            i += 1
        if i + 1 < len(parts) and parts[i] == "-m" and parts[i + 1] == "pytest":
            return parts[i + 2 :]
    return None


ISOLATION_OPTIONS = ["-p", "gauntlet_isolation"]


def build_argv(
    command: str, tests: list[str], report: str = REPORT, *, coverage: bool = False, isolated: bool = False
) -> tuple[list[str], bool]:
    """(argv, is_pytest). ``{tests}`` expands to the test directories, ``{report}`` to the report path.
    ``coverage``: the coverage pass (a pytest command only: the bootstrap traces it).
    ``isolated``: a pytest run loads the isolation plugin (the submission in its own process)."""
    try:
        parts = shlex.split(command)
    except ValueError:
        parts = []
    args = _pytest_args(parts)
    if args is None:
        text = command.replace("{tests}", " ".join(shlex.quote(t) for t in tests))
        text = text.replace("{report}", shlex.quote(report))
        return ["sh", "-c", text], False
    out: list[str] = []
    for a in args:
        if a == "{tests}":
            out.extend(tests)
        else:
            out.append(a.replace("{report}", report).replace("{tests}", " ".join(tests)))
    flag = [COVERAGE_FLAG] if coverage else []
    return [*BOOTSTRAP, *flag, *out, *FORCED_PYTEST_OPTIONS, *(ISOLATION_OPTIONS if isolated else [])], True


KEY_ENV = "GAUNTLET_JUDGE_KEY"  # an exec'd run's progress-log key (never on a command line)
KEY_ARG = "--gauntlet-key="  # a launcher's: in the request, stripped before pytest sees it


def key_arg(key: str) -> str:
    return KEY_ARG + key


def judge_env() -> dict[str, str]:
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": "/tmp",
        "LANG": "C.UTF-8",
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "GAUNTLET_JUDGE_OUT": OUT_DIR,
        "GAUNTLET_JUDGE_WORKSPACE": "/workspace",
    }


REQUEST_ENV, TRACE_ENV = "GAUNTLET_JUDGE_REQUEST", "GAUNTLET_JUDGE_TRACE"


def launcher_env(trace: bool = False) -> dict[str, str]:
    """A launcher's environment (a bootstrap started before its submission exists,
    waiting on the request FIFO); ``trace``: prepared for the coverage pass."""
    return {**judge_env(), REQUEST_ENV: f"{OUT_DIR}/.request", **({TRACE_ENV: "1"} if trace else {})}
