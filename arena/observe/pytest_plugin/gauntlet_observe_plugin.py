"""Gauntlet's pytest plugin: counts of one pytest run, for the arena's observer.

Mounted read-only inside the sandbox and enabled through ``PYTEST_PLUGINS``; at the end
of a session (not in xdist workers) it writes ``{"pid", "start", "passed", "failed",
"errors"}`` to ``$GAUNTLET_TEST_REPORTS/<pid>.json``, ``pid`` as seen in the sandbox and
``start`` the process start time (clock ticks since boot, /proc/self/stat) so the host
can match the report to the program it observed. Never fails the run it observes.
"""

import json
import os

_counts = {"passed": 0, "failed": 0, "errors": 0}


def pytest_runtest_logreport(report):
    if report.when == "call":
        if report.passed and not hasattr(report, "wasxfail"):
            _counts["passed"] += 1
        elif report.failed:
            _counts["failed"] += 1
    elif report.failed:  # setup or teardown
        _counts["errors"] += 1


def pytest_collectreport(report):
    if report.failed:
        _counts["errors"] += 1


def pytest_sessionfinish(session, exitstatus):
    out = os.environ.get("GAUNTLET_TEST_REPORTS")
    if not out or hasattr(session.config, "workerinput"):
        return
    try:
        with open("/proc/self/stat", "rb") as f:
            start = int(f.read().rsplit(b")", 1)[1].split()[19])
        path = os.path.join(out, f"{os.getpid()}.json")
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            json.dump({"pid": os.getpid(), "start": start, **_counts}, f)
        os.replace(tmp, path)
    except Exception:  # noqa: BLE001 — telemetry must never break the agent's test run
        pass
