"""The guard of a verifier the judge does not run itself (an imported task's ``test.sh``).

A judge command that is not a pytest command (Harbor's ``bash /tests/test.sh``) runs the
task's verifier as written: the submission is imported into the verifier's own pytest
process (``isolation: none``), so the judge cannot keep it from ending that process or
leaving processes behind. What it ships instead (text here, written under
``/judge/config/verifier`` by ``tests_cache``):

- ``usercustomize.py`` in ``lib/python3.X/site-packages`` of that directory, which the
  judge names ``PYTHONUSERBASE`` for the run: every Python of the run (one not in a
  virtual environment, not ``-s``/``-I``) loads it before any submission code, imports the
  guard by its path (a module of the submission cannot stand in for it) and adds it to
  ``PYTEST_PLUGINS``, so every pytest of the run loads it;
- the guard plugin: at ``pytest_configure`` it writes ``<id>.start`` into
  ``$GAUNTLET_VERIFIER_MARKS``; at ``pytest_unconfigure`` (after pytest's report) it ends
  every process started since its pytest began that is not one of its ancestors (all of
  them stopped first with ``kill(-1, SIGSTOP)``, so none forks away meanwhile; the rest
  continued), then writes ``<id>.end`` with pytest's exit status. A ``.start`` without
  its ``.end`` is a pytest that ended before it reported (``os._exit``, a signal): the
  judge does not believe that run's results (``runner.py``).

In-process, a determined submission can still forge these marks: this is detection
(with the tamper scan), not prevention; see docs/judge.md.
"""

from __future__ import annotations

GUARD_NAME = "gauntlet_verifier_guard"
MARKS_ENV = "GAUNTLET_VERIFIER_MARKS"
PY_VERSIONS = tuple(f"3.{n}" for n in range(8, 16))  # the site-packages written (lib/python3.X)

USERCUSTOMIZE = r"""
import os as _os
import sys as _sys


def _gauntlet_guard():
    base = _os.path.dirname(_os.path.abspath(__file__))
    for _ in range(3):  # <base>/lib/python3.X/site-packages/usercustomize.py
        base = _os.path.dirname(base)
    name = "gauntlet_verifier_guard"
    if name not in _sys.modules:
        import importlib.util as u

        spec = u.spec_from_file_location(name, _os.path.join(base, name + ".py"))
        mod = u.module_from_spec(spec)
        spec.loader.exec_module(mod)
        _sys.modules[name] = mod
    have = [p for p in _os.environ.get("PYTEST_PLUGINS", "").split(",") if p]
    if name not in have:
        _os.environ["PYTEST_PLUGINS"] = ",".join(have + [name])


try:
    _gauntlet_guard()
except Exception:
    pass
"""

GUARD = r'''
import os
import secrets
import signal


def _stat(pid):
    with open("/proc/%d/stat" % pid) as f:
        rest = f.read().rsplit(")", 1)[1].split()
    return int(rest[1]), int(rest[19])  # ppid, starttime


def _ancestors():
    out, pid = set(), os.getpid()
    while pid > 0 and pid not in out:
        out.add(pid)
        try:
            pid = _stat(pid)[0]
        except (OSError, ValueError, IndexError):
            break
    return out


def _end_started_since(since):
    """SIGKILL every process started since this pytest began, but its ancestors."""
    keep = _ancestors()
    try:
        os.kill(-1, signal.SIGSTOP)  # every process this uid may signal, but us and init
    except OSError:
        pass
    seen = set()
    try:
        for _ in range(3):
            for name in os.listdir("/proc"):
                if not name.isdigit() or int(name) in keep:
                    continue
                pid = int(name)
                try:
                    if _stat(pid)[1] > since:
                        os.kill(pid, signal.SIGKILL)
                    else:
                        seen.add(pid)
                except (OSError, ValueError, IndexError):
                    pass
    finally:
        for pid in seen | keep:
            try:
                os.kill(pid, signal.SIGCONT)
            except OSError:
                pass


def _hooks(marks):
    # the run's state lives in this closure, not in a module attribute
    state = {}

    def mark(suffix, text=""):
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW
        fd = os.open(os.path.join(marks, state["id"] + suffix), flags, 0o644)
        try:
            os.write(fd, text.encode())
        finally:
            os.close(fd)

    def pytest_configure(config):
        if not marks or "id" in state:
            return
        try:
            state["since"] = _stat(os.getpid())[1]
            os.makedirs(marks, exist_ok=True)
            state["id"] = "%d-%s" % (os.getpid(), secrets.token_hex(6))
            mark(".start")
        except OSError:
            pass

    def pytest_sessionfinish(session, exitstatus):
        state["status"] = int(exitstatus)

    def pytest_unconfigure(config):
        if "id" not in state:
            return
        try:
            _end_started_since(state["since"])
        finally:
            try:
                mark(".end", str(state.get("status", "")))
            except OSError:
                pass

    return pytest_configure, pytest_sessionfinish, pytest_unconfigure


pytest_configure, pytest_sessionfinish, pytest_unconfigure = _hooks(os.environ.get("GAUNTLET_VERIFIER_MARKS"))
del _hooks
'''


def files() -> list[tuple[str, str]]:
    """(path under the judge's config directory, text) of what the guard ships."""
    out = [(f"verifier/{GUARD_NAME}.py", GUARD)]
    out += [(f"verifier/lib/python{v}/site-packages/usercustomize.py", USERCUSTOMIZE) for v in PY_VERSIONS]
    return out
