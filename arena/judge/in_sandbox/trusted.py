"""The judge's trusted files, written read-only into the sandbox at ``/judge/config``.

- ``run.py``: the bootstrap. Started as ``python3 -I -B /judge/config/run.py <args>``:
  isolated mode, so nothing in the submission (``sitecustomize.py``, ``.pth``,
  ``PYTHON*`` variables, the current directory) is read at start-up. It puts the
  submission on ``sys.path`` itself, starts coverage when the ``coverage`` module is
  present and the run is the coverage pass (first argument ``--gauntlet-coverage``;
  the timed run is never traced), and runs ``pytest.main`` with the progress plugin.
- ``gauntlet_judge_plugin.py``: appends one JSON line per test result to
  ``<out>/progress.jsonl`` as the run goes, so a run killed at the timeout (or ended
  by ``os._exit``) still leaves the results of the tests that finished.
- ``pytest.ini``: the only configuration pytest reads (forced with ``-c``).
"""

from __future__ import annotations

PLUGIN = r"""
import hashlib, hmac, json, os

_OUT = os.environ.get("GAUNTLET_JUDGE_OUT", "/judge-out")
_fd = os.open(os.path.join(_OUT, "progress.jsonl"), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
KEY = ""  # the run's key (set by run.py): every line is signed with it (verdict.signature)
_seq = [0]


def _emit(**kw):
    try:
        if KEY:
            kw["seq"] = _seq[0]
            _seq[0] += 1
            body = json.dumps(kw, sort_keys=True)
            kw["mac"] = hmac.new(KEY.encode(), body.encode(), hashlib.sha256).hexdigest()
        os.write(_fd, (json.dumps(kw) + "\n").encode("utf-8", "replace"))
    except Exception:
        pass


def _message(report):
    try:
        crash = getattr(report.longrepr, "reprcrash", None)
        if crash is not None:
            return str(crash.message)[:2000]
        if isinstance(report.longrepr, tuple) and len(report.longrepr) == 3:
            return str(report.longrepr[2])[:2000]
        return str(report.longrepr)[-2000:]
    except Exception:
        return "unreadable failure"


def pytest_configure(config):
    _emit(event="start")


def pytest_collectreport(report):
    if report.failed:
        _emit(event="collect_error", nodeid=report.nodeid, message=str(report.longrepr)[-3000:])


def pytest_collection_finish(session):
    _emit(event="collected", n=len(session.items))


import pytest as _pytest_mod


@_pytest_mod.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    # A second opinion from the call itself: a test whose call raised cannot have passed.
    # Catches reports rewritten after the fact (patched TestReport, forcing hooks).
    outcome = yield
    try:
        rep = outcome.get_result()
        exc = call.excinfo
        if exc is not None and rep.passed and not exc.errisinstance(_pytest_mod.skip.Exception):
            _emit(event="test", nodeid=item.nodeid, when=call.when,
                  outcome="failed" if call.when == "call" else "error",
                  message=exc.exconly()[:2000], forged=True)
    except Exception:
        pass


def pytest_runtest_logreport(report):
    if report.when == "call" or (report.when != "call" and not report.passed):
        outcome = report.outcome
        if report.when != "call" and report.failed:
            outcome = "error"
        msg = _message(report) if not report.passed else ""
        _emit(event="test", nodeid=report.nodeid, when=report.when, outcome=outcome, message=msg)


def pytest_sessionfinish(session, exitstatus):
    _emit(event="finish", exitstatus=int(exitstatus))
"""

START_MARK = "GAUNTLET-JUDGE-RUNNER-START"

MISSING_MARK = "GAUNTLET-JUDGE-MISSING"

RUNNER = r'''
import importlib.util, json, os, sys

# What the runner needs, checked before anything else (before the start mark: no
# submission code has run, so this cannot be forged): a judge that cannot run is an
# infra_error naming what is missing, never 0/N "not reported" (issue 26).
_missing = [m for m in ("pytest",) if importlib.util.find_spec(m) is None]
if _missing:
    sys.stderr.write("GAUNTLET-JUDGE-MISSING: the judge's python (" + sys.executable + ") has no module "
                     + ", ".join(_missing) + " (install python3-pytest)\n")
    sys.stderr.flush()
    sys.exit(3)

OUT = os.environ.get("GAUNTLET_JUDGE_OUT", "/judge-out")
WS = os.environ.get("GAUNTLET_JUDGE_WORKSPACE", "/workspace")
REQUEST = os.environ.pop("GAUNTLET_JUDGE_REQUEST", "")
# A launcher prepared for the coverage pass: its fork server sets the tracer up too.
TRACE = os.environ.pop("GAUNTLET_JUDGE_TRACE", "") == "1"
KEY = os.environ.pop("GAUNTLET_JUDGE_KEY", "")  # signs the progress log; never in a worker's env
if not REQUEST:
    # Written before any submission code can run: proof the runner started.
    sys.stdout.write("GAUNTLET-JUDGE-RUNNER-START\n")
    sys.stdout.flush()
sys.path.insert(0, "/judge/config")


def _start_zygote():
    """The isolation worker's fork server (worker.py), started before pytest is imported
    (a cold run: its start-up overlaps pytest's) or while no submission exists (pooled)."""
    global _zproc, _zctrl  # kept: the control socket's fd is handed on by number
    try:
        import gauntlet_wire
        env = {k: v for k, v in os.environ.items() if not k.startswith("GAUNTLET_JUDGE_REQUEST")}
        _zproc, _zctrl = gauntlet_wire.start_zygote("/judge/config", env)
        os.set_inheritable(_zctrl.fileno(), True)
        os.environ["GAUNTLET_JUDGE_ZYGOTE"] = f"{_zproc.pid},{_zctrl.fileno()}"
    except Exception:
        pass


if not REQUEST and "gauntlet_isolation" in sys.argv and "GAUNTLET_JUDGE_ZYGOTE" not in os.environ:
    if sys.argv[1:2] == ["--gauntlet-coverage"]:
        try:  # before the fork server starts: it sets the tracer up once for all workers
            open("/tmp/.gauntlet-trace", "w").close()
        except OSError:
            pass
    _start_zygote()
# Everything the runner needs is imported before the submission is on sys.path,
# so a submission file named pytest.py (or json.py ...) cannot stand in for it.
import gauntlet_judge_plugin as plugin
import pytest
import _pytest.junitxml, _pytest.terminal, _pytest.runner, _pytest.python  # noqa: F401
coverage = None
if REQUEST or sys.argv[1:2] == ["--gauntlet-coverage"]:  # a timed cold run never traces
    try:
        import coverage
    except Exception:
        coverage = None

cov = None
if coverage is not None:
    try:
        cov = coverage.Coverage(data_file=None, source=[WS], branch=True, config_file=False,
                                omit=["*/test_*.py", "*_test.py", "*/conftest.py"])
        if REQUEST:  # set it up before the submission exists (start-up off the run)
            cov.start()
            cov.stop()
    except Exception:
        cov = None

args = sys.argv[1:]
if REQUEST:  # a pooled container's launcher: wait for the submission (see launcher.py)
    import gauntlet_judge_launcher
    try:  # definitions and imports only, off the run (activated below when it is isolated)
        import gauntlet_isolation  # noqa: F401
    except Exception:
        pass
    if TRACE:
        try:  # before the fork server starts (worker.py reads it at its start)
            open("/tmp/.gauntlet-trace", "w").close()
        except OSError:
            pass
    _start_zygote()  # while no submission exists
    args = gauntlet_judge_launcher.serve(REQUEST, OUT)
    KEY = next((a.split("=", 1)[1] for a in args if a.startswith("--gauntlet-key=")), KEY)
    args = [a for a in args if not a.startswith("--gauntlet-key=")]
    sys.argv[1:] = args  # what an exec'd run has
    sys.stdout.write("GAUNTLET-JUDGE-RUNNER-START\n")
    sys.stdout.flush()
# Only the coverage pass (after the timed run, not timed against the agent) traces.
TRACED = args[:1] == ["--gauntlet-coverage"]
if TRACED:
    args = args[1:]
    sys.argv[1:] = args
    try:  # tells the isolation worker (worker.py) to trace too: this sandbox's own /tmp
        open("/tmp/.gauntlet-trace", "w").close()
    except OSError:
        pass
else:
    cov = None

ISOLATED = args[-2:] == ["-p", "gauntlet_isolation"]  # the submission in its own process (isolation.py)
more_plugins = []
if ISOLATED:
    cov = None  # measured in the submission's process, merged by the isolation plugin
    # Imported here and registered as an object, not loaded by ``-p``: pytest would
    # rewrite its asserts (parse, rewrite and compile a large module on every run; there
    # are none to rewrite) and scan every installed distribution's entry points for it.
    args = args[:-2]
    sys.argv[1:] = args
    import gauntlet_isolation

    gauntlet_isolation.activate(one_process=TRACED)
    more_plugins.append(gauntlet_isolation)
else:
    sys.path.insert(1, WS)
    src = os.path.join(WS, "src")
    if os.path.isdir(src) and not os.path.exists(os.path.join(src, "__init__.py")):
        sys.path.insert(2, src)


class CoverageWindow:
    """Trace from collection (where the submission is imported) to the end of the
    test loop: pytest's own start-up and reporting run untraced."""

    @pytest.hookimpl(hookwrapper=True)
    def pytest_collection(self, session):
        global cov
        if cov is not None:
            try:
                cov.start()
            except Exception:
                cov = None
        yield

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtestloop(self, session):
        yield
        if cov is not None:
            cov.stop()


def _serialized_ast_parse():
    """CPython 3.11 keeps the AST constructor's recursion depth per interpreter, not per
    thread: two threads in ``ast.parse`` at once (pytest's failure formatting or assert
    rewriting in the main thread, ``traceback``'s caret anchors in a test's thread) can
    fail with ``SystemError: AST constructor recursion depth mismatch`` (cpython#106905,
    pytest#10763). The judge's own process parses one at a time."""
    import ast, threading
    lock, parse = threading.RLock(), ast.parse

    def locked_parse(*a, **kw):
        with lock:
            return parse(*a, **kw)

    ast.parse = locked_parse


def _working_directory():
    """The tests' working directory: a fresh directory in the sandbox's own /tmp holding a
    link to each top-level entry of the (read-only) workspace. A test reads the
    submission's files by relative path as from the workspace, and writes new files into
    its working directory as plain pytest run in a checkout lets it (issue 27); the
    workspace itself stays read-only. Test paths and the report are absolute."""
    import tempfile
    try:
        d = tempfile.mkdtemp(prefix="gauntlet-cwd-", dir="/tmp")
        for e in os.listdir(WS):
            try:
                os.symlink(os.path.join(WS, e), os.path.join(d, e))
            except OSError:
                pass
        os.chdir(d)
    except OSError:
        pass


_serialized_ast_parse()
_working_directory()
plugin.KEY = KEY
rc = pytest.main(args, plugins=[plugin, CoverageWindow(), *more_plugins])
if cov is not None:
    try:
        cov.stop()
        cov.json_report(outfile=os.path.join(OUT, "coverage.json"))
    except Exception:
        pass
try:
    sys.stdout.flush()
    sys.stderr.flush()
finally:
    os._exit(int(rc))
'''

PYTEST_INI = """[pytest]
python_files = test_*.py *_test.py
python_classes = Test*
python_functions = test*
addopts =
"""
