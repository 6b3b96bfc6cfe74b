"""The submission's own process under ``judge.isolation: process`` (the default).

``WORKER`` runs after ``WIRE`` (arena/judge/wire.py) as ``python3 -I -B -c <both> RFD WFD``,
started by the trusted plugin (arena/judge/isolation.py) once per suite, fresh, in its own
session. Before any submission code runs it: starts coverage (when importable), installs a
seccomp filter (no ``ptrace``/``process_vm_*``; signals only to itself and processes
started after it, so it cannot kill or inspect the trusted test process), then puts the
submission on ``sys.path``. It serves requests (import, getattr, call, a few operators)
on objects it exports as handles; values that are not plain data never leave it.
"""

from __future__ import annotations

WORKER = r'''
import builtins, ctypes, importlib, operator, os, struct, sys

ZYGOTE = sys.argv[1] == "zygote"  # a fork server started before the submission exists
RFD, WFD = (int(sys.argv[2]), None) if ZYGOTE else (int(sys.argv[1]), int(sys.argv[2]))
WS = os.environ.get("GAUNTLET_JUDGE_WORKSPACE", "/workspace")
for _k in [k for k in os.environ if k.startswith("GAUNTLET_")]:
    del os.environ[_k]
try:
    import coverage as _coverage
    _cov = _coverage.Coverage(data_file=None, source=[WS], branch=True, config_file=False,
                              omit=["*/test_*.py", "*_test.py", "*/conftest.py"])
except Exception:
    _cov = None

# x86_64 / aarch64 syscall numbers: ptrace, process_vm_readv, process_vm_writev, kill, tkill, tgkill, pidfd_open
_ARCH = {0xC000003E: (101, 310, 311, 62, 200, 234, 434), 0xC00000B7: (117, 270, 271, 129, 130, 131, 434)}


def _seccomp():
    me = os.getpid()
    allow, deny = 0x7FFF0000, 0x00050000 | 1  # SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO|EPERM
    prog = []
    for arch, (ptrace, pvr, pvw, kill, tkill, tgkill, pidfd) in _ARCH.items():
        body = [
            (0x20, 0, 0, 0),  # ld nr
            (0x15, "D", 0, ptrace), (0x15, "D", 0, pvr), (0x15, "D", 0, pvw),
            (0x15, "K", 0, kill), (0x15, "P", 0, tkill), (0x15, "P", 0, tgkill), (0x15, "P", 0, pidfd),
            (0x06, 0, 0, allow),
            ("K",), (0x20, 0, 0, 16), (0x15, "A", 0, 0), (0x25, "N", 0, 0x7FFFFFFF),
            (0x35, "A", "D", me),
            ("N",), (0x25, "D", "A", (1 << 32) - me),
            ("P",), (0x20, 0, 0, 16), (0x25, "D", 0, 0x7FFFFFFF), (0x35, "A", "D", me),
            ("A",), (0x06, 0, 0, allow), ("D",), (0x06, 0, 0, deny),
        ]
        labels, ins = {}, []
        for b in body:
            if len(b) == 1:
                labels[b[0]] = len(ins)
            else:
                ins.append(b)
        out = []
        for i, (code, jt, jf, k) in enumerate(ins):
            jt = labels[jt] - i - 1 if isinstance(jt, str) else jt
            jf = labels[jf] - i - 1 if isinstance(jf, str) else jf
            out.append((code, jt, jf, k))
        prog.append((arch, out))
    flat = [(0x20, 0, 0, 4)]  # ld arch
    blocks = [b for _, b in prog]
    # arch dispatch: jeq arch0 -> block0, jeq arch1 -> block1, else allow
    offs, pos = [], 3
    for b in blocks:
        offs.append(pos)
        pos += len(b)
    flat.append((0x15, offs[0] - 2, 0, prog[0][0]))
    flat.append((0x15, offs[1] - 3, 0, prog[1][0]))
    flat.append((0x06, 0, 0, allow))
    for b in blocks:
        flat.extend(b)
    # offs were computed for blocks starting after the 4 header instructions
    flat[1] = (0x15, 4 + 0 - 2, 0, prog[0][0])
    flat[2] = (0x15, 4 + len(blocks[0]) - 3, 0, prog[1][0])
    buf = b"".join(struct.pack("HBBI", c, jt, jf, k) for c, jt, jf, k in flat)
    arr = ctypes.create_string_buffer(buf, len(buf))

    class Prog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(38, 1, 0, 0, 0)  # PR_SET_NO_NEW_PRIVS
    p = Prog(len(flat), ctypes.cast(arr, ctypes.c_void_p))
    return libc.prctl(22, 2, ctypes.byref(p), 0, 0) == 0  # PR_SET_SECCOMP, SECCOMP_MODE_FILTER


try:
    SECCOMP = _seccomp()
except Exception:
    SECCOMP = False

objs, ids, stubs = {}, {}, {}


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


def export(x):
    if isinstance(x, TrustedStub):
        return ["c", object.__getattribute__(x, "_ref")]
    if isinstance(x, type) and issubclass(x, BaseException):
        if x.__module__ == "builtins":
            return ["xb", x.__name__]
        base = next((b for b in x.__mro__[1:] if issubclass(b, BaseException)), Exception)
        return ["x", {"mod": str(x.__module__), "qual": str(x.__qualname__), "name": str(x.__name__),
                      "base": export(base)}]
    r = ids.get(id(x))
    if r is None:
        r = len(objs) + 1
        objs[r], ids[id(x)] = x, r
    return ["o", r]


def resolve(tag, p):
    if tag == "o" and p in objs:
        return objs[p]
    if tag == "c" and type(p) is int:
        s = stubs.get(p)
        if s is None:
            s = stubs[p] = TrustedStub(p)
        return s
    if tag == "xb" and isinstance(getattr(builtins, str(p), None), type) and issubclass(getattr(builtins, p), BaseException):
        return getattr(builtins, p)
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
    return {"cls": export(type(e)), "args": args, "msg": msg}


def dec_exc(p):
    try:
        cls = peer.dec(p.get("cls")) if type(p) is dict else RuntimeError
        args = peer.dec(p.get("args", ["t", []]))
        if not (isinstance(cls, type) and issubclass(cls, BaseException)):
            cls = RuntimeError
        return cls(*args)
    except BaseException:
        return RuntimeError(str(p.get("msg", "")) if type(p) is dict else "error")


OPS = {"len": len, "iter": iter, "next": next, "getitem": operator.getitem, "setitem": operator.setitem,
       "delitem": operator.delitem, "contains": operator.contains, "repr": repr, "str": str, "bool": bool,
       "hash": hash, "int": int, "float": float, "index": operator.index, "isinstance": isinstance,
       "enter": lambda o: o.__enter__(), "exit": lambda o, *a: o.__exit__(*a)}


def coverage_data():
    if _cov is None:
        return None
    _cov.stop()
    data = _cov.get_data()
    out = {f: [sorted(data.lines(f) or []), [list(a) for a in sorted(data.arcs(f) or [])]]
           for f in data.measured_files()}
    _cov.start()
    return out


def handle(q):
    op, args = q[0], [peer.dec(a) for a in q[1:]]
    if op == "path":
        v = importlib.import_module(args[0])
        for name in args[1]:
            v = getattr(v, name)
        return v
    if op == "getattr":
        return getattr(args[0], args[1])
    if op == "setattr":
        return setattr(args[0], args[1], args[2])
    if op == "delattr":
        return delattr(args[0], args[1])
    if op == "call":
        return args[0](*args[1], **args[2])
    if op == "op" and args and args[0] in OPS:
        return OPS[args[0]](*args[1:])
    if op == "coverage":
        return coverage_data()
    raise WireError(f"unknown request {op!r}")


def _zygote(ctrl):
    """Fork one fresh worker per request of the trusted side: it sends its stdout and
    stderr, gets back the worker's end of a new socket pair and its pid. Forked from a
    process that never ran submission code, so every worker starts clean."""
    import signal, socket
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # workers are reaped by the kernel
    sock = socket.socket(fileno=ctrl)
    while True:
        try:
            msg, fds, _f, _a = socket.recv_fds(sock, 16, 2)
        except OSError:
            os._exit(0)
        if not msg or len(fds) != 2:
            os._exit(0)
        mine, theirs = socket.socketpair()
        pid = os.fork()
        if pid == 0:
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            os.dup2(fds[0], 1)
            os.dup2(fds[1], 2)
            for f in fds:
                os.close(f)
            sock.close()
            theirs.close()
            os.setsid()
            return mine.detach()
        for f in fds:
            os.close(f)
        mine.close()
        try:
            socket.send_fds(sock, [str(pid).encode()], [theirs.fileno()])
        except OSError:
            os._exit(0)
        theirs.close()


if ZYGOTE:
    RFD = WFD = _zygote(RFD)
    try:
        SECCOMP = _seccomp() and SECCOMP  # stacked: signals only to this worker and later
    except Exception:
        pass
peer = Peer(RFD, WFD, export, resolve, handle, enc_exc, dec_exc)
importlib.invalidate_caches()  # the workspace may have been empty when the fork server started
sys.path[0:0] = [WS]
_src = os.path.join(WS, "src")
if os.path.isdir(_src) and not os.path.exists(os.path.join(_src, "__init__.py")):
    sys.path.insert(1, _src)
sys.argv = ["pytest"]
# Only the untimed coverage pass traces (the trusted side marks it in this sandbox's own
# /tmp before any worker exists); the timed run is never slowed by a tracer.
if _cov is not None and not os.path.exists("/tmp/.gauntlet-trace"):
    _cov = None
if _cov is not None:
    try:
        _cov.start()
    except Exception:
        _cov = None
peer.send({"hello": {"seccomp": bool(SECCOMP), "pid": os.getpid()}})
while True:
    try:
        msg = peer.recv()
    except WireError:
        os._exit(0)
    if "q" in msg:
        peer.serve(msg["q"])
'''
