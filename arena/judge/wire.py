"""The data-only boundary between the trusted test process and the submission's process.

``WIRE`` is written read-only into the sandbox as ``/judge/config/gauntlet_wire.py`` and
imported by both sides (arena/judge/isolation.py). One message per line, JSON, at most
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
import base64, json, os, threading

MAX_LINE = 16 << 20
MAX_DEPTH = 64
SCALARS = (type(None), bool, int, float, str)


class WireError(Exception):
    """The submission's process ended, or sent something that is not a message."""


def start_zygote(source, env=None):
    """Start the worker's fork server (``python3 -I -B -c source zygote FD``) before any
    submission code exists; (Popen, control socket)."""
    import socket, subprocess, sys
    ours, theirs = socket.socketpair()
    proc = subprocess.Popen([sys.executable, "-I", "-B", "-c", source, "zygote", str(theirs.fileno())],
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


class Chan:
    """One conversation: a socket (or a pipe pair) that exactly one thread per side reads
    and writes, so a call and the callbacks it nests stay on the threads that made them."""

    def __init__(self, rfd, wfd):
        self.r = os.fdopen(os.dup(rfd) if rfd == wfd else rfd, "rb", buffering=1 << 16)
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
        data = json.dumps(msg, separators=(",", ":")).encode() + b"\n"
        view = memoryview(data)
        while view:
            n = os.write(self.wfd, view)
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
            msg = json.loads(line)
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

    def __init__(self, rfd, wfd, export, resolve, handle, enc_exc, dec_exc, ctrl=None):
        self.main = Chan(rfd, wfd)
        self.ctrl = ctrl
        self.export, self.resolve, self.handle = export, resolve, handle
        self.enc_exc, self.dec_exc = enc_exc, dec_exc
        self.tl = threading.local()
        self.ctrl_lock = threading.Lock()
        self.serving = 0
        self.broken = None

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
        if t is bytes or t is bytearray:
            return ["b", base64.b64encode(bytes(x)).decode()]
        return self.export(x)

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
            return base64.b64decode(p) if type(p) is str else b""
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
        except OSError as e:
            mine.close()
            raise WireError(f"the submission's process is gone ({e.strerror})")
        finally:
            theirs.close()
        fd = mine.detach()
        return Chan(fd, fd)

    def start_accepting(self):
        """Serve the channels the other side opens, each in a thread of its own."""
        if self.ctrl is not None:
            threading.Thread(target=self._accept, daemon=True, name="gauntlet-wire-accept").start()

    def _accept(self):
        import socket, stat
        while True:
            try:
                msg, fds, _f, _a = socket.recv_fds(self.ctrl, 16, 4)
            except OSError:
                return
            if not msg:
                for f in fds:
                    os.close(f)
                return
            for f in fds[1:]:
                os.close(f)
            if not fds:
                continue
            try:
                ok = stat.S_ISSOCK(os.fstat(fds[0]).st_mode) and self.serving < self.MAX_CHANNELS
            except OSError:
                ok = False
            if not ok:
                os.close(fds[0])
                continue
            self._count(1)
            try:
                threading.Thread(target=self._serve_chan, args=(fds[0],), daemon=True,
                                 name="gauntlet-wire-chan").start()
            except RuntimeError:  # no thread to be had (the pids limit): refused
                self._count(-1)
                os.close(fds[0])

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
        self.send({"q": q}, c)
        while True:
            msg = self.recv(c)
            if "q" in msg:
                self.serve(msg["q"], c)
            elif "r" in msg:
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
            reply = {"r": self.enc(self.handle(q))}
        except WireError:
            raise
        except BaseException as e:  # the other side gets it by name and message
            reply = {"e": self.enc_exc(e)}
        self.send(reply, c)
'''
