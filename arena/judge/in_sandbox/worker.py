"""The submission's own process under ``judge.isolation: process`` (the default).

``WORKER`` (``_HEAD``, seccomp.py's ``SECCOMP``, landlock.py's ``LANDLOCK``, ``_BODY``)
follows ``WIRE`` (arena/judge/in_sandbox/wire.py) in ``/judge/config/gauntlet_worker.py``, run as ``__main__`` by
``wire.BOOT`` (``python3 -I -B -c <boot> ...``, from its bytecode). Normally as a fork
server (``zygote FD``) started before the submission exists, which forks one worker per
request of the trusted plugin (arena/judge/in_sandbox/isolation_workers.py), fresh per suite, in its
own session; ``RFD WFD CTRL`` when started directly. Before any submission code runs a
worker installs a seccomp filter (no ``ptrace``/``process_vm_*``; signals only to itself
and processes started after it) and a Landlock ruleset (nothing under ``/judge`` or
``/judge-out`` in reach), and at its first request puts the submission on
``sys.path`` (and starts coverage in the coverage pass). It serves requests (import,
getattr, call, a few operators, tracemalloc) on objects it exports as handles; values
that are not plain data never leave it. It starts no thread of its own until the trusted
side signals ``SIGRTMIN+4`` for a test's second thread.
"""

from __future__ import annotations

from arena.judge.in_sandbox.landlock import LANDLOCK
from arena.judge.in_sandbox.seccomp import SECCOMP

_HEAD = r"""
import builtins, ctypes, importlib, logging, operator, os, signal, socket, struct, sys, threading, tracemalloc, types, weakref

ZYGOTE = sys.argv[1] == "zygote"  # a fork server started before the submission exists
if ZYGOTE:
    RFD, WFD, CTRL = int(sys.argv[2]), None, None
else:
    RFD, WFD, CTRL = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
WS = os.environ.get("GAUNTLET_JUDGE_WORKSPACE", "/workspace")
for _k in [k for k in os.environ if k.startswith("GAUNTLET_")]:
    del os.environ[_k]
_cov = None
if os.path.exists("/tmp/.gauntlet-trace"):  # the coverage pass (written before any worker)
    try:  # imported only then: a tenth of a second off every other fork server's start
        import coverage as _coverage
        _cov = _coverage.Coverage(data_file=None, source=[WS], branch=True, config_file=False,
                                  omit=["*/test_*.py", "*_test.py", "*/conftest.py"])
    except Exception:
        _cov = None

"""

_BODY = r'''
try:
    SECCOMP = _seccomp()
except Exception:
    SECCOMP = False
try:  # the fork server, before its first fork: no worker ever has the judge's files in view
    LANDLOCKED = _landlock()
except Exception:
    LANDLOCKED = False

objs, ids, sent = {}, {}, {}  # ref -> object, id(object) -> ref, ref -> copies sent
stubs = weakref.WeakValueDictionary()  # the trusted side's objects, while the submission holds them
_next_ref = [0]
_tables = threading.Lock()  # several threads export at once (a test's threads racing)


class TrustedStub:
    """An object of the trusted side's (a test's lambda, generator, clock): usable only
    through requests the trusted side chooses to serve."""
    __slots__ = ("_ref", "__weakref__")

    def __init__(self, ref):
        object.__setattr__(self, "_ref", ref)

    def _op(self, name, *args):
        return peer.request(["op", name, peer.enc(self), *[peer.enc(a) for a in args]])

    def __call__(self, *args, **kwargs):
        return peer.request(["call", peer.enc(self), peer.enc(args), peer.enc(kwargs)])

    def __getattr__(self, name):
        return peer.request(["getattr", peer.enc(self), name])

    def __iter__(self): return self._op("iter")
    def __next__(self): return self._op("next")
    def __len__(self): return self._op("len")
    def __getitem__(self, k): return self._op("getitem", k)
    def __contains__(self, k): return self._op("contains", k)
    def __bool__(self): return self._op("bool")
    def __eq__(self, o): return self._op("eq", o)
    def __ne__(self, o): return self._op("ne", o)
    def __lt__(self, o): return self._op("lt", o)
    def __le__(self, o): return self._op("le", o)
    def __gt__(self, o): return self._op("gt", o)
    def __ge__(self, o): return self._op("ge", o)
    def __hash__(self): return self._op("hash")
    def __repr__(self): return self._op("repr")
    def __str__(self): return self._op("str")
    def __int__(self): return self._op("int")
    def __float__(self): return self._op("float")
    def __index__(self): return self._op("index")
    def __enter__(self): return self._op("enter")
    def __exit__(self, *a): return self._op("exit", *a)

    def __setattr__(self, name, value):  # served for a test's mock objects only
        peer.request(["setattr", peer.enc(self), name, peer.enc(value)])


def export(x):
    if isinstance(x, TrustedStub):
        return ["c", object.__getattribute__(x, "_ref")]
    if isinstance(x, type) and issubclass(x, BaseException):
        if x.__module__ == "builtins":
            return ["xb", x.__name__]
        base = next((b for b in x.__mro__[1:] if issubclass(b, BaseException)), Exception)
        return ["x", {"mod": str(x.__module__), "qual": str(x.__qualname__), "name": str(x.__name__),
                      "base": export(base)}]
    with _tables:
        r = ids.get(id(x))
        if r is None:
            _next_ref[0] += 1
            r = _next_ref[0]
            objs[r], ids[id(x)], sent[r] = x, r, 0
        sent[r] += 1
    return ["o", r]


def release(pairs):
    """The trusted side dropped its handles: (ref, copies it received) each."""
    if type(pairs) is not list:
        return
    with _tables:
        for pr in pairs:
            if type(pr) is list and len(pr) == 2 and type(pr[0]) is int and type(pr[1]) is int and pr[0] in sent:
                sent[pr[0]] -= pr[1]
                if sent[pr[0]] <= 0:
                    x = objs.pop(pr[0])
                    del sent[pr[0]]
                    if ids.get(id(x)) == pr[0]:
                        del ids[id(x)]


def resolve(tag, p):
    if tag == "o" and p in objs:
        return objs[p]
    if tag == "c" and type(p) is int:
        with _tables:
            s = stubs.get(p)
            if s is None:
                s = stubs[p] = TrustedStub(p)
        return s
    if tag == "xb" and isinstance(getattr(builtins, str(p), None), type) and issubclass(getattr(builtins, p), BaseException):
        return getattr(builtins, p)
    if tag == "e" and type(p) is dict:  # an exception of the test's (a ``with`` block's, for __exit__)
        return dec_exc(p)
    if tag == "xm" and type(p) is list and len(p) == 2:
        v = importlib.import_module(p[0])
        for part in str(p[1]).split("."):
            v = getattr(v, part)
        return v
    raise WireError("unknown handle")


def enc_exc(e):
    try:
        msg = str(e)[:100000]
    except BaseException:
        msg = "<unprintable exception>"
    try:
        args = peer.enc(tuple(e.args))
    except BaseException:
        args = ["t", []]
    try:  # what its __init__ kept on it (ConflictError(...).actual)
        d = {k: v for k, v in list(e.__dict__.items())[:64] if type(k) is str and not k.startswith("__")}
        attrs = peer.enc(d)
    except BaseException:
        attrs = ["d", []]
    out = {"cls": export(type(e)), "args": args, "msg": msg, "attrs": attrs}
    t = getattr(e, "__dict__", {}).get("_gauntlet_tref")
    if type(t) is int:  # one of the test's exceptions, raised again
        out["tref"] = t
    return out


def dec_exc(p):
    try:
        cls = peer.dec(p.get("cls")) if type(p) is dict else RuntimeError
        args = peer.dec(p.get("args", ["t", []]))
        if not (isinstance(cls, type) and issubclass(cls, BaseException)):
            cls = RuntimeError
        try:
            e = cls(*args)
        except BaseException:
            e = cls(str(p.get("msg", "")))
    except BaseException:
        e = RuntimeError(str(p.get("msg", "")) if type(p) is dict else "error")
    if type(p) is dict and type(p.get("tref")) is int:
        try:
            e._gauntlet_tref = p["tref"]
        except BaseException:
            pass
    return e


_VIEWS = ((tuple, lambda x: tuple.__getitem__(x, slice(None))), (list, lambda x: list.__getitem__(x, slice(None))),
          (dict, lambda x: dict(dict.items(x))), (frozenset, lambda x: frozenset(frozenset.__iter__(x))),
          (set, lambda x: set(set.__iter__(x))), (str, str.__str__), (bytes, lambda x: bytes.__getitem__(x, slice(None))),
          (bool, lambda x: bool(int.__index__(x))), (int, int.__index__), (float, float.__float__))


def eqv(obj, other):
    """How an object of the submission's compares with a value the test made: by identity
    (``object.__eq__``), by the value of its built-in base when it keeps that base's
    ``__eq__`` (a namedtuple, an IntEnum), else by its own ``__eq__`` (the trusted side
    does not take a "yes" from that one)."""
    eq = getattr(type(obj), "__eq__", None)
    if eq is object.__eq__:
        return ("id", False)
    for base, view in _VIEWS:
        if isinstance(obj, base) and eq is base.__eq__:
            return ("view", view(obj))
    return ("own", obj == other)


def std_class(obj):
    """(module, qualname) of the nearest standard-library class of ``obj`` (its type's MRO,
    ``object`` aside): what the trusted side's ``isinstance(x, types.GeneratorType)`` sees."""
    for c in type(obj).__mro__:
        mod, qual = getattr(c, "__module__", None), getattr(c, "__qualname__", None)
        if c is object or type(mod) is not str or type(qual) is not str:
            continue
        if mod.split(".")[0] in sys.stdlib_module_names or mod == "builtins":
            return [mod, qual]
    return None


OPS = {"cls": std_class, "issubclass": issubclass, "eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "le": operator.le, "gt": operator.gt,
       "ge": operator.ge, "eqv": eqv, "format": format, "round": round, "divmod": divmod,
       **{n: getattr(operator, n) for n in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "lshift",
                                            "rshift", "and_", "or_", "xor", "matmul", "neg", "pos", "abs",
                                            "invert", "iadd", "isub", "imul", "itruediv", "ifloordiv", "imod",
                                            "ipow", "ilshift", "irshift", "iand", "ior", "ixor", "imatmul")},
       "len": len, "iter": iter, "next": next, "getitem": operator.getitem, "setitem": operator.setitem,
       "delitem": operator.delitem, "contains": operator.contains, "repr": repr, "str": str, "bool": bool,
       "hash": hash, "int": int, "float": float, "index": operator.index, "isinstance": isinstance,
       "enter": lambda o: o.__enter__(), "exit": lambda o, *a: o.__exit__(*a)}


def coverage_data():
    if _cov is None:
        return None
    _cov.stop()  # asked for once, when the suite is over: the worker is killed next
    data = _cov.get_data()
    return {f: [sorted(data.lines(f) or []), [list(a) for a in sorted(data.arcs(f) or [])]]
            for f in data.measured_files()}


_armed = []
_arm_lock = threading.Lock()

# What the submission prints and logs goes to the trusted side with the next message
# (wire.Peer ``outbox``), where the test's capture (capsys, caplog) sees it.
_out_lock = threading.Lock()
_outbuf, _logs, _outn = [[], []], [], [0, 0]  # pending text per stream, records, (pending, total)
OUT_CAP = 16 << 20  # per process: past it, output is dropped (the trusted side keeps it in memory)


def _flush_now():
    c = getattr(peer.tl, "chan", None)
    if c is None and threading.current_thread() is threading.main_thread():
        c = peer.main
    if c is not None:
        peer.send(peer._with_out({}), c)


class _Out:
    def __init__(self, i):
        self.i, self.encoding, self.errors = i, "utf-8", "replace"

    def write(self, s):
        if type(s) is not str:
            if not isinstance(s, str):
                raise TypeError(f"write() argument must be str, not {type(s).__name__}")
            s = str.__str__(s)
        with _out_lock:
            if _outn[1] < OUT_CAP:
                _outbuf[self.i].append(s[: OUT_CAP - _outn[1]])
                _outn[0] += len(s)
                _outn[1] += len(s)
            big = _outn[0] > (1 << 20)
        if big:
            _flush_now()
        return len(s)

    def writelines(self, lines):
        for x in lines:
            self.write(x)

    def flush(self):
        pass

    def isatty(self):
        return False

    def fileno(self):
        return self.i + 1

    def writable(self):
        return True


def outbox():
    if not _outn[0] and not _logs:
        return None
    with _out_lock:
        o = ["".join(_outbuf[0]), "".join(_outbuf[1]), _logs[:1000]]
        _outbuf[0].clear()
        _outbuf[1].clear()
        del _logs[:1000]
        _outn[0] = 0
    return o


class _Forward(logging.Handler):
    def emit(self, record):
        try:
            msg = record.getMessage()
        except Exception:
            msg = str(record.msg)
        exc = None
        if record.exc_info:
            try:
                exc = logging.Formatter().formatException(record.exc_info)
            except Exception:
                exc = None
        with _out_lock:
            if len(_logs) < 10000:
                _logs.append([str(record.name), int(record.levelno), msg[:100000], str(record.pathname),
                              int(record.lineno or 0), str(record.funcName), exc])


def _set_env(p):
    if type(p) is not dict:
        return
    if p.get("full"):
        os.environ.clear()
    for k, v in (p.get("set") or {}).items():
        if type(k) is str and type(v) is str and k and "=" not in k and "\0" not in k + v:
            os.environ[k] = v
    for k in p.get("unset") or []:
        os.environ.pop(k, None) if type(k) is str else None


_MISSING = object()
_mirrors = {}


def mirror(mod, path, name, value, delete=False):
    """A test's patch of a module (or class) the submission may use, carried here."""
    v = importlib.import_module(mod)
    for part in path:
        v = getattr(v, part)
    d = getattr(v, "__dict__", None)
    old = d.get(name, _MISSING) if d is not None else getattr(v, name, _MISSING)
    if delete:
        delattr(v, name)
    else:
        setattr(v, name, value)
    token = len(_mirrors) + 1
    while token in _mirrors:
        token += 1
    _mirrors[token] = (v, name, old)
    return token


def unmirror(token):
    got = _mirrors.pop(token, None)
    if got is None:
        return None
    v, name, old = got
    if old is _MISSING:
        try:
            delattr(v, name)
        except AttributeError:
            pass
    else:
        setattr(v, name, old)


def _arm():
    """At the first request, not at start-up: a worker may have been forked ahead of its
    suite, before the submission was in the workspace."""
    global _cov
    with _arm_lock:
        if _armed:
            return
        importlib.invalidate_caches()
        sys.path[0:0] = [WS]
        src = os.path.join(WS, "src")
        if os.path.isdir(src) and not os.path.exists(os.path.join(src, "__init__.py")):
            sys.path.insert(1, src)
        # Only the untimed coverage pass traces (the trusted side marks it in this
        # sandbox's own /tmp first); the timed run is never slowed by a tracer.
        if _cov is not None and not os.path.exists("/tmp/.gauntlet-trace"):
            _cov = None
        if _cov is not None:
            try:
                _cov.start()
            except Exception:
                _cov = None
        sys.stdout, sys.stderr = _Out(0), _Out(1)
        peer.outbox = outbox
        root = logging.getLogger()
        root.addHandler(_Forward())
        root.setLevel(1)  # every record goes; the trusted side keeps those its loggers take
        _armed.append(True)


# tracemalloc, run here for the trusted side (a judge test's ``tracemalloc`` measures this
# process: arena/judge/proxies.py). A sentinel allocated when tracing starts must keep its
# trace: code of the submission's that stops, restarts or clears tracing voids the reading.
_tm = {k: getattr(tracemalloc, k) for k in ("start", "stop", "is_tracing", "get_traced_memory", "reset_peak",
                                             "clear_traces", "get_traceback_limit", "get_tracemalloc_memory",
                                             "take_snapshot", "get_object_traceback")}
TM_OPS = frozenset(_tm)
_tm_sentinel = []


def tm(name, *args):
    if _tm_sentinel and (not _tm["is_tracing"]() or _tm["get_object_traceback"](_tm_sentinel[0]) is None):
        del _tm_sentinel[:]
        if name != "stop":
            raise RuntimeError("judge: tracemalloc was stopped, restarted or cleared inside the "
                               "submission's process: the memory reading is void")
    out = _tm[name](*args)
    if name in ("start", "clear_traces") and _tm["is_tracing"]():
        _tm_sentinel[:] = [object()]
    elif name == "stop":
        del _tm_sentinel[:]
    return out


_NAMED = frozenset(("getattr", "getattrm", "callattr", "setattr", "delattr"))


def _is_method_of(v, obj):
    return isinstance(v, (types.MethodType, types.BuiltinMethodType)) and getattr(v, "__self__", None) is obj


_MUTABLE = {list: list, dict: dict, set: set, bytearray: bytearray}


def _synced(f, a, kw):
    """Call ``f``; the test's lists, dicts, sets and bytearrays among the arguments that the
    call changed in place go back with the reply (wire.Synced)."""
    if type(a) is not tuple or type(kw) is not dict:
        return f(*a, **kw)
    before = [(i, x, _MUTABLE[type(x)](x)) for i, x in enumerate(a) if type(x) in _MUTABLE]
    before += [(k, x, _MUTABLE[type(x)](x)) for k, x in kw.items() if type(x) in _MUTABLE]
    v = f(*a, **kw)
    if not before:
        return v
    changed = []
    for k, x, old in before:
        try:
            same = type(x) is type(old) and x == old
        except Exception:
            same = False
        if not same:
            changed.append([k, x])
    return Synced(v, changed) if changed else v


def handle(q):
    if not _armed:
        _arm()
    while len(q) >= 3 and q[0] in ("rel", "cwd", "env"):  # state to follow, then the request
        if q[0] == "rel":  # handles the trusted side let go of
            release(q[1])
        elif q[0] == "cwd" and type(q[1]) is str:  # the test's working directory
            try:
                os.chdir(q[1])
            except OSError:
                pass
        elif q[0] == "env":  # the test's environment (monkeypatch.setenv)
            _set_env(q[1])
        q = q[2:]
    op, args = q[0], [peer.dec(a) for a in q[1:]]
    if op in _NAMED and len(args) >= 2 and type(args[1]) is str:
        # Interned: the type attribute cache holds the name object it was looked up with,
        # one slot per object; fresh copies of one name would fill it (and the memory a
        # test measures) up to 4096 entries.
        args[1] = sys.intern(args[1])
    if op == "path":
        v = importlib.import_module(args[0])
        for name in args[1]:
            v = getattr(v, sys.intern(name) if type(name) is str else name)
        return v
    if op == "getattr":
        return getattr(args[0], args[1])
    if op == "getattrm":  # a bound method of the object is not sent: called by "callattr"
        v = getattr(args[0], args[1])
        return ("m", None) if _is_method_of(v, args[0]) else ("v", v)
    if op == "callattr":
        return _synced(getattr(args[0], args[1]), args[2], args[3])
    if op == "setattr":
        return setattr(args[0], args[1], args[2])
    if op == "delattr":
        return delattr(args[0], args[1])
    if op == "call":
        return _synced(args[0], args[1], args[2])
    if op == "op" and args and args[0] in OPS:
        return OPS[args[0]](*args[1:])
    if op == "setpath" and len(args) == 3:  # mock.patch / monkeypatch of the submission's module
        return setattr(importlib.import_module(args[0]), args[1], args[2])
    if op == "delpath" and len(args) == 2:
        return delattr(importlib.import_module(args[0]), args[1])
    if op == "mirror" and len(args) == 5:
        return mirror(args[0], args[1], args[2], args[3], args[4])
    if op == "unmirror" and len(args) == 1:
        return unmirror(args[0])
    if op == "coverage":
        return coverage_data()
    if op == "tm" and args and args[0] in TM_OPS:
        return tm(args[0], *args[1:])
    raise WireError(f"unknown request {op!r}")


def _zygote(ctrl):
    """Fork one fresh worker per request of the trusted side: it sends its stdout and
    stderr, gets back the worker's end of a new socket pair and its pid. Forked from a
    process that never ran submission code, so every worker starts clean."""
    import gc, signal, socket
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # workers are reaped by the kernel
    sock = socket.socket(fileno=ctrl)
    try:  # not dumpable, nor its workers: no /proc/<pid>/mem of one worker for another
        ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0
    except Exception:
        pass
    if _cov is not None:
        try:  # the coverage pass: its set-up done once here, not in every worker
            _cov.start()
            _cov.stop()
        except Exception:
            pass
    gc.freeze()  # what is here stays: no collection in a worker touches (copies) it
    while True:
        try:
            msg, fds, _f, _a = socket.recv_fds(sock, 16, 2)
        except OSError:
            os._exit(0)
        if not msg or len(fds) != 2:
            os._exit(0)
        mine, theirs = socket.socketpair()
        cmine, ctheirs = socket.socketpair()  # channels of the test's other threads
        pid = os.fork()
        if pid == 0:
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            os.dup2(fds[0], 1)
            os.dup2(fds[1], 2)
            for f in fds:
                os.close(f)
            sock.close()
            theirs.close()
            ctheirs.close()
            os.setsid()
            return mine.detach(), cmine.detach()
        for f in fds:
            os.close(f)
        mine.close()
        cmine.close()
        try:
            socket.send_fds(sock, [str(pid).encode()], [theirs.fileno(), ctheirs.fileno()])
        except OSError:
            os._exit(0)
        theirs.close()
        ctheirs.close()


if ZYGOTE:
    RFD, CTRL = _zygote(RFD)
    WFD = RFD
    try:
        SECCOMP = _seccomp() and SECCOMP  # stacked: signals only to this worker and later
    except Exception:
        pass
peer = Peer(RFD, WFD, export, resolve, handle, enc_exc, dec_exc, ctrl=socket.socket(fileno=CTRL))
sys.argv = ["pytest"]
# No thread until a test's second thread needs one: the trusted side sends WAKE (a
# real-time signal, which a submission is unlikely to want for itself) with its first
# extra channel; the handler runs in the main thread even while it waits in a call. A
# worker without threads survives a submission's kill loop over the pids above it.
def _wake(_s, _f):
    try:
        peer.start_accepting()
    except Exception:  # never into whatever the main thread was running
        pass


signal.signal(signal.SIGRTMIN + 4, _wake)
peer.send({"hello": {"seccomp": bool(SECCOMP), "landlock": bool(LANDLOCKED), "pid": os.getpid()}})
while True:
    try:
        msg = peer.recv()
    except WireError:
        os._exit(0)
    if "q" in msg:
        peer.serve(msg["q"])
'''

WORKER = _HEAD + SECCOMP + LANDLOCK + _BODY
