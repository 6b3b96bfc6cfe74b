"""The judge agrees with plain pytest on an acceptance corpus (issue 27).

``tests/judge_corpus/<suite>/`` holds small suites in the styles real exercise suites use
(value types compared with ``==``/``repr``, file I/O in the working directory, ``unittest.mock``
of sockets and files, ``datetime.date`` with ``assertEqual`` + ``subTest``, subTest loops,
generators, context managers, exceptions with messages and data, class hierarchies and
``isinstance``, callbacks from the submission into test code, module state reset between tests,
stdout/stderr/log capture, in-place changes to a test's lists), each with a ``correct``, a
``starter`` and a partly ``broken`` solution.

Batched: one workspace holds every suite's module of one kind (correct, starter or broken), one
judge-side suite holds every suite's test file, so a backend judges 3 workspaces x 2 modes (the
default isolation and ``judge.isolation: in_process``) and plain ``python -m pytest`` runs the
same files on the same 3 workspaces in the same test; every test's outcome is compared, and the
counts per suite are what the failure message shows. A suite listed in ``REFUSED`` may differ
under isolation only if the reference's result carries an isolation notice naming the construct
(what ``gauntlet challenge validate --run`` refuses at authoring time).

``python tests/test_judge_corpus.py [--no-docker]`` prints the table of counts.
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

CORPUS = Path(__file__).resolve().parent / "judge_corpus"
SUITES = sorted(p.name for p in CORPUS.iterdir() if p.is_dir() and not p.name.startswith(("_", ".")))
KINDS = ("correct", "starter", "broken")
MODES = ("process", "in_process")
COMMAND = "python -m pytest -q -p no:cacheprovider --junitxml={report} {tests}"

# suite -> the isolation notice's construct its reference must carry (refused at validate --run)
REFUSED: dict[str, str] = {}


def build(root: Path) -> tuple[Path, dict[str, Path]]:
    """The judge-side test directory (every suite's test file) and one workspace per kind."""
    tests = root / "tests" / "static"
    tests.mkdir(parents=True)
    workspaces = {}
    for kind in KINDS:
        ws = root / f"ws-{kind}"
        ws.mkdir()
        workspaces[kind] = ws
    for suite in SUITES:
        for f in (CORPUS / suite).glob("test_*.py"):
            shutil.copy(f, tests / f.name)
        for kind in KINDS:
            for f in (CORPUS / suite / kind).glob("*.py"):
                shutil.copy(f, workspaces[kind] / f.name)
    return tests, workspaces


def suite_of(module: str) -> str:
    return module.removeprefix("test_")


def plain_pytest(tests: Path, ws: Path, out: Path) -> dict[tuple[str, str], str]:
    """``python -m pytest`` on the same files, the workspace on sys.path as the judge puts it:
    {(suite, Class::name or name): outcome}."""
    run = out / "plain"
    shutil.copytree(tests, run / "tests")
    (run / "pytest.ini").write_text("[pytest]\n")
    report = run / "report.xml"
    env = {
        "PATH": "/usr/bin:/bin",
        "PYTHONPATH": str(ws),
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
        "HOME": str(run),
    }
    subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={report}", "tests"],
        cwd=run,
        env=env,
        capture_output=True,
        timeout=120,
    )
    got = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        mod, _, cls = case.get("classname", "").removeprefix("tests.").partition(".")
        name = f"{cls}::{case.get('name')}" if cls else str(case.get("name"))
        kids = {c.tag for c in case}
        outcome = "failed" if kids & {"failure", "error"} else "skipped" if "skipped" in kids else "passed"
        got[(suite_of(mod), name)] = outcome
    return got


def spec_for(tests: Path, mode: str):
    from arena.judge.run.runner import JudgeSpec
    from arena.sandbox import Limits

    return JudgeSpec(
        command=COMMAND,
        timeout_s=60.0,
        categories={},
        image="gauntlet-base",
        limits=Limits(cpus=1.0, memory_mb=512, pids=64, wall_s=60.0),
        deliverables=[("corpus", "tests")],
        starter=None,
        test_dirs={1: {"static": [tests]}},
        isolation=mode,
    )


def judged(result) -> dict[tuple[str, str], str]:
    got = {}
    for t in result.tests:
        path, _, name = t.id.partition("::")
        got[(suite_of(Path(path).stem), name)] = "failed" if t.outcome == "error" else t.outcome
    return got


async def judge_all(backend_name: str, root: Path):
    """{kind: plain outcomes}, {(kind, mode): JudgeResult} for one backend."""
    from arena.judge import Judge, take_snapshot
    from arena.sandbox import get_backend

    tests, workspaces = build(root)
    plain = {k: await asyncio.to_thread(plain_pytest, tests, ws, root / f"p-{k}") for k, ws in workspaces.items()}
    snaps = {k: take_snapshot(ws, root / "snaps") for k, ws in workspaces.items()}
    work = root / "work"
    work.mkdir()
    judge = Judge(get_backend(backend_name), pool_size=2, work_root=work, coverage_pass=False)
    results = {}
    try:
        for mode in MODES:
            spec = spec_for(tests, mode)
            await judge.warm(spec, [1])
            got = await asyncio.gather(*(judge.run(spec, snaps[k], submission=1, phases=[1]) for k in KINDS))
            results.update({(k, mode): r for k, r in zip(KINDS, got)})
    finally:
        await judge.aclose()
    return plain, results


def counts(outcomes: dict[tuple[str, str], str], suite: str) -> tuple[int, int]:
    mine = [o for (s, _), o in outcomes.items() if s == suite]
    return sum(o == "passed" for o in mine), sum(o != "passed" for o in mine)


def table(plain, results) -> list[str]:
    rows = []
    for suite in SUITES:
        cells = [suite, " · ".join("%d/%d" % counts(plain[k], suite) for k in KINDS)]
        for mode in MODES:
            cells.append(" · ".join("%d/%d" % counts(judged(results[(k, mode)]), suite) for k in KINDS))
        rows.append("| " + " | ".join(cells) + " |")
    return rows


def mismatches(plain, results) -> list[str]:
    bad = []
    for (kind, mode), r in results.items():
        if r.infra_error or r.build.status != "success":
            bad.append(f"{kind}/{mode}: infra_error={r.infra_error} build={r.build.errors}")
            continue
        got, want = judged(r), plain[kind]
        noticed = {n.test.partition("::")[0]: n.construct for n in r.isolation_notices}
        for key in sorted(set(got) | set(want)):
            if got.get(key) == want.get(key):
                continue
            suite = key[0]
            if mode == "process" and suite in REFUSED:
                continue  # checked on the reference below
            msg = next((t.message for t in r.tests if t.id.endswith(f"::{key[1]}") and suite in t.id), "")
            bad.append(f"{kind}/{mode} {suite}::{key[1]}: pytest {want.get(key)}, judge {got.get(key)}: {msg[:300]}")
        if mode == "process" and kind == "correct":
            for suite, construct in REFUSED.items():
                if noticed.get(f"static/test_{suite}.py") != construct:
                    bad.append(f"{suite}: refused under isolation, but no {construct!r} notice on the reference")
    return bad


@pytest.mark.parametrize("backend_name", ["local", pytest.param("docker", marks=pytest.mark.docker)])
async def test_judge_agrees_with_pytest_on_the_corpus(backend_name, tmp_path):
    plain, results = await judge_all(backend_name, tmp_path)
    assert len(SUITES) >= 12
    for kind in KINDS:  # the corpus does what it says: the reference passes, the others do not
        for suite in SUITES:
            p, f = counts(plain[kind], suite)
            assert p + f >= 4, suite
            assert (f == 0) == (kind == "correct"), (suite, kind, p, f)
    bad = mismatches(plain, results)
    assert bad == [], "\n".join(bad + table(plain, results))
    for (kind, mode), r in results.items():
        assert r.isolation == mode
        if mode == "in_process" or not REFUSED:
            assert r.isolation_notices == [], (kind, mode, r.isolation_notices)


COLLECTION = {
    "test_good.py": "from calc import add\n\n\ndef test_a():\n    assert add(1, 2) == 3\n",
    "test_missing_helper.py": "import calc\nimport corpus_helpers_absent\n\n\ndef test_b():\n    assert calc\n",
    "test_missing_name.py": "from calc import nosuch\n\n\ndef test_c():\n    assert nosuch\n",
    "test_import_raises.py": "import unittest\n\nfrom cfg import VALUE\n\n\nclass T(unittest.TestCase):\n"
    "    def test_d(self):\n        self.assertEqual(VALUE, 1)\n",
}
COLLECTION_WS = {
    "calc.py": "def add(a, b):\n    return a + b\n",
    "cfg.py": "class ConfigError(Exception):\n    pass\n\n\nraise ConfigError('no config file found')\n",
}


@pytest.mark.parametrize("backend_name", ["local", pytest.param("docker", marks=pytest.mark.docker)])
async def test_a_test_module_that_does_not_import_is_a_build_error(backend_name, tmp_path):
    """A collection error (issue 27 item 2) is a build failure naming the test module and the
    exception, in both modes: never a count of failed tests with a build that succeeded."""
    from arena.judge import Judge, take_snapshot
    from arena.sandbox import get_backend

    tests = tmp_path / "tests" / "static"
    tests.mkdir(parents=True)
    for name, text in COLLECTION.items():
        (tests / name).write_text(text)
    ws = tmp_path / "ws"
    ws.mkdir()
    for name, text in COLLECTION_WS.items():
        (ws / name).write_text(text)
    snap = take_snapshot(ws, tmp_path / "snaps")
    judge = Judge(get_backend(backend_name), pool_size=2, work_root=tmp_path, coverage_pass=False)
    try:
        got = await asyncio.gather(*(judge.run(spec_for(tests, m), snap, submission=1, phases=[1]) for m in MODES))
    finally:
        await judge.aclose()
    for mode, r in zip(MODES, got):
        assert r.infra_error is None and r.isolation == mode
        assert r.build.status == "failure", (mode, r.build)
        errs = sorted(r.build.errors)
        assert len(errs) == 3, (mode, errs)
        assert errs[0] == "static/test_import_raises.py: cfg.ConfigError: no config file found", (mode, errs)
        assert errs[1] == "static/test_missing_helper.py: ModuleNotFoundError: No module named 'corpus_helpers_absent'"
        assert errs[2].startswith("static/test_missing_name.py: ImportError: cannot import name 'nosuch' from 'calc'")
        assert r.deliverables == {"corpus": 0.0}
        assert all(t.message == "not run: the submission did not build (collection errors)" for t in r.tests)


if __name__ == "__main__":
    import tempfile

    names = ["local"] if "--no-docker" in sys.argv else ["local", "docker"]
    for name in names:
        with tempfile.TemporaryDirectory() as d:
            p, res = asyncio.run(judge_all(name, Path(d)))
            print(f"## {name}\n| suite | pytest (correct · starter · broken) | judge, process | judge, in_process |")
            print("|---|---|---|---|")
            print("\n".join(table(p, res)))
            for line in mismatches(p, res):
                print("MISMATCH", line)
            for (k, m), r in res.items():
                for n in r.isolation_notices:
                    print("NOTICE", k, m, n.test, n.construct, n.detail[:200])
