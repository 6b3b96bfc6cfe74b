"""The proxies of the isolation plugin (the second half of ``gauntlet_isolation.py``).

``Remote``: a handle to one object in the current submission process; equal only to a
handle of the same object (never by the submission's ``__eq__``), hashed by identity.
``Lazy``: a name imported at collection (``from sorter import sort``), before any suite's
process exists; it resolves in the process of the test that uses it. ``RemoteModule``:
what ``import sorter`` gives. The import hook only answers for names of the workspace's
top-level modules and packages; the submission is never imported here.
"""

from __future__ import annotations

from arena.judge.in_sandbox.isolation import CORE
from arena.judge.in_sandbox.isolation_patches import PATCHES
from arena.judge.in_sandbox.isolation_workers import WORKERS

PROXIES = r'''

_DUNDER_OK = {"__name__", "__qualname__", "__doc__"}


class Remote:
    __slots__ = ("_gen", "_ref", "__weakref__")

    def __init__(self, gen, ref):
        object.__setattr__(self, "_gen", gen)
        object.__setattr__(self, "_ref", ref)

    def _op(self, name, *args):
        return call(["op", name, self, *args])

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__") and name not in _DUNDER_OK:
            raise AttributeError(name)
        w = STATE["worker"]
        known = w.methods.get(self._ref) if w is not None and w.gen == self._gen else None
        if known is not None and name in known:
            return BoundCall(self, name)  # a method of this object: called in one round trip
        got = call(["getattrm", self, name])
        if type(got) is not tuple or len(got) != 2:
            raise RuntimeError("judge: the submission's process sent a malformed attribute")
        if got[0] != "m":
            return got[1]
        w = STATE["worker"]
        if w is not None and w.gen == self._gen:
            with w.lock:
                if self._ref in w.remotes:
                    w.methods.setdefault(self._ref, set()).add(name)
        return BoundCall(self, name)

    def _forget(self, name):
        w = STATE["worker"]
        if w is not None and w.gen == self._gen:
            w.methods.get(self._ref, set()).discard(name)

    def __setattr__(self, name, value):
        self._forget(name)
        call(["setattr", self, name, value])

    def __delattr__(self, name):
        self._forget(name)
        call(["delattr", self, name])

    def __call__(self, *args, **kwargs):
        return call(["call", self, args, kwargs])

    # Comparisons (docs/judge.md 4b): two of the submission's objects compare by its own
    # operators, in its process (as in one interpreter); against a value the test made,
    # ``==`` is decided here (_eq_value): never by a "yes" of the submission's own __eq__.
    def _same_gen(self, other):
        if type(other) in (Lazy, BoundCall):
            other = other._value()
        return other, isinstance(other, Remote) and other._gen == self._gen

    def __eq__(self, other):
        other, both = self._same_gen(other)
        if both:
            return other._ref == self._ref or self._op("eq", other)
        if isinstance(other, Remote):
            return False  # an object of an earlier process
        return _eq_value(self, other)

    def __ne__(self, other):
        other, both = self._same_gen(other)
        if both:
            return other._ref != self._ref and self._op("ne", other)
        if isinstance(other, Remote):
            return True
        return not _eq_value(self, other)

    def __lt__(self, other): return self._op("lt", other)
    def __le__(self, other): return self._op("le", other)
    def __gt__(self, other): return self._op("gt", other)
    def __ge__(self, other): return self._op("ge", other)

    def __hash__(self):
        h = self._op("hash")
        if type(h) is not int:
            raise TypeError("hash() of a submission object is not an int")
        return h

    def __format__(self, spec):
        r = self._op("format", spec)
        if type(r) is not str:
            raise TypeError("format() of a submission object is not a str")
        return r

    def __round__(self, *n): return self._op("round", *n)
    def __divmod__(self, o): return self._op("divmod", o)
    def __rdivmod__(self, o): return call(["op", "divmod", o, self])

    def __repr__(self):
        try:
            r = self._op("repr")
            return r if type(r) is str else "<a submission object>"
        except Exception:
            return "<a submission object>"

    def __str__(self):
        r = self._op("str")
        return r if type(r) is str else "<a submission object>"

    def __bool__(self):
        return self._op("bool") is True

    def __len__(self):
        n = self._op("len")
        if type(n) is not int:
            raise TypeError("len() of a submission object is not an int")
        return n

    def __iter__(self): return self._op("iter")
    def __next__(self): return self._op("next")
    def __getitem__(self, k): return self._op("getitem", k)
    def __setitem__(self, k, v): self._op("setitem", k, v)
    def __delitem__(self, k): self._op("delitem", k)
    def __contains__(self, k): return self._op("contains", k) is True
    def __int__(self): return self._op("int")
    def __float__(self): return self._op("float")
    def __index__(self): return self._op("index")
    def __enter__(self): return self._op("enter")
    def __exit__(self, *a): return self._op("exit", *a)

    def __instancecheck__(self, obj):
        return call(["op", "isinstance", obj, self]) is True

    def __subclasscheck__(self, cls):
        return call(["op", "issubclass", cls, self]) is True

    def __mro_entries__(self, bases):
        _no_subclass(_short(self))

    @property
    def __class__(self):
        # isinstance(x, types.GeneratorType) / isinstance(Shape, abc.ABCMeta): Python asks
        # ``x.__class__`` when type(x) does not match; this is the nearest standard-library
        # class of the object's type in the submission's process (type(x) stays Remote).
        return _std_class(self)


# Iterators the handle stands in for faithfully (next/iter/send forwarded); not functions,
# methods or code: introspection (``inspect``, mock's spec checks) reads their dunders.
_INTERNAL_TYPES = {(t.__module__, t.__qualname__): t for t in (types.GeneratorType, types.AsyncGeneratorType,
                                                                types.CoroutineType)}
_NOT_STANDING_IN = {("builtins", n) for n in ("function", "builtin_function_or_method", "method", "code", "frame",
                                              "module", "cell", "method-wrapper", "wrapper_descriptor",
                                              "method_descriptor", "classmethod_descriptor", "getset_descriptor",
                                              "member_descriptor", "traceback", "NoneType", "object", "type")}


def _std_class(obj):
    w = STATE["worker"]
    key = obj._ref
    if w is not None and w.gen == obj._gen and key in w.classes:
        return w.classes[key]
    try:
        got = call(["op", "cls", obj])
    except Exception:
        got = None
    cls = Remote
    if type(got) is list and len(got) == 2 and all(type(v) is str for v in got) and tuple(got) in _INTERNAL_TYPES:
        cls = _INTERNAL_TYPES[tuple(got)]  # generator, coroutine, function, ... (types.*)
    elif type(got) is list and len(got) == 2 and all(type(v) is str for v in got):
        mod, qual = got
        if tuple(got) in _NOT_STANDING_IN:
            pass
        elif mod == "builtins" or (mod.split(".")[0] in sys.stdlib_module_names and mod in sys.modules):
            v = sys.modules.get(mod)
            for part in qual.split("."):
                v = v.__dict__.get(part) if isinstance(v, (type, types.ModuleType)) else None
            if isinstance(v, type) and v.__module__ == mod and v.__qualname__ == qual:
                cls = v
    w = STATE["worker"]
    if w is not None and w.gen == obj._gen:
        with w.lock:
            if key in w.remotes:
                w.classes[key] = cls
    return cls


def _binop(name):
    def op(self, other):
        return call(["op", name, self, other])

    def rop(self, other):
        return call(["op", name, other, self])

    return op, rop


for _n in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "lshift", "rshift", "and_", "or_", "xor",
           "matmul"):
    _d = _n.rstrip("_")
    _op, _rop = _binop(_n)
    setattr(Remote, f"__{_d}__", _op)
    setattr(Remote, f"__r{_d}__", _rop)
    setattr(Remote, f"__i{_d}__", _binop("i" + _n)[0])
for _n in ("neg", "pos", "abs", "invert"):
    setattr(Remote, f"__{_n}__", (lambda n: lambda self: call(["op", n, self]))(_n))


def _eq_value(obj, other):
    """``obj == other``: an object of the submission's, a value the test made."""
    got = call(["op", "eqv", obj, other])
    if type(got) is not tuple or len(got) != 2 or got[0] not in ("id", "view", "own"):
        raise RuntimeError("judge: the submission's process sent a malformed comparison")
    kind, v = got
    if kind == "view":  # its built-in base's value (a namedtuple, an IntEnum), compared here
        return v == other
    if kind == "own" and v is not False:
        notice("eq-test-value", f"the submission's own __eq__ said one of its objects ({_short(obj)}) equals "
               f"a value the test made ({_short(other)}); not believed across the process boundary")
    return False


def _no_subclass(what):
    """``class T(Base)`` in a test, ``Base`` the submission's: a class cannot span two processes."""
    msg = (f"a test class cannot subclass the submission's {what} under process isolation "
           "(the package needs judge.isolation: in_process)")
    notice("unsupported", msg)
    raise TypeError(f"judge: {msg}")


def _short(x):
    try:
        r = repr(x)
    except Exception:
        r = "?"
    return r if len(r) <= 80 else r[:77] + "..."


class BoundCall:
    """``obj.method`` of a submission object whose ``method`` was a bound method the last
    time: calling it is one request (``callattr``: looked up and called in the worker, as
    ``obj.method(...)`` does); any other use looks the attribute up for real."""
    __slots__ = ("_obj", "_name", "__weakref__")

    def __init__(self, obj, name):
        object.__setattr__(self, "_obj", obj)
        object.__setattr__(self, "_name", name)

    def _value(self):
        return call(["getattr", self._obj, self._name])

    def __call__(self, *args, **kwargs):
        return call(["callattr", self._obj, self._name, args, kwargs])

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__") and name not in _DUNDER_OK:
            raise AttributeError(name)
        return getattr(self._value(), name)

    def __eq__(self, other):
        return self._value() == (other._value() if type(other) is BoundCall else other)

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash(self._value())

    def __repr__(self):
        return repr(self._value())

    def __bool__(self):
        return True


class Lazy:
    """``module.attr...`` of the submission, resolved in the current suite's process (once
    per process, as ``from mod import name`` binds once)."""
    __slots__ = ("_path", "_got")

    def __init__(self, path):
        object.__setattr__(self, "_path", path)
        object.__setattr__(self, "_got", None)

    def _value(self):
        got, w = self._got, STATE["worker"]
        if got is not None and w is not None and got[0] == w.gen and not w.peer.broken:
            return got[1]
        v = call(["path", self._path[0], list(self._path[1:])])
        if isinstance(v, Remote):
            object.__setattr__(self, "_got", (v._gen, v))
        return v

    def __getattr__(self, name):
        if not STATE["in_test"] or (name.startswith("__") and name.endswith("__") and name not in _DUNDER_OK):
            raise AttributeError(name)  # pytest's collection looks at what a test module holds
        return getattr(self._value(), name)

    def __call__(self, *args, **kwargs):
        return self._value()(*args, **kwargs)

    def __repr__(self):
        return f"<{'.'.join(self._path)} of the submission>"

    def __instancecheck__(self, obj):
        return isinstance(obj, self._value())

    def __subclasscheck__(self, cls):
        return issubclass(cls, self._value())

    def __mro_entries__(self, bases):
        _no_subclass(".".join(self._path))

    @property
    def __class__(self):
        if not STATE["in_test"]:
            return Lazy
        try:
            v = self._value()
        except Exception:
            return Lazy
        return v.__class__ if type(v) is Remote else type(v)

    def __setattr__(self, name, value):  # mock.patch.object(Cls, ...): the submission's object
        setattr(self._value(), name, value)

    def __delattr__(self, name):
        delattr(self._value(), name)

    def __eq__(self, other):
        if not STATE["in_test"]:  # pytest's collection looking at what a test module holds
            return self is other
        return self._value() == other

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        if not STATE["in_test"]:
            return object.__hash__(self)
        return hash(self._value())


class RemoteModule(types.ModuleType):
    def __setattr__(self, name, value):
        # mock.patch("mod.name") / monkeypatch.setattr(mod, ...): the submission's module,
        # in its process; module machinery (dunders, a submodule bound on its package) here.
        if (name.startswith("__") and name.endswith("__")) or isinstance(value, RemoteModule):
            return types.ModuleType.__setattr__(self, name, value)
        call(["setpath", self.__dict__["__name__"], name, value])

    def __delattr__(self, name):
        if name in self.__dict__:
            return types.ModuleType.__delattr__(self, name)
        call(["delpath", self.__dict__["__name__"], name])

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        mod = self.__dict__["__name__"]
        exc = _static_exceptions(mod).get(name)
        if exc is not None:
            return exc
        value = call(["path", mod, [name]])  # AttributeError: `from mod import name` fails as in-process
        if STATE["in_test"] or not isinstance(value, Remote):
            return value  # plain values copied, exception classes mirrored
        return Lazy((mod, name))  # at collection: resolved in the process of the test using it


class _Loader:
    def create_module(self, spec):
        return RemoteModule(spec.name)

    def exec_module(self, module):
        # Imported now in the current process (at collection: one that serves no test),
        # so a module that does not import fails the test module's collection exactly as
        # in-process (a build failure), with the submission's error by type and message.
        module.__dict__["__gauntlet_remote__"] = True
        call(["path", module.__dict__["__name__"], []])


class _Finder:
    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if name.split(".")[0] not in NAMES:
            return None
        import importlib.machinery
        is_pkg = name in NAMES and NAMES[name].endswith("__init__.py") or "." in name
        return importlib.machinery.ModuleSpec(name, _Loader(), is_package=is_pkg)

    @classmethod
    def invalidate_caches(cls):
        pass


_ACTIVE = []


def activate(one_process=False):
    """Everything that depends on the run, once, before ``pytest.main`` (so before its
    capture). A pooled launcher imports this module while it waits for the submission
    (definitions and imports only: that costs nothing once the request is in, and a run
    that is not isolated never activates it); the run, once forked off the pump, calls
    this: not dumpable, the run's stdout and stderr kept for the workers, the workspace
    listed, the fork server taken over, the spare and listener threads started (threads
    do not survive the launcher's fork), the import hook installed.

    ``one_process``: the coverage pass. Its only output is the coverage of the
    submission's own lines (its test results and output are discarded), so nothing it
    sees reaches feedback the way a suite's results do: one process serves collection and
    every suite, as one interpreter does in-process (the same import-time lines and
    state), without three process switches."""
    global _STDOUT, _STDERR, NAMES, _ENV, ZYGOTE, SPARES, LISTENER
    if _ACTIVE:
        return
    _ACTIVE.append(True)
    try:
        ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0
    except Exception:
        pass
    _STDOUT, _STDERR = os.dup(1), os.dup(2)  # the worker writes here
    NAMES = _module_names()
    _ENV = {k: v for k, v in os.environ.items() if not k.startswith(("GAUNTLET_JUDGE_REQUEST", "GAUNTLET_JUDGE_ZYGOTE"))}
    ZYGOTE = _zygote()
    # Both threads before the first fork: a thread's id is a pid, and a worker may signal
    # any pid above its own (its seccomp filter), so a thread started after the first
    # spare was forked could be killed by the first worker, and with it this process.
    LISTENER = _Listener()
    SPARES = _Spares(ZYGOTE[1]) if ZYGOTE else None
    sys.meta_path.insert(0, _Finder)
    STATE["one_process"] = bool(one_process)
    _instrument_patches()


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    activate()  # loaded by ``-p`` alone (run.py activates it first): late, but never inert


# A judge test's tracemalloc measures the submission's process: there its objects are
# allocated (the trusted process holds only handles). A test module's top-level
# ``import tracemalloc`` / ``from tracemalloc import start, ...`` is rebound after import
# to functions run by the worker (worker.py ``tm``: void when the submission's code
# stops, restarts or clears tracing); pytest's own use of tracemalloc stays local.
import tracemalloc as _local_tm

_TM_NAMES = ("start", "stop", "is_tracing", "get_traced_memory", "reset_peak", "clear_traces",
             "get_traceback_limit", "get_tracemalloc_memory", "take_snapshot", "get_object_traceback")


def _remote_tm(name):
    def run(*args):
        return call(["tm", name, *args])
    run.__name__ = run.__qualname__ = name
    return run


REMOTE_TM = types.ModuleType("tracemalloc", "tracemalloc of the submission's process (the judge's isolation)")
REMOTE_TM.__dict__.update({k: v for k, v in _local_tm.__dict__.items() if not k.startswith("__")})
REMOTE_TM.__dict__.update({n: _remote_tm(n) for n in _TM_NAMES})
_TM_LOCAL = {id(getattr(_local_tm, n)): n for n in _TM_NAMES}


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    module = isinstance(collector, pytest.Module)
    if module:
        STATE["collecting"] = collector.nodeid  # a notice at import names the test module
    yield
    if module:
        STATE["collecting"] = None
    mod = getattr(collector, "_obj", None) if isinstance(collector, pytest.Module) else None
    if isinstance(mod, types.ModuleType):
        g = mod.__dict__
        for k, v in list(g.items()):
            if v is _local_tm:
                g[k] = REMOTE_TM
            elif callable(v) and _TM_LOCAL.get(id(v)) and getattr(_local_tm, _TM_LOCAL[id(v)]) is v:
                g[k] = REMOTE_TM.__dict__[_TM_LOCAL[id(v)]]


def _suite_of(item):
    parts = os.path.relpath(str(item.path), "/judge/tests").split(os.sep)
    return tuple(parts[:2])


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    key = None if STATE["one_process"] else _suite_of(item)
    if STATE["suite"] != key:
        # The process that imported the submission at collection goes on as the first
        # suite's: it saw only which of the submission's modules the test modules import,
        # which it could have left in /tmp for any later process anyway (so a fresh one
        # would learn no less), and the first suite then sees the imports of collection
        # as in one interpreter. Every later suite gets a fresh process.
        if STATE["worker"] is not None and STATE["suite"] is not None:
            _retire(STATE["worker"])
        STATE["suite"] = key
    STATE["in_test"], STATE["nodeid"] = True, item.nodeid
    try:
        yield
    finally:
        STATE["in_test"], STATE["nodeid"] = False, None


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session, exitstatus):
    if STATE["worker"] is not None:
        _retire(STATE["worker"])
    if SPARES is not None:
        SPARES.close()  # kills the spares nobody took
    kill_workers()
    if ZYGOTE:
        try:
            ZYGOTE[1].close()
            ZYGOTE[0].kill()
        except Exception:
            pass
    if STATE["coverage"]:
        try:
            import coverage
            cov = coverage.Coverage(data_file=None, source=[WS], branch=True, config_file=False,
                                    omit=["*/test_*.py", "*_test.py", "*/conftest.py"])
            data = cov.get_data()
            data.add_arcs({f: sorted(a) for f, (_l, a) in STATE["coverage"].items()})
            cov.json_report(outfile=os.path.join(OUT, "coverage.json"))
        except Exception:
            pass
'''

PLUGIN = CORE + WORKERS + PROXIES + PATCHES
