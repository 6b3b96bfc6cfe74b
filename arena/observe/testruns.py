"""Test runs among observed programs: pytest invocations and their pass/fail counts.

The counts come from a tiny trusted pytest plugin (``pytest_plugin/``) mounted
read-only in the sandbox and enabled with ``PYTEST_PLUGINS``: it writes one small JSON
report per run into a per-attempt directory, named by the run's pid *inside* the
sandbox and carrying its start time, which the observer also reads from /proc at the
exec. That is exact whatever the agent does with the output (the observer never sees
the output of the agent's subprocesses, so a summary-line parse has nothing to read),
and costs the run one small file write. The host reads the report with O_NOFOLLOW,
capped at 4 KiB, and believes nothing in it but three small non-negative ints; the
agent could still forge it (it runs as the sandbox user): these are telemetry, not a
score. An agent that strips ``PYTEST_PLUGINS`` leaves a recognised run with no counts
(``passed``/``failed`` null). ``parse_pytest_summary`` reads counts from output text
where there is some (e.g. an agent's own stdout).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import stat
from pathlib import Path
from typing import Any

PLUGIN_DIR = Path(__file__).with_name("pytest_plugin")
PLUGIN = "gauntlet_observe_plugin"
REPORT_CAP = 4096
_RUNNERS = frozenset({"pytest", "py.test", "pytest-3"})
_PYTHON = re.compile(r"^python(\d+(\.\d+)?)?$")
_SUMMARY_ITEM = re.compile(r"(\d+) (passed|failed|errors?|skipped|xfailed|xpassed|deselected|warnings?)")
_SUMMARY_END = re.compile(r"\bin \d+(\.\d+)?s\b")


def is_pytest(argv: list[str]) -> bool:
    """``pytest``, ``py.test``, ``python -m pytest``, ``python3 -m pytest`` (any path)."""
    if not argv:
        return False
    prog = os.path.basename(argv[0])
    if prog in _RUNNERS:
        return True
    if not _PYTHON.match(prog):
        return False
    skip_value = False
    for i, a in enumerate(argv[1:], 1):
        if skip_value:
            skip_value = False
            continue
        if a in ("-X", "-W"):  # options with a value
            skip_value = True
            continue
        if a == "-m":
            return i + 1 < len(argv) and argv[i + 1] in ("pytest", "py.test")
        if a.startswith("-m"):
            return a[2:] in ("pytest", "py.test")
        if a == "-c" or not a.startswith("-"):
            return False  # a script or -c code comes first: not pytest itself
    return False


def parse_pytest_summary(text: str) -> tuple[int, int] | None:
    """(passed, failed + errors) from the last pytest summary line in ``text``, else None."""
    for line in reversed(text.splitlines()):
        if not _SUMMARY_END.search(line):
            continue
        items = _SUMMARY_ITEM.findall(line)
        if not items and "no tests ran" not in line:
            continue
        counts = {w.rstrip("s") if w.startswith("error") else w: int(n) for n, w in items}
        return counts.get("passed", 0), counts.get("failed", 0) + counts.get("error", 0)
    return None


def read_report(report_dir: Path, nspid: int | None, start: int | None) -> dict[str, int] | None:
    """The plugin's report for the run with this in-sandbox pid and start time (removed
    once read), or None. Refuses links, non-regular files, big files and non-ints."""
    if nspid is None:
        return None
    path = Path(report_dir) / f"{int(nspid)}.json"
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        raw = os.read(fd, REPORT_CAP + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    try:
        data = json.loads(raw) if len(raw) <= REPORT_CAP else None
    except ValueError:
        data = None
    if not isinstance(data, dict):
        return None
    out = {}
    for k in ("start", "passed", "failed", "errors"):
        v = data.get(k)
        if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v < 1 << 62:
            return None
        out[k] = v
    if start is not None and out["start"] != start:
        return None  # another run that had the same pid in another pid namespace
    try:
        os.unlink(path)
    except OSError:
        pass
    return out


def command_event(rec: dict[str, Any], report_dir: Path | None) -> dict[str, Any]:
    """The ``command.run`` data of one observed program."""
    argv = [str(a) for a in rec.get("argv") or []]
    data: dict[str, Any] = {
        "argv": argv,
        "command": shlex.join(argv),
        "exit_code": rec.get("exit_code"),
        "duration_s": round(float(rec.get("duration_s") or 0.0), 6),
        "observed": True,
        "ran_tests": is_pytest(argv),
        "passed": None,
        "failed": None,
        "pid": rec.get("pid"),
    }
    if data["ran_tests"] and report_dir is not None:
        rep = read_report(report_dir, rec.get("nspid"), rec.get("start"))
        if rep is not None:
            data["passed"], data["failed"] = rep["passed"], rep["failed"] + rep["errors"]
    return data
