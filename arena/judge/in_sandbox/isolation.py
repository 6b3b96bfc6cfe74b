"""The trusted side of process isolation: a pytest plugin that never imports the submission.

``PLUGIN`` (proxies.py: ``CORE`` here, ``WORKERS`` of isolation_workers.py, ``PROXIES``)
is written to ``/judge/config/gauntlet_isolation.py`` (with its bytecode). When the
package's ``judge.isolation`` is ``process`` (the default for Python packages) the argv
ends ``-p gauntlet_isolation`` (arena/judge/run/command.py); the bootstrap (trusted.py) strips
that, calls ``activate()`` and registers the module with ``pytest.main`` itself. It:

- installs an import hook: a judge test's ``import sorter`` / ``from taskstore import
  TaskStore`` gives proxies of the submission's module (names found by listing the
  workspace, never by importing it); exception classes the submission defines at module
  top level are mirrored locally (found with ``ast`` once per module, or from a raised
  exception: same name, built on the same built-in base), so ``pytest.raises`` works; a
  standard-library exception class is the trusted side's own (``stdlib_exception``);
- runs the submission in its own process (arena/judge/in_sandbox/worker.py), fresh per suite
  (``/judge/tests/<phase>/<suite>``) and again after it dies, and talks to it with plain
  data only (arena/judge/in_sandbox/wire.py), a channel per test thread: calls, attribute reads
  and a few operators are forwarded; results come back copied when plain, else as
  handles that compare equal only to themselves; callbacks (the test's lambdas,
  generators, objects) are served back to the submission but only called, iterated or
  read by public name;
- makes itself non-dumpable (no ``/proc/<pid>/mem``, ``fd``, ``environ`` for the
  submission, which also runs as the same uid), and kills every process started since
  the first worker (but the spare) when a suite ends and before the report is written.
"""

from __future__ import annotations

CORE = r'''
import ast, builtins, collections, ctypes, os, queue, signal, socket, subprocess, sys, threading, types, weakref

import pytest
from gauntlet_wire import Peer, WireError, SCALARS, start_zygote, worker_argv, zygote_spawn

WS = os.environ.get("GAUNTLET_JUDGE_WORKSPACE", "/workspace")
OUT = os.environ.get("GAUNTLET_JUDGE_OUT", "/judge-out")
HERE = os.path.dirname(os.path.abspath(__file__))
_STDOUT = _STDERR = None  # the run's stdout and stderr, before pytest's capture (activate())


def _roots():
    roots = [WS]
    src = os.path.join(WS, "src")
    if os.path.isdir(src) and not os.path.exists(os.path.join(src, "__init__.py")):
        roots.append(src)
    return roots


def _module_names():
    names = {}
    for root in reversed(_roots()):
        try:
            entries = os.listdir(root)
        except OSError:
            continue
        for e in entries:
            p = os.path.join(root, e)
            if e.endswith(".py") and os.path.isfile(p):
                names[e[:-3]] = p
            elif e.isidentifier() and os.path.isfile(os.path.join(p, "__init__.py")):
                names[e] = os.path.join(p, "__init__.py")
    skip = set(sys.stdlib_module_names) | {"pytest", "_pytest", "pluggy", "coverage", "conftest"}
    return {n: p for n, p in names.items() if n.isidentifier() and n not in skip and not n.startswith("gauntlet_")}


_NOTICED = set()


def notice(construct, detail):
    """A construct of the current test that cannot cross the boundary faithfully: one signed
    ``isolation`` line in the progress log (docs/judge.md 4b: JudgeResult.isolation_notices)."""
    nodeid = STATE.get("nodeid") or STATE.get("collecting") or ""
    key = (nodeid, construct, detail)
    if key in _NOTICED or len(_NOTICED) > 1000:
        return
    _NOTICED.add(key)
    jp = sys.modules.get("gauntlet_judge_plugin")
    if jp is not None:
        jp._emit(event="isolation", nodeid=nodeid, construct=construct, detail=detail[:600])


NAMES = {}  # the workspace's top-level modules (activate(): after the submission is there)
MIRRORS = {}


def mirror(mod, qual, base):
    key = (mod, qual)
    cls = MIRRORS.get(key)
    if cls is None:
        if not (isinstance(base, type) and issubclass(base, BaseException)):
            base = Exception
        def __str__(self, _b=base):
            m = self.__dict__.get("_gauntlet_msg")
            return m if m is not None else _b.__str__(self)
        cls = type(qual.rsplit(".", 1)[-1], (base,), {"__module__": mod, "__qualname__": qual,
                                                       "__str__": __str__, "_gauntlet_key": key})
        MIRRORS[key] = cls
    return cls


_NOT_MAPPED = {("unittest.case", "SkipTest"), ("bdb", "BdbQuit")}


def stdlib_exception(mod, qual):
    """The trusted side's own class for an exception of a standard-library module it has
    imported (``dataclasses.FrozenInstanceError`` for ``pytest.raises``), else None."""
    if mod.split(".")[0] not in sys.stdlib_module_names or (mod, qual) in _NOT_MAPPED or mod not in sys.modules:
        return None
    v = sys.modules[mod]
    for part in qual.split("."):
        v = v.__dict__.get(part) if isinstance(v, (type, types.ModuleType)) else None
    if isinstance(v, type) and issubclass(v, BaseException) and v.__module__ == mod and v.__qualname__ == qual:
        return v
    return None


_STATIC, _STATIC_LOCK = {}, threading.Lock()


def _static_exceptions(mod):
    """Top-level exception classes of the submission's module ``mod``, read with ast once
    (the workspace is read-only while judged; 3.11's parser is not safe across threads)."""
    with _STATIC_LOCK:
        got = _STATIC.get(mod)
        if got is None:
            got = _STATIC[mod] = _read_exceptions(mod)
        return got


def _read_exceptions(mod):
    path = NAMES.get(mod.split(".")[0]) if "." not in mod else None
    try:
        tree = ast.parse(open(path, encoding="utf-8", errors="replace").read()) if path else None
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        tree = None
    if tree is None:
        return {}
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    found = {}

    def base_of(name, seen):
        if name in found:
            return found[name]
        b = getattr(builtins, name, None)
        if isinstance(b, type) and issubclass(b, BaseException):
            return b
        node = classes.get(name)
        if node is None or name in seen:
            return None
        for e in node.bases:
            if isinstance(e, ast.Name):
                got = base_of(e.id, seen | {name})
                if got is not None:
                    found[name] = mirror(mod, name, got)
                    return found[name]
        return None

    for name in classes:
        base_of(name, set())
    return found
'''
