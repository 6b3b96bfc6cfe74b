"""The hostile submissions of the security suite, each over the calc fixture challenge.

Each case is the files of a submission, what the honest part of it earns (tests that
must pass, tests that must not) and what else must hold. ``GHOSTILE`` marks every file
and process a case tries to leave behind, so the suite can look for leftovers.
"""

from __future__ import annotations

from dataclasses import dataclass, field

S = "static/test_calc_static.py::"
H = "hidden/test_calc_hidden.py::"
A = "adversarial/test_calc_adversarial.py::"
ALL = {
    S + "test_add_small",
    S + "test_add_negative",
    S + "test_sub",
    S + "test_mul",
    H + "test_add_big",
    H + "test_sub_big",
    A + "test_edge_add_floats[0.5-0.25-0.75]",
    A + "test_edge_add_floats[1e+308-0-1e+308]",
}
BEFORE_MUL = {S + "test_add_small", S + "test_add_negative", S + "test_sub"}
MUL = S + "test_mul"

HONEST_HEAD = """
def add(a, b):
    return a + b


def sub(a, b):
    return a - b
"""


def calc(mul_body: str, prelude: str = "") -> str:
    return prelude + HONEST_HEAD + "\n\ndef mul(a, b):\n" + mul_body + "\n"


class Link(str):
    """A symlink in a submission: the value is its target."""


def make_in_process(root) -> None:
    """Set ``judge.isolation: in_process`` in the calc copy at ``root``."""
    from pathlib import Path

    y = Path(root) / "challenge.yaml"
    y.write_text(y.read_text().replace("  timeout: 6s\n", "  timeout: 6s\n  isolation: in_process\n"))


def write_submission(root, files: dict):
    """Lay ``files`` out as a workspace under ``root/ws`` (a ``Link`` becomes a symlink)."""
    import os
    from pathlib import Path

    ws = Path(root) / "ws"
    ws.mkdir(parents=True)
    for rel, content in files.items():
        p = ws / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, Link):
            os.symlink(str(content), p)
        else:
            p.write_text(content)
    return ws


@dataclass
class Case:
    name: str
    files: dict
    passed: set = field(default_factory=set)  # must pass
    failed: set = field(default_factory=set)  # must not pass
    timed_out: bool | None = None
    findings: set = field(default_factory=set)  # integrity checks that must be raised
    notice: str | None = None  # a notice containing this text
    verdict_forged: bool = False  # in-process runner patching: only detection is possible
    no_judge_source: bool = False  # no line of the judge-side tests may reach the result
    in_process: bool = False  # judged with ``judge.isolation: in_process`` (the calc copy)


def assert_verdict(case: Case, result) -> None:
    """What every hostile case asserts of its judge result: no infrastructure error, every
    test reported, the expected integrity findings, and the verdict the honest code earns
    (or, where only detection is possible, the finding raised as an error)."""
    assert result.infra_error is None, result.infra_error
    assert {t.id for t in result.tests} >= ALL
    checks = {f.check for f in result.integrity}
    assert case.findings <= checks, (case.findings, result.integrity)
    if case.verdict_forged:
        assert any(f.severity == "error" for f in result.integrity if f.check in case.findings)
    else:
        passed = {t.id for t in result.tests if t.outcome == "passed"}
        assert case.passed <= passed, sorted(case.passed - passed)
        assert not (case.failed & passed), sorted(case.failed & passed)
    if case.timed_out is not None:
        assert result.timed_out is case.timed_out
    if case.notice:
        assert any(case.notice in n for n in result.notices), result.notices


BOMB_XML = (
    '<?xml version="1.0"?><!DOCTYPE b [<!ENTITY a "aaaaaaaaaa">'
    '<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">'
    '<!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;"><!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;">'
    '<!ENTITY f "&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;"><!ENTITY g "&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;">]>'
    '<testsuites><testsuite><testcase classname="1.static.test_calc_static" name="test_mul">&g;'
    "</testcase></testsuite></testsuites>"
)

_REPORT_PATH = """
def _report_path():
    import sys
    for a in sys.argv:
        if a.startswith("--junitxml="):
            return a.split("=", 1)[1]
    return None
"""


def _atexit_writes_report(xml: str) -> str:
    """Module code that, at interpreter exit, overwrites the JUnit report with ``xml``."""
    return (
        "\nimport atexit\n"
        + _REPORT_PATH
        + f"""

def _overwrite():
    path = _report_path()
    if path:
        with open(path, "w") as f:
            f.write({xml!r})


atexit.register(_overwrite)
"""
    )


FORGED_XML = (
    "<testsuites><testsuite>"
    + "".join(
        f'<testcase classname="1.static.test_calc_static" name="{n}"/>'
        for n in ("test_add_small", "test_add_negative", "test_sub", "test_mul")
    )
    + "</testsuite></testsuites>"
)

_PATCH_RUNNER = """
import _pytest.reports as _r

_orig = _r.TestReport.from_item_and_call.__func__


def _forged(cls, item, call):
    rep = _orig(cls, item, call)
    rep.outcome = "passed"
    rep.longrepr = None
    return rep


_r.TestReport.from_item_and_call = classmethod(_forged)
"""

import forgeries  # noqa: E402

FORGERIES = forgeries._cases()

_FORGE_PROGRESS = {
    "calc.py": calc("""\
    import json
    ids = ["1/static/test_calc_static.py::" + n for n in ("test_add_small", "test_add_negative", "test_sub", "test_mul")]
    ids += ["1/hidden/test_calc_hidden.py::test_add_big", "1/hidden/test_calc_hidden.py::test_sub_big"]
    ids += ["1/adversarial/test_calc_adversarial.py::test_edge_add_floats[0.5-0.25-0.75]",
            "1/adversarial/test_calc_adversarial.py::test_edge_add_floats[1e+308-0-1e+308]"]
    try:
        with open("/judge-out/progress.jsonl", "a") as f:
            for i in ids:
                f.write(json.dumps({"event": "test", "nodeid": i, "when": "call", "outcome": "passed",
                                    "message": "", "seq": 99, "mac": "0" * 64}) + "\\n")
            f.write(json.dumps({"event": "finish", "exitstatus": 0}) + "\\n")
        with open("/judge-out/report.xml", "w") as f:
            f.write("<testsuites><testsuite>" + "".join(
                '<testcase classname="%s" name="%s"/>' % tuple(i.replace(".py::", "::").replace("/", ".").split("::"))
                for i in ids) + "</testsuite></testsuites>")
    except OSError:
        pass
    while True:
        pass""")
}

CASES = [
    Case(
        "fork_bomb",
        {
            "calc.py": calc("""\
    import os, sys
    code = "import os\\n# GHOSTILE-forkbomb\\nwhile True:\\n    try:\\n        os.fork()\\n    except OSError:\\n        pass\\n"
    while True:
        try:
            if os.fork() == 0:
                os.execv(sys.executable, [sys.executable, "-c", code])
        except OSError:
            pass""")
        },
        passed=BEFORE_MUL,
        failed=ALL - BEFORE_MUL,
        timed_out=True,
        notice="Execution timed out after 6 seconds. 3/8 tests completed.",
    ),
    Case(
        "memory_bomb",
        {
            "calc.py": calc("""\
    hog = []
    while True:
        hog.append(bytearray(32 * 1024 * 1024))""")
        },
        passed=BEFORE_MUL,
        failed={MUL},
    ),
    Case(
        "infinite_loop",
        {
            "calc.py": calc("""\
    while True:
        pass""")
        },
        passed=BEFORE_MUL,
        failed=ALL - BEFORE_MUL,
        timed_out=True,
        notice="Execution timed out after 6 seconds. 3/8 tests completed.",
    ),
    Case(
        "endless_output",
        {
            "calc.py": calc("""\
    import os, stat
    fds = [1, 2]
    for fd in range(3, 64):
        try:
            if stat.S_ISFIFO(os.fstat(fd).st_mode):
                fds.append(fd)
        except OSError:
            pass
    while True:
        for fd in fds:
            try:
                os.write(fd, b"GHOSTILE-output " * 4096)
            except OSError:
                pass""")
        },
        passed=BEFORE_MUL,
        failed={MUL},
    ),
    Case(
        "huge_file",
        {
            "calc.py": calc("""\
    import os
    chunk = b"\\0" * (1 << 20)
    for path in ("/tmp/GHOSTILE-huge", "/workspace/GHOSTILE-huge", "/judge-out/GHOSTILE-huge"):
        try:
            with open(path, "wb") as f:
                for _ in range(4096):
                    f.write(chunk)
        except OSError:
            pass
    try:
        os.remove("/judge-out/GHOSTILE-huge")
    except OSError:
        pass
    return a * b""")
        },
        passed=ALL,
    ),
    Case(
        "many_files",
        {
            "calc.py": calc("""\
    import os
    os.makedirs("/tmp/GHOSTILE-many", exist_ok=True)
    # 5,000: creating files in a container's tmpfs costs ~0.15 ms each on the CI machine
    # (20,000 took 3-5 s of the fixture's 6 s timeout and sometimes ran past it)
    for i in range(5000):
        try:
            open(f"/tmp/GHOSTILE-many/{i}", "w").close()
        except OSError:
            break
    return a * b""")
        },
        passed=ALL,
    ),
    Case(
        "many_files_in_workspace",
        {"calc.py": calc("    return a * b"), **{f"junk/GHOSTILE-{i:04}.txt": "x" for i in range(2100)}},
        passed=ALL,
        notice="capped at 2000 files",
    ),
    Case(
        "huge_file_in_workspace",
        {"calc.py": calc("    return a * b"), "zz_huge.bin": "\0" * (6 << 20)},
        passed=ALL,
        notice="zz_huge.bin",
    ),
    Case(
        "network_tcp",
        {
            "calc.py": calc("""\
    import socket
    for host, port in (("1.1.1.1", 80), ("8.8.8.8", 53), ("172.17.0.1", 2375), ("127.0.0.1", 22)):
        try:
            socket.create_connection((host, port), timeout=1).close()
            return f"EGRESS to {host}:{port}"
        except OSError:
            pass
    return a * b""")
        },
        passed=ALL,
    ),
    Case(
        "network_dns",
        {
            "calc.py": calc("""\
    import socket
    try:
        socket.setdefaulttimeout(2)
        return "DNS " + str(socket.getaddrinfo("example.com", 80)[0][4])
    except OSError:
        return a * b""")
        },
        passed=ALL,
    ),
    Case(
        "read_etc_shadow",
        {
            "calc.py": calc("""\
    try:
        with open("/etc/shadow") as f:
            return "SHADOW " + f.read()
    except OSError:
        return a * b""")
        },
        passed=ALL,
    ),
    Case(
        "read_judge_tests",
        {
            "calc.py": calc("""\
    import os
    found = []
    for root, _dirs, files in os.walk("/judge/tests"):
        for name in files:
            path = os.path.join(root, name)
            try:
                found.append(open(path).read())
            except OSError:
                pass
            try:
                with open(path, "w") as f:
                    f.write("def test_nothing():\\n    pass\\n")
            except OSError:
                pass
    return "".join(found) if found else a * b""")
        },
        # isolated, the worker has no /judge in view (Landlock): nothing found, its
        # fallback is the honest product
        passed=ALL,
        findings={"tamper.judge_paths"},
        no_judge_source=True,
    ),
    Case(
        "symlink_to_judge_tests",
        {
            "calc.py": calc("""\
    import os
    try:
        os.listdir("peekdir")
        with open("peek.py") as f:
            return "LEAK " + f.read()
    except OSError:
        return a * b"""),
            "peek.py": Link("/judge/tests/1/hidden/test_calc_hidden.py"),
            "peekdir": Link("/judge/tests"),
            "shadow": Link("/etc/shadow"),
            "up": Link("../../../.."),
        },
        passed=ALL,
        findings={"tamper.judge_paths", "tamper.symlink"},  # links not followed into /judge
        no_judge_source=True,
    ),
    Case(
        "write_outside_workspace",
        {
            "calc.py": calc("""\
    wrote = []
    for t in ("/etc/GHOSTILE-w", "/usr/GHOSTILE-w", "/GHOSTILE-w", "/root/GHOSTILE-w",
              "/judge/GHOSTILE-w", "/judge/tests/GHOSTILE-w", "/judge/config/run.py",
              "/workspace/GHOSTILE-w", "/workspace/calc.py", "/proc/GHOSTILE-w"):
        try:
            with open(t, "a") as f:
                f.write("x")
            wrote.append(t)
        except OSError:
            pass
    return ",".join(wrote) if wrote else a * b""")
        },
        passed=ALL,
    ),
    Case(
        "kill_the_judge",
        {
            "calc.py": calc("""\
    import os, signal
    me = os.getpid()
    for pid in [os.getppid(), 1, *range(2, 4096)]:
        if pid != me:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
    try:
        os.kill(-1, signal.SIGKILL)
    except OSError:
        pass
    return a * b""")
        },
        passed=ALL,
    ),
    Case(
        "process_left_running",
        {
            "calc.py": calc("""\
    import subprocess, sys
    subprocess.Popen([sys.executable, "-c", "import time  # GHOSTILE-daemon\\ntime.sleep(300)"],
                     start_new_session=True, stdin=subprocess.DEVNULL,
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return a * b""")
        },
        passed=ALL,
    ),
    Case(
        "sigstopped_child",
        {
            "calc.py": calc("""\
    import subprocess, sys
    code = "import os, signal, time  # GHOSTILE-stopped\\nos.kill(os.getpid(), signal.SIGSTOP)\\ntime.sleep(300)"
    subprocess.Popen([sys.executable, "-c", code], start_new_session=True,
                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return a * b""")
        },
        passed=ALL,
    ),
    Case(
        "disk_fill",
        {
            "calc.py": calc("""\
    import os
    chunk = b"\\1" * (1 << 20)
    for d in ("/tmp", "/workspace", "/", os.path.expanduser("~"), "/judge-out"):
        for i in range(100000):
            try:
                with open(os.path.join(d, f"GHOSTILE-fill-{i}"), "wb") as f:
                    for _ in range(64):
                        f.write(chunk)
            except OSError:
                break
    try:  # isolated, /judge-out is out of the worker's view (Landlock)
        for name in os.listdir("/judge-out"):
            if name.startswith("GHOSTILE"):
                os.remove(os.path.join("/judge-out", name))
    except OSError:
        pass
    return a * b""")
        },
        passed=ALL,
    ),
    Case(
        "forcing_conftest",
        {
            "calc.py": calc("    return 0"),
            "conftest.py": """
import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    rep.outcome = "passed"
    rep.longrepr = None
""",
            "tests/conftest.py": "def pytest_collection_modifyitems(items):\n    items.clear()\n",
        },
        passed=ALL - {MUL},
        failed={MUL},
        findings={"tamper.conftest"},
    ),
    Case(
        "sitecustomize",
        {
            "calc.py": calc("    return 0"),
            "sitecustomize.py": _PATCH_RUNNER,
            "usercustomize.py": _PATCH_RUNNER,
            "GHOSTILE.pth": "import sitecustomize\n",
        },
        passed=ALL - {MUL},
        failed={MUL},
        findings={"tamper.site_hook"},
    ),
    Case(
        "deselecting_pytest_ini",
        {
            "calc.py": calc("    return 0"),
            "pytest.ini": "[pytest]\naddopts = -k 'not mul' -p no:junitxml\n",
            "setup.cfg": "[tool:pytest]\naddopts = -k 'not mul'\n",
            "pyproject.toml": "[tool.pytest.ini_options]\naddopts = \"-k 'not mul'\"\n",
        },
        passed=ALL - {MUL},
        failed={MUL},
        findings={"tamper.runner_config"},
    ),
    Case(
        "os_exit_before_asserts",
        {
            "calc.py": calc("""\
    import os
    os._exit(0)""")
        },
        passed=ALL - {MUL},
        failed={MUL},
        timed_out=False,  # only the worker ends
        findings={"tamper.exit_tricks"},
    ),
    Case(
        "atexit_rewrites_report",
        {"calc.py": calc("    return 0", prelude=_atexit_writes_report(FORGED_XML))},
        passed=ALL - {MUL},
        failed={MUL},
        findings={"tamper.exit_tricks"},
    ),
    # A same-uid process appends passes to the progress log, writes a report, then hangs
    # until the timeout so the trusted side never writes the real one. Isolated, the worker
    # cannot open /judge-out at all (Landlock); in-process, the lines are written, and they
    # are signed with a key only the trusted process holds, so they do not count.
    Case(
        "forged_progress_then_timeout",
        _FORGE_PROGRESS,
        passed=BEFORE_MUL,
        failed=ALL - BEFORE_MUL,
        timed_out=True,
        findings={"tamper.judge_paths"},
    ),
    Case(
        "forged_progress_then_timeout_in_process",
        _FORGE_PROGRESS,
        passed=BEFORE_MUL,
        failed=ALL - BEFORE_MUL,
        timed_out=True,
        findings={"judge.forged_progress"},
        in_process=True,
    ),
    Case(
        "fake_passed_lines",
        {
            "calc.py": calc("""\
    import os
    fake = b"static/test_calc_static.py::test_mul PASSED\\n========== 8 passed in 0.01s ==========\\n"
    for fd in range(1, 20):
        try:
            os.write(fd, fake)
        except OSError:
            pass
    print(fake.decode())
    return 0""")
        },
        passed=ALL - {MUL},
        failed={MUL},
    ),
    Case(
        "patch_runner_at_import",
        {"calc.py": calc("    return 0", prelude=_PATCH_RUNNER)},
        passed=ALL - {MUL},
        failed={MUL},
        findings={"tamper.runner_internals"},
    ),  # only the worker's own pytest is patched
    Case(
        "patch_runner_and_judge_plugin",
        {
            "calc.py": calc(
                "    return 0",
                prelude=_PATCH_RUNNER
                + """
import sys

_plugin = sys.modules.get("gauntlet_judge_plugin")
if _plugin is not None:
    _real_emit = _plugin._emit

    def _lying_emit(**kw):
        if kw.get("outcome") in ("failed", "error"):
            kw.update(outcome="passed", message="", forged=False)
        _real_emit(**kw)

    _plugin._emit = _lying_emit
""",
            )
        },
        passed=ALL - {MUL},
        failed={MUL},
        findings={"tamper.runner_internals", "tamper.judge_paths"},
    ),
    # The worker is killed, never exits normally: its atexit hooks never run.
    Case(
        "junit_entity_bomb",
        {"calc.py": calc("    return 0", prelude=_atexit_writes_report(BOMB_XML))},
        passed=ALL - {MUL},
        failed={MUL},
        findings={"tamper.exit_tricks"},
    ),
    *FORGERIES,
]

TMP_LEFTOVER_WRITER = {
    "calc.py": calc("""\
    with open("/tmp/GHOSTILE-left", "w") as f:
        f.write("for the next run")
    return a * b""")
}
TMP_LEFTOVER_READER = {
    "calc.py": calc("""\
    import os
    return "FOUND LEFTOVER" if os.path.exists("/tmp/GHOSTILE-left") else a * b""")
}
HONEST = {"calc.py": calc("    return a * b"), "NOTES.md": "sub had the wrong sign.\n"}
