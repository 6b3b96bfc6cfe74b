"""The arena's long-lived bandit process (arena/judge/static/bandit_server.py): the same findings
as the bandit command line, a fresh server after a failure, nothing left after the arena."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from arena.judge.static import static_checks
from arena.judge.static.bandit_server import BanditServer

INSECURE = """import pickle, subprocess, hashlib
password = "hunter2"


def f(x):
    assert x
    subprocess.call(x, shell=True)  # nosec
    eval(x)
    hashlib.md5(x)
    return pickle.loads(x)


try:
    pass
except Exception:
    pass
"""


def _tree(root: Path) -> list[str]:
    (root / "pkg").mkdir(parents=True)
    (root / "a.py").write_text(INSECURE)
    (root / "pkg" / "b.py").write_text(INSECURE.replace("hunter2", "swordfish"))
    (root / "broken.py").write_text("def broken(:\n")
    return ["./a.py", "./pkg/b.py", "./broken.py"]


def _cli(root: Path, files: list[str]) -> list[dict]:
    p = subprocess.run(
        [sys.executable, "-m", "bandit", "-f", "json", "-q", "--ignore-nosec", "--", *files],
        cwd=root,
        capture_output=True,
    )
    return json.loads(p.stdout)["results"]


def _key(r: dict) -> tuple:
    return (
        r["filename"],
        r["line_number"],
        r["test_id"],
        r["issue_severity"],
        r["issue_confidence"],
        r["issue_text"],
        r["col_offset"],
    )


def test_the_server_reports_what_the_command_line_reports(tmp_path):
    files = _tree(tmp_path)
    server = BanditServer(static_checks._env("/nonexistent"))
    try:
        got, err = server.query(str(tmp_path), files, 60)
        again, _ = server.query(str(tmp_path), files[:1], 60)  # the same process, a second request
    finally:
        server.close()
    assert err == ""
    want = _cli(tmp_path, files)
    assert len(want) >= 8  # shell=True despite its nosec, eval, md5, pickle, assert, password, pass
    assert sorted(map(_key, got)) == sorted(map(_key, want))
    assert sorted(map(_key, again)) == sorted(map(_key, _cli(tmp_path, files[:1])))


def test_bandit_findings_come_from_the_server_and_survive_its_death(tmp_path):
    files = _tree(tmp_path)
    first, err = static_checks.bandit_findings(tmp_path, [f[2:] for f in files])
    assert err is None and {f.rule for f in first} >= {"B602", "B307", "B324", "B301", "B101", "B105", "B110"}
    proc = static_checks._BANDIT.proc
    assert proc is not None and proc.poll() is None  # kept running for the next submission
    proc.kill()
    proc.wait()
    second, err = static_checks.bandit_findings(tmp_path, [f[2:] for f in files])
    assert err is None and second == first
    assert static_checks._BANDIT.proc is not proc


def test_a_server_that_does_not_answer_is_killed_and_reported(tmp_path):
    hung = BanditServer(static_checks._env("/nonexistent"), argv=[sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        got, err = hung.query(str(tmp_path), ["./a.py"], 0.5)
        assert got is None and "did not finish in 0.5 s" in err
        assert hung.proc is None  # killed: the next query starts a fresh one
    finally:
        hung.close()
    liar = BanditServer(static_checks._env("/nonexistent"), argv=[sys.executable, "-c", "print('not json')"])
    got, err = liar.query(str(tmp_path), ["./a.py"], 10)
    assert got is None and "unreadable" in err
    gone = BanditServer(static_checks._env("/nonexistent"), argv=[sys.executable, "-c", "pass"])
    got, err = gone.query(str(tmp_path), ["./a.py"], 10)
    assert got is None and err == "the bandit process exited without an answer"


def test_without_bandit_the_reason_is_given(tmp_path):
    """A python that cannot import bandit: every query says so (and no finding, no score)."""
    import arena.judge.static.bandit_server as module

    # run as a script (stdlib imports only): Debian's python3 has no bandit
    server = BanditServer({"PATH": "/usr/bin:/bin"}, argv=["/usr/bin/python3", "-I", module.__file__])
    try:
        for _ in range(2):
            got, err = server.query(str(tmp_path), ["./a.py"], 30)
            assert got is None and err.startswith("bandit is not installed")
    finally:
        server.close()


def test_the_server_ends_with_the_arena(tmp_path):
    """Its stdin is the arena's pipe: however the arena dies, the server sees end of file."""
    arena = subprocess.Popen(
        [
            sys.executable,
            "-c",
            (
                "import sys; from arena.judge.static import static_checks as s; s.prestart(); "
                "print(s._BANDIT.proc.pid, flush=True); sys.stdin.read()"
            ),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        cwd=Path(__file__).resolve().parent.parent,
    )
    assert arena.stdout is not None
    pid = int(arena.stdout.readline())
    os.kill(pid, 0)  # running
    arena.kill()  # SIGKILL: no cleanup of the arena's runs
    arena.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().split(") ", 1)[1].startswith("Z"):
                    break  # exited (a zombie until init reaps it)
        except FileNotFoundError:
            break
        time.sleep(0.05)
    else:
        raise AssertionError("the bandit server outlived the arena")
