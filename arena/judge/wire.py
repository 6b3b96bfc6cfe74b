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
"msg"}}``. Either side, while waiting for its reply, serves the other's requests (the
submission calling back a test's lambda), so a call can nest. Nothing here ever evaluates
what it receives beyond ``json.loads`` and building built-in containers.
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
    """One fresh worker from the fork server: (pid, socket fd) or None."""
    import socket
    try:
        socket.send_fds(ctrl, [b"s"], [out_fd, err_fd])
        msg, fds, _f, _a = socket.recv_fds(ctrl, 32, 1)
    except OSError:
        return None
    if not msg or len(fds) != 1:
        for f in fds:
            os.close(f)
        return None
    return int(msg), fds[0]


class Peer:
    """One end of the pipe pair. ``export(x)`` makes the handle for a non-plain value,
    ``resolve(tag, payload)`` turns a received handle into a local value, ``handle(q)``
    serves one request of the other side (raises to send an error)."""

    def __init__(self, rfd, wfd, export, resolve, handle, enc_exc, dec_exc):
        self.r = os.fdopen(os.dup(rfd) if rfd == wfd else rfd, "rb", buffering=1 << 16)
        self.wfd = wfd
        self.export, self.resolve, self.handle = export, resolve, handle
        self.enc_exc, self.dec_exc = enc_exc, dec_exc
        self.lock = threading.RLock()
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

    # -- messages ------------------------------------------------------------------
    def send(self, msg):
        data = json.dumps(msg, separators=(",", ":")).encode() + b"\n"
        view = memoryview(data)
        try:
            while view:
                n = os.write(self.wfd, view)
                view = view[n:]
        except OSError as e:
            self.broken = f"the submission's process is gone ({e.strerror})"
            raise WireError(self.broken)

    def recv(self):
        try:
            line = self.r.readline(MAX_LINE + 1)
        except (OSError, ValueError) as e:
            line = b""
        if not line:
            self.broken = "the submission's process ended"
            raise WireError(self.broken)
        if len(line) > MAX_LINE or not line.endswith(b"\n"):
            self.broken = "the submission's process sent an oversized message"
            raise WireError(self.broken)
        try:
            msg = json.loads(line)
        except (ValueError, RecursionError):
            self.broken = "the submission's process sent a garbled message"
            raise WireError(self.broken)
        if type(msg) is not dict:
            self.broken = "the submission's process sent a garbled message"
            raise WireError(self.broken)
        return msg

    def request(self, q):
        """Send one request; serve the other side's requests until its reply comes."""
        with self.lock:
            if self.broken:
                raise WireError(self.broken)
            self.send({"q": q})
            while True:
                msg = self.recv()
                if "q" in msg:
                    self.serve(msg["q"])
                elif "r" in msg:
                    try:
                        return self.dec(msg["r"])
                    except (WireError, RecursionError, ValueError, TypeError):
                        raise WireError("the submission's process sent a malformed value")
                elif "e" in msg:
                    raise self.dec_exc(msg["e"])
                else:
                    self.broken = "the submission's process sent a garbled message"
                    raise WireError(self.broken)

    def serve(self, q):
        try:
            if type(q) is not list or not q or type(q[0]) is not str:
                raise WireError("malformed request")
            reply = {"r": self.enc(self.handle(q))}
        except WireError:
            raise
        except BaseException as e:  # the other side gets it by name and message
            reply = {"e": self.enc_exc(e)}
        self.send(reply)
'''
