"""Issue 36 item 4: an imported (Harbor) task's verdict cannot be forged.

The task is the Harbor fixture of tests/task_import (``isolation: none``, a reward written
by ``test.sh`` from a plain pytest run that imports the submission), judged through the
real judge on both backends (the image: gauntlet-base, the scripts' paths come from the
judge's environment). Each hostile submission scored 100 before: an ``os._exit(0)`` at
import (pytest ends with status 0, test.sh writes 1), and a detached child that rewrites
``reward.txt`` once test.sh has written it. Controls: the reference's code 100, the
starter's 0.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from arena.challenge import load_challenge
from arena.judge import Judge, take_snapshot
from arena.judge.verdict.tamper import scan
from arena.pipeline.task_import import import_task
from tests.task_import.fixtures import harbor_python

REWARD = "static/reward::reward"
GOOD = "def add(a, b):\n    return a + b\n"
STARTER = "def add(a, b):\n    return a - b\n"
# os._exit(0) at import, hidden from the tamper scan (hex): only the run itself can tell
EXIT_HIDDEN = f"exec(bytes.fromhex({'import os; os._exit(0)'.encode().hex()!r}).decode())\n" + STARTER
# A child in its own session that waits for test.sh's reward and writes 1 over it for a
# second; on Docker it first kills the exec's wrapper (the ancestor that kills what is left).
CHILD = (
    '''import os, signal, subprocess, sys
_D = os.environ.get("GAUNTLET_TASK_VERIFIER") or os.sep + "logs" + os.sep + "verifier"
_C = """# GFORGERY
import time
import os
p, n = %r + "/reward.txt", 0
for _ in range(1600):
    time.sleep(0.005)
    if os.path.exists(p):
        open(p, "w").write("1")
        n += 1
        if n > 200:
            break
""" % (_D,)
subprocess.Popen([sys.executable, "-c", _C], start_new_session=True,
                 stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
pid = os.getppid()
while pid > 1:
    try:
        cmd = open("/proc/%d/cmdline" % pid, "rb").read()
        stat = open("/proc/%d/stat" % pid).read()
    except OSError:
        break
    if b"kill -9 -1" in cmd:
        os.kill(pid, signal.SIGKILL)
        break
    pid = int(stat.rsplit(")", 1)[1].split()[1])
'''
    + STARTER
)


@pytest.fixture(scope="module")
def task(tmp_path_factory):
    root = tmp_path_factory.mktemp("imported")
    import_task(harbor_python(root / "task"), root / "pkg", image="gauntlet-base")
    ch = load_challenge(root / "pkg")
    assert ch.manifest.judge.isolation == "none" and ch.manifest.judge.results.format == "reward"
    return ch


async def judge(tmp_path: Path, backend, challenge, sources: dict[str, str]) -> dict:
    """{name: JudgeResult} of each calc.py, one judge (both runs in fresh sandboxes)."""
    j = Judge(backend, pool_size=1, work_root=tmp_path)
    out = {}
    try:
        for name, src in sources.items():
            ws = tmp_path / f"ws-{name}"
            ws.mkdir()
            (ws / "calc.py").write_text(src)
            out[name] = await j.run(challenge, take_snapshot(ws, tmp_path / "snaps"), submission=1, phases=[1])
    finally:
        await j.aclose()
    return out


def outcome(result) -> str:
    assert result.infra_error is None, result.infra_error
    return {t.id: t.outcome for t in result.tests}[REWARD]


def errors(result) -> set[str]:
    return {f.check for f in result.integrity if f.severity == "error"}


def forgery_processes() -> list[int]:
    found = []
    for d in Path("/proc").iterdir():
        try:
            if d.name.isdigit() and b"GFORGERY" in (d / "cmdline").read_bytes():
                found.append(int(d.name))
        except OSError:
            continue
    return found


async def test_controls_reference_100_starter_0(tmp_path, backend, task):
    r = await judge(tmp_path, backend, task, {"good": GOOD, "starter": STARTER})
    assert outcome(r["good"]) == "passed" and not errors(r["good"])
    assert outcome(r["starter"]) == "failed" and not errors(r["starter"])


async def test_os_exit_before_pytest_reports_is_an_integrity_error(tmp_path, backend, task):
    r = (await judge(tmp_path, backend, task, {"exit": EXIT_HIDDEN}))["exit"]
    assert "tamper.exit_tricks" not in errors(r)  # the scan cannot see it: the run must
    assert outcome(r) == "failed"
    assert "judge.verifier_cut" in errors(r), r.integrity


async def test_a_detached_child_cannot_rewrite_the_reward(tmp_path, backend, task):
    r = (await judge(tmp_path, backend, task, {"child": CHILD}))["child"]
    assert outcome(r) == "failed"
    deadline = time.monotonic() + 5  # (a leftover would be a sandbox's, removed at close)
    while forgery_processes() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert forgery_processes() == []


@pytest.mark.parametrize(
    "src",
    [
        "f = getattr(__import__('o' + 's'), '_' + 'exit')\nf(0)\n",
        "getattr(__import__(''.join(['o', 's'])), chr(95) + 'exit')(0)\n",
        "import importlib\nimportlib.import_module('po' + 'six')._exit(0)\n",
        "__import__('os')._exit(0)\n",
        "import os\nvars(os)['_ex' + 'it'](0)\n",
        "import os\ngetattr(os, 'tixe_'[::-1])(0)\n",
        "from os import _exit as leave\nleave(0)\n",
    ],
    ids=["getattr-import-concat", "join-chr", "import-module", "dunder-import", "vars", "reversed", "from-import"],
)
def test_the_scan_sees_through_spellings_of_os_exit(tmp_path, src):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "calc.py").write_text(src + STARTER)
    found = [f for f in scan(take_snapshot(ws, tmp_path / "snaps")) if f.check == "tamper.exit_tricks"]
    assert any(f.severity == "error" and f.detail.startswith("calc.py:") for f in found), found


def test_the_scan_leaves_plain_code_alone(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "calc.py").write_text("import os\nname = 'x'\nv = getattr(os, name, None)\nd = {'a': 1}['a']\n" + GOOD)
    assert [f for f in scan(take_snapshot(ws, tmp_path / "snaps")) if f.severity == "error"] == []
    assert os.path.exists(ws / "calc.py")


def test_naming_the_guard_is_an_integrity_error(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "calc.py").write_text("import sys\nsys.modules['gauntlet_verifier_guard']._state.clear()\n" + GOOD)
    found = scan(take_snapshot(ws, tmp_path / "snaps"))
    assert any(f.check == "tamper.judge_paths" and f.severity == "error" for f in found), found
