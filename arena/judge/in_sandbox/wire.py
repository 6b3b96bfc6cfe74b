"""The data-only boundary between the trusted test process and the submission's process.

``WIRE`` is written read-only into the sandbox as ``/judge/config/gauntlet_wire.py`` and
imported by both sides (arena/judge/in_sandbox/isolation.py). One message per line, JSON, at most
``MAX_LINE`` bytes; values are plain data only:

- ``None``, ``bool``, ``int``, ``float``, ``str`` as themselves (exact types only: an
  ``int`` subclass is not plain);
- ``["l", [...]]`` list, ``["t", [...]]`` tuple, ``["d", [[k, v], ...]]`` dict,
  ``["s", [...]]`` set, ``["z", [...]]`` frozenset, ``["b", base64]`` bytes;
- anything else crosses as a handle the other side can only use through requests:
  ``["o", ref]`` an object of the submission's, ``["c", ref]`` an object of the trusted
  side's (a lambda, a generator, a test's clock), ``["x", desc]`` an exception class of the
  submission's (mirrored on the trusted side by name, built on its built-in base),
  ``["xb", name]`` a built-in exception class.

Requests are ``{"q": [op, ...]}``; replies ``{"r": value}`` or ``{"e": {"cls", "args",
"msg"}}``. Either side, while waiting for its reply, serves the other's requests on the
same channel (the submission calling back a test's lambda), so a call can nest. Each
thread that makes requests has a channel of its own (``Peer.chan``): a test's threads
calling the submission at once are served by as many threads in the submission's
process, at the same time. Nothing here ever evaluates what it receives beyond
``json.loads`` and building built-in containers.
"""

from __future__ import annotations

WIRE = r'''
import base64, collections as _collections, json, os, threading
import datetime as _dt, decimal as _decimal, enum as _enum, fractions as _fractions, pathlib as _pathlib, uuid as _uuid

# Bound once: a test (or a submission) that patches json.dumps or os.write must not cut
# the boundary itself (a patch of a standard-library function is carried into the worker).
_dumps, _loads, _write, _fdopen, _b64e, _b64d = json.dumps, json.loads, os.write, os.fdopen, base64.b64encode, base64.b64decode

MAX_LINE = 16 << 20
MAX_DEPTH = 64
SCALARS = (type(None), bool, int, float, str)


class WireError(Exception):
    """The submission's process ended, or sent something that is not a message."""


BOOT = ("import sys; sys.path.insert(0, %r); import importlib.util as u; s = u.find_spec('gauntlet_worker'); "
        "del sys.path[0]; exec(s.loader.get_code(s.name), {'__name__': '__main__'})")


def worker_argv(config_dir, *args):
    """``python3 -I -B -c <boot> args``: the worker's code (gauntlet_worker.py, wire and
    worker) run as ``__main__`` from its precompiled bytecode when there is one."""
    import sys
    return [sys.executable, "-I", "-B", "-c", BOOT % config_dir, *args]


def start_zygote(config_dir, env=None):
    """Start the worker's fork server (``worker_argv(dir, "zygote", FD)``) before any
    submission code exists; (Popen, control socket)."""
    import socket, subprocess
    ours, theirs = socket.socketpair()
    proc = subprocess.Popen(worker_argv(config_dir, "zygote", str(theirs.fileno())),
                            pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL,
                            start_new_session=True, env=env)
    theirs.close()
    return proc, ours


def zygote_spawn(ctrl, out_fd, err_fd):
    """One fresh worker from the fork server: (pid, socket fd, control socket fd) or None."""
    import socket
    try:
        socket.send_fds(ctrl, [b"s"], [out_fd, err_fd])
        msg, fds, _f, _a = socket.recv_fds(ctrl, 32, 2)
    except OSError:
        return None
    if not msg or len(fds) != 2:
        for f in fds:
            os.close(f)
        return None
    return int(msg), fds[0], fds[1]


def _tz_enc(tz):
    if tz is None:
        return None
    if tz is _dt.timezone.utc:
        return ["utc"]
    if type(tz) is _dt.timezone:
        off = tz.utcoffset(None)
        return ["fixed", [off.days, off.seconds, off.microseconds], tz.tzname(None)]
    if type(tz).__module__ == "zoneinfo" and type(tz).__name__ == "ZoneInfo" and type(getattr(tz, "key", None)) is str:
        return ["zone", tz.key]
    raise TypeError("tzinfo")


def _tz_dec(p):
    if p is None:
        return None
    if p == ["utc"]:
        return _dt.timezone.utc
    if type(p) is list and len(p) == 3 and p[0] == "fixed" and type(p[2]) is str and type(p[1]) is list:
        return _dt.timezone(_dt.timedelta(*[int(x) for x in p[1][:3]]), p[2])
    if type(p) is list and len(p) == 2 and p[0] == "zone" and type(p[1]) is str:
        import zoneinfo
        return zoneinfo.ZoneInfo(p[1])
    raise ValueError("tzinfo")


_PATHS = {c.__name__: c for c in (_pathlib.PurePosixPath, _pathlib.PosixPath, _pathlib.PurePath, _pathlib.Path)}


def _stdlib_enum(x):
    """(module, qualname, member) of a member of a standard-library enum class, else None."""
    import sys
    t = type(x)
    mod, qual = getattr(t, "__module__", ""), getattr(t, "__qualname__", "")
    if type(mod) is not str or mod.split(".")[0] not in sys.stdlib_module_names or "<" in qual:
        return None
    return [mod, qual, x.name] if type(x.name) is str else None


def _enum_dec(p):
    import importlib, sys
    if type(p) is not list or len(p) != 3 or not all(type(v) is str for v in p):
        raise ValueError("enum")
    mod, qual, name = p
    if mod.split(".")[0] not in sys.stdlib_module_names:
        raise ValueError("enum")
    v = sys.modules.get(mod) or importlib.import_module(mod)
    for part in qual.split("."):
        v = vars(v).get(part)
    if not (isinstance(v, type) and issubclass(v, _enum.Enum)):
        raise ValueError("enum")
    return v.__members__[name]


# Values of standard-library value types cross by value: each is rebuilt on the other side
# from plain fields by its own constructor (exact types only; a subclass is a handle).
VALUE_ENC = {
    _dt.date: lambda x: ["date", [x.year, x.month, x.day]],
    _dt.datetime: lambda x: ["datetime", [x.year, x.month, x.day, x.hour, x.minute, x.second, x.microsecond,
                                          x.fold, _tz_enc(x.tzinfo)]],
    _dt.time: lambda x: ["time", [x.hour, x.minute, x.second, x.microsecond, x.fold, _tz_enc(x.tzinfo)]],
    _dt.timedelta: lambda x: ["timedelta", [x.days, x.seconds, x.microseconds]],
    _dt.timezone: lambda x: ["timezone", _tz_enc(x)],
    _decimal.Decimal: lambda x: ["decimal", str(x)],
    _fractions.Fraction: lambda x: ["fraction", [x.numerator, x.denominator]],
    _uuid.UUID: lambda x: ["uuid", x.hex],
    complex: lambda x: ["complex", [x.real, x.imag]],
    bytearray: lambda x: ["bytearray", _b64e(bytes(x)).decode()],
    range: lambda x: ["range", [x.start, x.stop, x.step]],
    **{c: (lambda x: ["path", [type(x).__name__, str(x)]]) for c in _PATHS.values()},
}
def _ints(p, n):
    if type(p) is not list or len(p) < n or not all(type(v) is int for v in p[:n]):
        raise ValueError("fields")
    return p[:n]


VALUE_DEC = {
    "date": lambda p: _dt.date(*_ints(p, 3)),
    "datetime": lambda p: _dt.datetime(*_ints(p, 7), tzinfo=_tz_dec(p[8]), fold=_ints(p, 8)[7]),
    "time": lambda p: _dt.time(*_ints(p, 4), tzinfo=_tz_dec(p[5]), fold=_ints(p, 5)[4]),
    "timedelta": lambda p: _dt.timedelta(*_ints(p, 3)),
    "timezone": _tz_dec,
    "decimal": lambda p: _decimal.Decimal(p) if type(p) is str else _decimal.Decimal(0),
    "fraction": lambda p: _fractions.Fraction(*_ints(p, 2)),
    "uuid": lambda p: _uuid.UUID(hex=p) if type(p) is str else _uuid.UUID(int=0),
    "complex": lambda p: complex(*[float(v) for v in p[:2]] if type(p) is list and all(type(v) in (int, float) for v in p[:2]) else (0, 0)),
    "bytearray": lambda p: bytearray(_b64d(p)) if type(p) is str else bytearray(),
    "range": lambda p: range(*_ints(p, 3)),
    "path": lambda p: _PATHS[p[0]](p[1]) if type(p) is list and len(p) == 2 and p[0] in _PATHS and type(p[1]) is str else None,
    "enum": _enum_dec,
}


# collections' containers cross by value too (their contents encoded as plain data).
_COLLECTIONS = {_collections.Counter: "counter", _collections.OrderedDict: "ordereddict",
                _collections.defaultdict: "defaultdict", _collections.deque: "deque"}
_COLLECTION_NAMES = {"counter": _collections.Counter, "ordereddict": _collections.OrderedDict,
                     "defaultdict": _collections.defaultdict, "deque": _collections.deque}
_FACTORIES = {"none": None, "int": int, "float": float, "str": str, "list": list, "dict": dict, "set": set,
              "tuple": tuple}


class Synced:
    """A call's result and the new contents of the test's lists, dicts, sets and bytearrays it
    was given and changed in place (``sort_in_place(xs)``): ``[[position or keyword, value]]``,
    sent with the reply (``"m"``) and copied into the test's own objects."""
    __slots__ = ("value", "states")

    def __init__(self, value, states):
        self.value, self.states = value, states


class Chan:
    """One conversation: a socket (or a pipe pair) that exactly one thread per side reads
    and writes, so a call and the callbacks it nests stay on the threads that made them."""

    def __init__(self, rfd, wfd):
        self.r = _fdopen(os.dup(rfd) if rfd == wfd else rfd, "rb", buffering=1 << 16)
        self.wfd = wfd

    def close(self):
        try:
            self.r.close()
        except Exception:
            pass
        try:
            os.close(self.wfd)
        except OSError:
            pass

    def send(self, msg):
        data = _dumps(msg, separators=(",", ":")).encode() + b"\n"
        view = memoryview(data)
        while view:
            n = _write(self.wfd, view)
            view = view[n:]

    def recv(self):
        """The next message, or None at the end of the stream; raises WireError (a reason)."""
        try:
            line = self.r.readline(MAX_LINE + 1)
        except (OSError, ValueError):
            line = b""
        if not line:
            return None
        if len(line) > MAX_LINE or not line.endswith(b"\n"):
            raise WireError("the submission's process sent an oversized message")
        try:
            msg = _loads(line)
        except (ValueError, RecursionError):
            msg = None
        if type(msg) is not dict:
            raise WireError("the submission's process sent a garbled message")
        return msg


class _Closer:
    """Held in a thread's locals only: the channel the thread opened closes when it ends
    (the other side's thread serving it then ends too)."""
    __slots__ = ("chan",)

    def __init__(self, chan):
        self.chan = chan

    def __del__(self):
        self.chan.close()


class Peer:
    """One end of the boundary. ``export(x)`` makes the handle for a non-plain value,
    ``resolve(tag, payload)`` turns a received handle into a local value, ``handle(q)``
    serves one request of the other side (raises to send an error).

    The main thread talks over the first channel (``rfd``/``wfd``). Any other thread that
    makes a request opens a channel of its own: a new socket pair whose far end goes over
    ``ctrl`` (a unix socket) to the other side, where a thread is started to serve it. So
    calls from several threads run at once on both sides (a test's threads racing on the
    submission's object race in the submission's process), while a single-threaded test
    pays nothing for it: each thread reads its own channel, no dispatcher in between."""

    MAX_CHANNELS = 64  # channels the other side may have open here at once

    def __init__(self, rfd, wfd, export, resolve, handle, enc_exc, dec_exc, ctrl=None, wake=None):
        self.main = Chan(rfd, wfd)
        self.ctrl, self.wake, self.accepting = ctrl, wake, False
        self.export, self.resolve, self.handle = export, resolve, handle
        self.enc_exc, self.dec_exc = enc_exc, dec_exc
        self.tl = threading.local()
        self.ctrl_lock = threading.Lock()
        self.serving = 0
        self.broken = None
        # The worker's printed output and log records travel with its next message
        # (``"o"``: [stdout text, stderr text, [log records]]): ``outbox()`` gives what is
        # pending (or None), ``on_out(o)`` takes it on the trusted side.
        self.outbox = self.on_out = None

    # -- values --------------------------------------------------------------------
    def enc(self, x, depth=0):
        t = type(x)
        if t in SCALARS:
            return x
        if depth > MAX_DEPTH:
            return self.export(x)
        if t is list:
            return ["l", [self.enc(v, depth + 1) for v in x]]
        if t is tuple:
            return ["t", [self.enc(v, depth + 1) for v in x]]
        if t is dict:
            return ["d", [[self.enc(k, depth + 1), self.enc(v, depth + 1)] for k, v in x.items()]]
        if t is set:
            return ["s", [self.enc(v, depth + 1) for v in x]]
        if t is frozenset:
            return ["z", [self.enc(v, depth + 1) for v in x]]
        if t is bytes:
            return ["b", _b64e(x).decode()]
        if t in _COLLECTIONS:  # collections' containers by value (a Counter compared with a dict)
            got = self._enc_collection(x, t, depth)
            if got is not None:
                return got
        f = VALUE_ENC.get(t)
        if f is not None:
            try:
                return ["v", f(x)]
            except (TypeError, ValueError, AttributeError):
                pass  # (a tzinfo of its own): a handle
        elif issubclass(t, _enum.Enum):  # (not isinstance: a handle's __class__ is asked)
            got = _stdlib_enum(x)
            if got is not None:
                return ["v", ["enum", got]]
        return self.export(x)

    def _enc_collection(self, x, t, depth):
        if t is _collections.deque:
            return ["k", ["deque", self.enc(list(x), depth + 1), x.maxlen]]
        if t is _collections.defaultdict:
            f = x.default_factory
            name = next((n for n, c in _FACTORIES.items() if c is f), None)
            if name is None:
                return None  # a factory of its own: a handle
            return ["k", ["defaultdict", self.enc(dict(x), depth + 1), name]]
        return ["k", [_COLLECTIONS[t], self.enc(dict(x), depth + 1), None]]

    def _dec_collection(self, p, depth):
        if type(p) is not list or len(p) != 3 or p[0] not in _COLLECTION_NAMES:
            raise WireError("malformed value")
        kind, body, extra = p[0], self.dec(p[1], depth + 1), p[2]
        if kind == "deque":
            if type(body) is not list or not (extra is None or type(extra) is int):
                raise WireError("malformed value")
            return _collections.deque(body, extra)
        if type(body) is not dict:
            raise WireError("malformed value")
        if kind == "defaultdict":
            if extra not in _FACTORIES:
                raise WireError("malformed value")
            return _collections.defaultdict(_FACTORIES[extra], body)
        return _COLLECTION_NAMES[kind](body)

    def dec(self, v, depth=0):
        if type(v) in SCALARS:
            return v
        if depth > MAX_DEPTH or type(v) is not list or len(v) != 2 or type(v[0]) is not str:
            raise WireError("malformed value")
        tag, p = v
        if tag in ("l", "t", "s", "z"):
            if type(p) is not list:
                raise WireError("malformed value")
            items = [self.dec(i, depth + 1) for i in p]
            return {"l": list, "t": tuple, "s": set, "z": frozenset}[tag](items)
        if tag == "d":
            if type(p) is not list or not all(type(kv) is list and len(kv) == 2 for kv in p):
                raise WireError("malformed value")
            return {self.dec(k, depth + 1): self.dec(w, depth + 1) for k, w in p}
        if tag == "b":
            return _b64d(p) if type(p) is str else b""
        if tag == "k":
            return self._dec_collection(p, depth)
        if tag == "v":
            if type(p) is not list or len(p) != 2 or p[0] not in VALUE_DEC:
                raise WireError("malformed value")
            try:
                return VALUE_DEC[p[0]](p[1])
            except Exception:
                raise WireError(f"malformed {p[0]} value") from None
        return self.resolve(tag, p)

    # -- channels ------------------------------------------------------------------
    def chan(self):
        """The calling thread's channel (opened on its first request)."""
        c = getattr(self.tl, "chan", None)
        if c is not None:
            return c
        if threading.current_thread() is threading.main_thread():
            c = self.main
        else:
            c = self._open()
            self.tl.closer = _Closer(c)
        self.tl.chan = c
        return c

    def _open(self):
        import socket
        if self.ctrl is None:
            raise WireError("no channel for a second thread")
        mine, theirs = socket.socketpair()
        try:
            with self.ctrl_lock:
                socket.send_fds(self.ctrl, [b"c"], [theirs.fileno()])
                wake, self.wake = self.wake, None
            if wake is not None:  # the other side starts accepting on its first channel
                wake()
        except OSError as e:
            mine.close()
            raise WireError(f"the submission's process is gone ({e.strerror})")
        finally:
            theirs.close()
        fd = mine.detach()
        return Chan(fd, fd)

    def start_accepting(self):
        """Serve the channels the other side opens, each in a thread of its own (once)."""
        with self.ctrl_lock:
            if self.ctrl is None or self.accepting:
                return
            self.accepting = True
            threading.Thread(target=self._accept, daemon=True, name="gauntlet-wire-accept").start()

    def _accept(self):
        while self.accept_one():
            pass

    def accept_one(self):
        """Take one channel the other side opened (a thread serves it); False at the end."""
        import socket, stat
        try:
            msg, fds, _f, _a = socket.recv_fds(self.ctrl, 16, 4)
        except OSError:
            return False
        if not msg:
            for f in fds:
                os.close(f)
            return False
        for f in fds[1:]:
            os.close(f)
        if not fds:
            return True
        try:
            ok = stat.S_ISSOCK(os.fstat(fds[0]).st_mode) and self.serving < self.MAX_CHANNELS
        except OSError:
            ok = False
        if not ok:
            os.close(fds[0])
            return True
        self._count(1)
        try:
            threading.Thread(target=self._serve_chan, args=(fds[0],), daemon=True,
                             name="gauntlet-wire-chan").start()
        except RuntimeError:  # no thread to be had (the pids limit): refused
            self._count(-1)
            os.close(fds[0])
        return True

    def _serve_chan(self, fd):
        c = self.tl.chan = Chan(fd, fd)
        try:
            while not self.broken:
                msg = c.recv()
                if msg is None or "q" not in msg:
                    return  # the thread that opened it ended (or sent a garbled message)
                self.serve(msg["q"], c)
        except (WireError, OSError):
            pass
        finally:
            self._count(-1)
            c.close()

    def _count(self, d):
        with self.ctrl_lock:
            self.serving += d

    # -- messages ------------------------------------------------------------------
    def _fail(self, reason):
        self.broken = self.broken or reason
        raise WireError(reason)

    def send(self, msg, c=None):
        try:
            (c or self.main).send(msg)
        except OSError as e:
            self._fail(f"the submission's process is gone ({e.strerror})")

    def recv(self, c=None):
        try:
            msg = (c or self.main).recv()
        except WireError as e:
            self._fail(str(e))
        if msg is None:
            self._fail("the submission's process ended")
        return msg

    def request(self, q):
        """Send one request on this thread's channel; serve the other side's requests on
        it (the callbacks this call makes) until its reply comes."""
        if self.broken:
            raise WireError(self.broken)
        c = self.chan()
        self.send(self._with_out({"q": q}), c)
        while True:
            msg = self.recv(c)
            if "o" in msg and self.on_out is not None:
                self.on_out(msg["o"])
                if len(msg) == 1:
                    continue
            if "q" in msg:
                self.serve(msg["q"], c)
            elif "r" in msg:
                self.tl.synced = msg.get("m")
                try:
                    return self.dec(msg["r"])
                except (WireError, RecursionError, ValueError, TypeError):
                    raise WireError("the submission's process sent a malformed value")
            elif "e" in msg:
                raise self.dec_exc(msg["e"])
            else:
                self._fail("the submission's process sent a garbled message")

    def serve(self, q, c=None):
        try:
            if type(q) is not list or not q or type(q[0]) is not str:
                raise WireError("malformed request")
            v = self.handle(q)
            if type(v) is Synced:
                reply = {"r": self.enc(v.value), "m": [[k, self.enc(x)] for k, x in v.states]}
            else:
                reply = {"r": self.enc(v)}
        except WireError:
            raise
        except BaseException as e:  # the other side gets it by name and message
            reply = {"e": self.enc_exc(e)}
        self.send(self._with_out(reply), c)

    def _with_out(self, msg):
        if self.outbox is not None:
            o = self.outbox()
            if o is not None:
                msg["o"] = o
        return msg
'''
