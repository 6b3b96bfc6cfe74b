"""The trusted plugin's second part: the submission's processes, seen from the trusted side.

Part of ``gauntlet_isolation.py`` (``CORE`` of isolation.py, then ``WORKERS``, then
``PROXIES`` of proxies.py). ``Worker``: one submission process, forked by the fork server
(or started with ``python3 -I -B -c`` when there is none), its ``Peer`` (wire.py) with
channels for the test's other threads, the handles it sent (one ``Remote`` per ref while
any is alive; (ref, copies received) goes back with the next request once it dies, so the
worker lets go of the object), the methods seen on each handle (so ``obj.m(...)`` is one
request) and the test objects it was given. ``call(q)``: one request of a test to the
current suite's worker, started on first use and again after it died. ``kill_workers``:
every process started since the first worker (all of them the submission's).
"""

from __future__ import annotations

WORKERS = r'''

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


_ENV = {}  # the workers' environment (activate())


def _zygote():
    """The fork server: started by the launcher before the submission existed
    (``GAUNTLET_JUDGE_ZYGOTE=<pid>,<fd>``), else now, while pytest collects."""
    import socket
    got = os.environ.pop("GAUNTLET_JUDGE_ZYGOTE", "")
    try:
        if got:
            pid, fd = (int(x) for x in got.split(","))
            return _Child(pid), socket.socket(fileno=fd)
        proc, ctrl = start_zygote(HERE, _ENV)
        return proc, ctrl
    except Exception:
        return None


ZYGOTE = None  # (the fork server, its control socket), activate()


class _Spares:
    """Workers forked ahead of their suite by a thread of this process (so their pids, and
    with them what their seccomp filter lets them signal, are above this one's): idle and
    having seen nothing until taken, so a suite's first call waits for no fork."""

    TARGET = 1

    def __init__(self, ctrl):
        self.ctrl, self.q, self.want = ctrl, queue.Queue(), threading.Semaphore(self.TARGET)
        self.lock, self.pids, self.done, self.dead = threading.Lock(), set(), False, False
        threading.Thread(target=self._fill, daemon=True, name="gauntlet-spares").start()

    def _fill(self):
        while True:
            self.want.acquire()
            with self.lock:  # kill_workers waits for a fork in progress: its pid is known
                if self.done:
                    return
                got = zygote_spawn(self.ctrl, _STDOUT, _STDERR)
                if got is not None:
                    self.pids.add(got[0])
            self.q.put(got)
            if got is None:
                self.dead = True
                return

    def take(self):
        if self.dead and self.q.empty():
            return None
        self.want.release()  # its successor
        try:
            got = self.q.get(timeout=30)
        except queue.Empty:
            return None
        if got is not None:
            with self.lock:
                self.pids.discard(got[0])
        return got

    def close(self):
        with self.lock:
            self.done = True
            pids = set(self.pids)
        self.want.release()
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


SPARES = None  # activate()


class _Listener:
    """One thread, started before any worker, that takes the channels workers open (a
    submission's own thread calling back a test's object). A thread started later has a
    thread id above the worker's pid, which the worker's seccomp filter lets it signal;
    so no thread of this process is started per worker."""

    def __init__(self):
        import selectors
        self.sel, self.lock = selectors.DefaultSelector(), threading.Lock()
        self.r, self.w = os.pipe()
        self.sel.register(self.r, selectors.EVENT_READ, None)
        threading.Thread(target=self._run, daemon=True, name="gauntlet-listener").start()

    def add(self, peer):
        import selectors
        with self.lock:
            self.sel.register(peer.ctrl, selectors.EVENT_READ, peer)
        os.write(self.w, b"x")

    def drop(self, peer):
        with self.lock:
            try:
                self.sel.unregister(peer.ctrl)
            except (KeyError, ValueError, OSError):
                pass
        os.write(self.w, b"x")

    def _run(self):
        while True:
            for key, _ev in self.sel.select():
                if key.data is None:
                    os.read(self.r, 512)
                elif not key.data.accept_one():
                    self.drop(key.data)


LISTENER = None  # activate()


def _take_spare():
    """A forked worker that answered its hello: (pid, Peer-ready fds, hello) or None."""
    import select
    for _ in range(3):
        got = SPARES.take() if SPARES else None
        if got is None:
            return None
        pid, fd, cfd = got
        try:
            os.kill(pid, signal.SIGCONT)  # an earlier worker may have stopped it
        except OSError:
            pass
        if select.select([fd], [], [], 10)[0]:
            return got
        for f in (fd, cfd):
            os.close(f)
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    return None


class Worker:
    gen = 0

    def __init__(self):
        Worker.gen += 1
        self.gen = Worker.gen
        self.table, self.back, self.lock = {}, {}, threading.RLock()
        # Handles of the submission's objects, one Remote per ref while any is alive, with
        # the number of times the worker sent it: when the Remote dies, (ref, count) goes
        # back with the next request and the worker lets go of the object once it has
        # been told of every copy it sent (so handles do not pin the submission's memory).
        self.remotes, self.released, self.methods, self.classes = {}, collections.deque(), {}, {}
        for attempt in range(4):  # a spare an earlier worker killed is replaced
            got = _take_spare() if attempt < 3 else None
            self._start(got)
            try:
                hello = self.peer.recv()
                if got is None or self._alive():
                    break
            except WireError:
                if got is None:
                    self.stop()
                    raise
            self.stop()
        if STATE["first_pid"] is None:
            STATE["first_pid"] = self.proc.pid
        self.peer.on_out = _on_out
        self.cwd, self.env, self.env_raw = None, None, None  # the test's, as the worker last heard of them
        self.mirrors = {}  # the test's patches applied in this worker (isolation_patches.py)
        LISTENER.add(self.peer)
        self.info = hello.get("hello") if type(hello) is dict else None

    def _alive(self):
        """A spare's hello may have been sent before an earlier worker killed it."""
        import select
        if self.proc.poll() is not None:
            return False
        fd = self.peer.main.wfd
        if select.select([fd], [], [], 0)[0]:
            try:
                return socket.socket(fileno=os.dup(fd)).recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) != b""
            except OSError:
                return False
        return True

    def _start(self, got):
        if got is not None:  # forked by the fork server: no interpreter start-up
            self.proc = _Child(got[0])
            b_r = a_w = got[1]
            ctrl = socket.socket(fileno=got[2])
        else:
            a_r, a_w = os.pipe()  # trusted -> worker
            b_r, b_w = os.pipe()  # worker -> trusted
            ctrl, c_w = socket.socketpair()  # channels of the test's other threads
            self.proc = subprocess.Popen(
                worker_argv(HERE, str(a_r), str(b_w), str(c_w.fileno())),
                pass_fds=(a_r, b_w, c_w.fileno()), stdin=subprocess.DEVNULL, stdout=_STDOUT, stderr=_STDERR,
                start_new_session=True, env=_ENV)
            os.close(a_r)
            os.close(b_w)
            c_w.close()
        pid = self.proc.pid
        self.peer = Peer(b_r, a_w, self.export, self.resolve, self.handle, self.enc_exc, self.dec_exc, ctrl=ctrl,
                         wake=lambda: os.kill(pid, signal.SIGRTMIN + 4))  # worker.py: _wake

    def stop(self):
        try:
            self.proc.kill()
            self.proc.wait(timeout=5)
        except Exception:
            pass
        self.peer.broken = self.peer.broken or "the submission's process was stopped"
        self.peer.main.close()
        LISTENER.drop(self.peer)
        try:
            self.peer.ctrl.shutdown(socket.SHUT_RDWR)
            self.peer.ctrl.close()
        except OSError:
            pass

    # values of the trusted side crossing to the worker
    def export(self, x):
        if isinstance(x, Remote):
            if x._gen != self.gen:
                raise WireError("an object of the submission's from an earlier process")
            return ["o", x._ref]
        if isinstance(x, (Lazy, BoundCall)):
            return self.peer.enc(x._value())
        if isinstance(x, type) and "_gauntlet_key" in x.__dict__:
            return ["xm", list(x._gauntlet_key)]
        if isinstance(x, type) and issubclass(x, BaseException) and x.__module__ == "builtins":
            return ["xb", x.__name__]
        if isinstance(x, BaseException):  # (a ``with`` block's exception for __exit__): by class and message
            return ["e", self.enc_exc(x)]
        if isinstance(x, types.TracebackType):
            return None  # frames never cross
        return ["c", self._tref(x)]

    def _tref(self, x):
        with self.lock:
            r = self.back.get(id(x))
            if r is None:
                r = len(self.table) + 1
                self.table[r], self.back[id(x)] = x, r
        return r

    def resolve(self, tag, p):
        if tag == "o" and type(p) is int:
            with self.lock:
                ent = self.remotes.get(p)
                r = ent[0]() if ent is not None else None
                if r is None:
                    r = Remote(self.gen, p)
                    ent = self.remotes[p] = [weakref.ref(r, lambda wr, p=p: self._dead(p, wr)), 0]
                ent[1] += 1
            return r
        if tag == "c" and p in self.table:
            return self.table[p]
        if tag == "xb":
            b = getattr(builtins, str(p), None)
            if isinstance(b, type) and issubclass(b, BaseException):
                return b
            return Exception
        if tag == "x" and type(p) is dict:
            real = stdlib_exception(str(p.get("mod")), str(p.get("qual")))
            if real is not None:
                return real
            base = self.peer.dec(p.get("base", ["xb", "Exception"]))
            return mirror(str(p.get("mod")), str(p.get("qual")), base)
        raise WireError("the submission's process sent an unknown handle")

    def _dead(self, ref, wr):
        with self.lock:
            ent = self.remotes.get(ref)
            if ent is not None and ent[0] is wr:
                del self.remotes[ref]
                self.methods.pop(ref, None)
                self.classes.pop(ref, None)
                self.released.append([ref, ent[1]])

    def take_released(self):
        out = []
        try:
            while len(out) < 4096:
                out.append(self.released.popleft())
        except IndexError:
            pass
        return out

    SAFE_OPS = {"iter": iter, "next": next, "len": len, "getitem": lambda o, k: o[k],
                "contains": lambda o, k: k in o, "bool": bool, "eq": lambda a, b: a == b,
                "ne": lambda a, b: a != b, "lt": lambda a, b: a < b, "le": lambda a, b: a <= b,
                "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b, "hash": hash, "repr": repr,
                "str": str, "int": int, "float": float, "index": lambda o: o.__index__(),
                "enter": lambda o: o.__enter__(), "exit": lambda o, *a: o.__exit__(*a)}

    def handle(self, q):  # the submission asking something of a test's object
        op, args = q[0], [self.peer.dec(a) for a in q[1:]]
        if op == "call" and len(args) == 3 and callable(args[0]):
            return args[0](*args[1], **args[2])
        if op == "op" and args and args[0] in self.SAFE_OPS:
            return self.SAFE_OPS[args[0]](*args[1:])
        if op == "setattr" and len(args) == 3 and type(args[1]) is str and not args[1].startswith("_"):
            import unittest.mock
            if isinstance(args[0], (unittest.mock.NonCallableMock, types.SimpleNamespace)):
                return setattr(args[0], args[1], args[2])
            notice("setattr-test-object", f"the submission set attribute {args[1]!r} on a test's object "
                   f"({type(args[0]).__name__}); refused across the process boundary")
            raise PermissionError(f"the judge does not let the submission set {args[1]!r} on a test's object")
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
        # tref: when the submission raises it again (retry's ``raise last``), the test gets
        # its own exception object back (its own class, ``pytest.raises(GiveUp)``)
        return {"cls": cls, "args": args, "msg": str(e)[:100000], "tref": self._tref(e)}

    def dec_exc(self, p):
        t = p.get("tref") if type(p) is dict else None
        if type(t) is int and isinstance(self.table.get(t), BaseException):
            return self.table[t]  # one of the test's own exceptions, raised again by the submission
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
            try:
                e = cls(msg)
            except Exception:
                return RuntimeError(f"the submission raised {getattr(cls, '__name__', '?')}: {msg}")
        if "_gauntlet_key" in cls.__dict__ and type(msg) is str:
            e._gauntlet_msg = msg
        try:
            attrs = self.peer.dec(p.get("attrs", ["d", []]))
        except Exception:
            attrs = None
        if type(attrs) is dict:  # instance data only: never a name the class defines
            for k, v in attrs.items():
                if type(k) is str and k.isidentifier() and not k.startswith(("_gauntlet", "__")) and not hasattr(cls, k):
                    try:
                        setattr(e, k, v)
                    except Exception:
                        pass
        return e


STATE = {"worker": None, "suite": None, "coverage": {}, "in_test": False, "first_pid": None, "one_process": False}


def kill_workers():
    """Kill every process started since the first worker (all of them the submission's:
    this process starts nothing else), also those that left the worker's session, but
    the spares. Not ``kill(-1)``: that would also end the sandbox's exec wrapper."""
    first = STATE["first_pid"]
    if first is None:
        return
    if SPARES is None:
        return _kill_from(first, set())
    with SPARES.lock:  # the spares (forked by this process's thread, idle) stay
        _kill_from(first, set(SPARES.pids))


def _kill_from(first, keep):
    me = os.getpid()
    try:
        pids = [int(d) for d in os.listdir("/proc") if d.isdigit()]
    except OSError:
        return
    for pid in pids:
        if pid >= first and pid != me and pid not in keep:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


_WORKER_LOCK = threading.RLock()  # a test's threads may all want a fresh worker at once


def worker():
    w = STATE["worker"]
    if w is not None and not w.peer.broken and w.proc.poll() is None:
        return w
    with _WORKER_LOCK:
        w = STATE["worker"]
        if w is None or w.peer.broken or w.proc.poll() is not None:
            if w is not None:
                _retire(w)
            w = STATE["worker"] = Worker()
        return w


def _retire(w):
    with _WORKER_LOCK:
        _retire_locked(w)


def _retire_locked(w):
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


def _on_out(o):
    """What the worker printed and logged, into this process's (the test's capture)."""
    if type(o) is not list or len(o) != 3:
        return
    out, err, logs = o
    if type(out) is str and out:
        sys.stdout.write(out)
    if type(err) is str and err:
        sys.stderr.write(err)
    if type(logs) is list and logs:
        import logging
        for r in logs[:1000]:
            if type(r) is not list or len(r) != 7 or type(r[0]) is not str or type(r[1]) is not int:
                continue
            lg = logging.getLogger(r[0]) if r[0] != "root" else logging.getLogger()
            if not lg.isEnabledFor(r[1]):
                continue
            lg.handle(logging.makeLogRecord({
                "name": r[0], "levelno": r[1], "levelname": logging.getLevelName(r[1]), "msg": str(r[2]),
                "args": None, "pathname": str(r[3]), "lineno": r[4] if type(r[4]) is int else 0,
                "funcName": str(r[5]), "exc_text": r[6] if type(r[6]) is str else None}))


def _env_now():
    return {k: v for k, v in os.environ.items() if not k.startswith("GAUNTLET_")}


_ENV_RAW = getattr(os.environ, "_data", None)  # compared per call (a C dict comparison)


def _follow(w, req):
    """The test's working directory and environment, sent ahead of a request when changed."""
    try:
        cwd = os.getcwd()
    except OSError:
        cwd = None
    if cwd is not None and cwd != w.cwd:
        req = ["cwd", cwd, *req]
        w.cwd = cwd
    raw = _ENV_RAW
    if raw is None or w.env is None or raw != w.env_raw:
        env = _env_now()
        w.env_raw = dict(raw) if raw is not None else None
    else:
        env = w.env
    if env != w.env:
        if w.env is None:
            diff = {"full": True, "set": env}
        else:
            diff = {"set": {k: v for k, v in env.items() if w.env.get(k) != v},
                    "unset": [k for k in w.env if k not in env]}
        req = ["env", diff, *req]
        w.env = env
    return req


def call(q):
    w = worker()
    try:
        if _ACTIVE_MIRRORS or w.mirrors:
            _sync_mirrors(w)
        req = _follow(w, [q[0], *[w.peer.enc(a) for a in q[1:]]])
        if w.released:
            req = ["rel", w.take_released(), *req]
        got = w.peer.request(req)
        synced = getattr(w.peer.tl, "synced", None)
        if synced:
            w.peer.tl.synced = None
            _apply_synced(w, q, synced)
        return got
    except WireError as e:
        _retire(w)
        raise RuntimeError(f"judge: {e}") from None


_IN_PLACE = (list, dict, set, bytearray)


def _apply_synced(w, q, synced):
    """The call changed the test's containers it was given: the same change here."""
    if q[0] == "call" and len(q) == 4:
        args, kwargs = q[2], q[3]
    elif q[0] == "callattr" and len(q) == 5:
        args, kwargs = q[3], q[4]
    else:
        return
    if type(synced) is not list:
        return
    for item in synced[:256]:
        if type(item) is not list or len(item) != 2:
            continue
        k, v = item
        target = args[k] if type(k) is int and 0 <= k < len(args) else kwargs.get(k) if type(k) is str else None
        if type(target) not in _IN_PLACE:
            continue
        new = w.peer.dec(v)
        if type(new) is not type(target):
            continue
        if type(target) in (list, bytearray):
            target[:] = new
        else:
            target.clear()
            target.update(new)
'''
