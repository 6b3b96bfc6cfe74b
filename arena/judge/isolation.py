"""The trusted side of process isolation: a pytest plugin that never imports the submission.

``PLUGIN`` is written to ``/judge/config/gauntlet_isolation.py`` and loaded with
``-p gauntlet_isolation`` (arena/judge/command.py) when the package's
``judge.isolation`` is ``process`` (the default for Python packages). It:

- installs an import hook: a judge test's ``import sorter`` / ``from taskstore import
  TaskStore`` gives proxies of the submission's module (names found by listing the
  workspace, never by importing it); exception classes the submission defines at module
  top level are mirrored locally (found with ``ast`` at import time, or from a raised
  exception: same name, built on the same built-in base), so ``pytest.raises`` works;
- runs the submission in its own process (arena/judge/worker.py), fresh per suite
  (``/judge/tests/<phase>/<suite>``) and again after it dies, and talks to it over a pipe
  pair with plain data only (arena/judge/wire.py): calls, attribute reads and a few
  operators are forwarded; results come back copied when plain, else as handles that
  compare equal only to themselves; callbacks (the test's lambdas, generators, objects)
  are served back to the submission but only called, iterated or read by public name;
- makes itself non-dumpable (no ``/proc/<pid>/mem``, ``fd``, ``environ`` for the
  submission, which also runs as the same uid), and kills every other process of the
  sandbox user (``kill(-1)``) when a suite ends and before the report is written.
"""

from __future__ import annotations

CORE = r'''
import ast, builtins, ctypes, os, signal, subprocess, sys, types

import pytest
from gauntlet_wire import Peer, WireError, SCALARS, start_zygote, zygote_spawn

WS = os.environ.get("GAUNTLET_JUDGE_WORKSPACE", "/workspace")
OUT = os.environ.get("GAUNTLET_JUDGE_OUT", "/judge-out")
HERE = os.path.dirname(os.path.abspath(__file__))
try:
    ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0
except Exception:
    pass
_STDOUT, _STDERR = os.dup(1), os.dup(2)  # before pytest's capture: the worker writes here
with open(os.path.join(HERE, "gauntlet_wire.py")) as f:
    _WIRE = f.read()
with open(os.path.join(HERE, "gauntlet_worker.py")) as f:
    _WORKER_SRC = _WIRE + "\n" + f.read()


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


NAMES = _module_names()
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


def _static_exceptions(mod):
    """Top-level exception classes of the submission's module ``mod``, read with ast."""
    path = NAMES.get(mod.split(".")[0]) if "." not in mod else None
    try:
        tree = ast.parse(open(path, encoding="utf-8", errors="replace").read()) if path else None
    except (OSError, SyntaxError, ValueError):
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


class _Child:
    """A worker forked by the fork server (not our child: the kernel reaps it)."""

    def __init__(self, pid):
        self.pid = pid

    def poll(self):
        try:
            os.kill(self.pid, 0)
            return None
        except OSError:
            return 0

    def kill(self):
        os.kill(self.pid, signal.SIGKILL)

    def wait(self, timeout=None):
        return 0


_ENV = {k: v for k, v in os.environ.items() if not k.startswith(("GAUNTLET_JUDGE_REQUEST", "GAUNTLET_JUDGE_ZYGOTE"))}


def _zygote():
    """The fork server: started by the launcher before the submission existed
    (``GAUNTLET_JUDGE_ZYGOTE=<pid>,<fd>``), else now, while pytest collects."""
    import socket
    got = os.environ.pop("GAUNTLET_JUDGE_ZYGOTE", "")
    try:
        if got:
            pid, fd = (int(x) for x in got.split(","))
            return _Child(pid), socket.socket(fileno=fd)
        proc, ctrl = start_zygote(_WORKER_SRC, _ENV)
        return proc, ctrl
    except Exception:
        return None


ZYGOTE = _zygote()


class Worker:
    gen = 0

    def __init__(self):
        Worker.gen += 1
        self.gen = Worker.gen
        got = zygote_spawn(ZYGOTE[1], _STDOUT, _STDERR) if ZYGOTE else None
        if got is not None:  # forked by the fork server: no interpreter start-up
            self.proc = _Child(got[0])
            b_r = a_w = got[1]
        else:
            a_r, a_w = os.pipe()  # trusted -> worker
            b_r, b_w = os.pipe()  # worker -> trusted
            self.proc = subprocess.Popen(
                [sys.executable, "-I", "-B", "-c", _WORKER_SRC, str(a_r), str(b_w)], pass_fds=(a_r, b_w),
                stdin=subprocess.DEVNULL, stdout=_STDOUT, stderr=_STDERR, start_new_session=True, env=_ENV)
            os.close(a_r)
            os.close(b_w)
        if STATE["first_pid"] is None:
            STATE["first_pid"] = self.proc.pid
        self.peer = Peer(b_r, a_w, self.export, self.resolve, self.handle, self.enc_exc, self.dec_exc)
        self.table, self.back = {}, {}
        hello = self.peer.recv()
        self.info = hello.get("hello") if type(hello) is dict else None

    def stop(self):
        try:
            self.proc.kill()
            self.proc.wait(timeout=5)
        except Exception:
            pass
        for fd in (self.peer.wfd,):
            try:
                os.close(fd)
            except OSError:
                pass
        try:
            self.peer.r.close()
        except Exception:
            pass

    # values of the trusted side crossing to the worker
    def export(self, x):
        if isinstance(x, Remote):
            if x._gen != self.gen:
                raise WireError("an object of the submission's from an earlier process")
            return ["o", x._ref]
        if isinstance(x, Lazy):
            return self.peer.enc(x._value())
        if isinstance(x, type) and "_gauntlet_key" in x.__dict__:
            return ["xm", list(x._gauntlet_key)]
        if isinstance(x, type) and issubclass(x, BaseException) and x.__module__ == "builtins":
            return ["xb", x.__name__]
        r = self.back.get(id(x))
        if r is None:
            r = len(self.table) + 1
            self.table[r], self.back[id(x)] = x, r
        return ["c", r]

    def resolve(self, tag, p):
        if tag == "o" and type(p) is int:
            return Remote(self.gen, p)
        if tag == "c" and p in self.table:
            return self.table[p]
        if tag == "xb":
            b = getattr(builtins, str(p), None)
            if isinstance(b, type) and issubclass(b, BaseException):
                return b
            return Exception
        if tag == "x" and type(p) is dict:
            base = self.peer.dec(p.get("base", ["xb", "Exception"]))
            return mirror(str(p.get("mod")), str(p.get("qual")), base)
        raise WireError("the submission's process sent an unknown handle")

    SAFE_OPS = {"iter": iter, "next": next, "len": len, "getitem": lambda o, k: o[k],
                "contains": lambda o, k: k in o, "bool": bool, "eq": lambda a, b: a == b,
                "ne": lambda a, b: a != b, "lt": lambda a, b: a < b, "le": lambda a, b: a <= b,
                "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b, "hash": hash, "repr": repr,
                "str": str, "int": int, "float": float, "index": lambda o: o.__index__()}

    def handle(self, q):  # the submission asking something of a test's object
        op, args = q[0], [self.peer.dec(a) for a in q[1:]]
        if op == "call" and len(args) == 3 and callable(args[0]):
            return args[0](*args[1], **args[2])
        if op == "op" and args and args[0] in self.SAFE_OPS:
            return self.SAFE_OPS[args[0]](*args[1:])
        if op == "getattr" and len(args) == 2 and type(args[1]) is str and not args[1].startswith("_"):
            v = getattr(args[0], args[1])
            if isinstance(v, (types.ModuleType, types.FrameType, types.CodeType)):
                raise AttributeError(args[1])
            return v
        raise PermissionError(f"the judge does not serve {op!r} on a test's object")

    def enc_exc(self, e):
        t = type(e)
        if "_gauntlet_key" in t.__dict__:
            cls = ["xm", list(t._gauntlet_key)]
        else:
            b = next(c for c in t.__mro__ if c.__module__ == "builtins")
            cls = ["xb", b.__name__]
        try:
            args = self.peer.enc(tuple(e.args))
        except Exception:
            args = ["t", []]
        return {"cls": cls, "args": args, "msg": str(e)[:100000]}

    def dec_exc(self, p):
        try:
            cls = self.peer.dec(p.get("cls"))
            args = self.peer.dec(p.get("args", ["t", []]))
            msg = p.get("msg")
        except Exception:
            return RuntimeError("the submission raised an exception the judge could not read")
        if not (isinstance(cls, type) and issubclass(cls, BaseException)) or cls in (KeyboardInterrupt, GeneratorExit):
            return RuntimeError(f"the submission raised {getattr(cls, '__name__', '?')}: {msg}")
        try:
            e = cls(*args) if type(args) is tuple else cls(msg)
        except Exception:
            e = cls(msg)
        if "_gauntlet_key" in cls.__dict__ and type(msg) is str:
            e._gauntlet_msg = msg
        return e


STATE = {"worker": None, "suite": None, "coverage": {}, "in_test": False, "first_pid": None}


def kill_workers():
    """Kill every process started since the first worker (all of them the submission's:
    this process starts nothing else), also those that left the worker's session. Not
    ``kill(-1)``: that would also end the sandbox's exec wrapper."""
    first = STATE["first_pid"]
    if first is None:
        return
    me = os.getpid()
    try:
        pids = [int(d) for d in os.listdir("/proc") if d.isdigit()]
    except OSError:
        return
    for pid in pids:
        if pid >= first and pid != me:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


def worker():
    w = STATE["worker"]
    if w is None or w.peer.broken or w.proc.poll() is not None:
        if w is not None:
            _retire(w)
        w = STATE["worker"] = Worker()
    return w


def _retire(w):
    try:
        if not w.peer.broken and w.proc.poll() is None:
            cov = w.peer.request(["coverage"])
            if type(cov) is dict:
                for f, (lines, arcs) in cov.items():
                    have = STATE["coverage"].setdefault(f, (set(), set()))
                    have[0].update(lines)
                    have[1].update(tuple(a) for a in arcs)
    except Exception:
        pass
    w.stop()
    kill_workers()
    if STATE["worker"] is w:
        STATE["worker"] = None


def call(q):
    w = worker()
    try:
        return w.peer.request([q[0], *[w.peer.enc(a) for a in q[1:]]])
    except WireError as e:
        _retire(w)
        raise RuntimeError(f"judge: {e}") from None
'''
