"""The seccomp filter the isolation worker (worker.py) installs before any submission code.

``SECCOMP`` is part of the worker's source: ``_seccomp()`` builds a classic BPF program
for x86_64 and aarch64 and loads it with ``prctl(PR_SET_SECCOMP)`` after
``PR_SET_NO_NEW_PRIVS``. Denied with ``EPERM``: ``ptrace``, ``process_vm_readv``,
``process_vm_writev``; ``kill``/``tkill``/``tgkill``/``pidfd_open`` to any process but
the worker itself and processes started after it (pids above its own), so the
submission cannot signal, stop or inspect the trusted test process or the fork server.
Everything else is allowed. Returns whether the filter is in place.
"""

from __future__ import annotations

SECCOMP = r'''
# x86_64 / aarch64 syscall numbers: ptrace, process_vm_readv, process_vm_writev, kill, tkill, tgkill, pidfd_open
_ARCH = {0xC000003E: (101, 310, 311, 62, 200, 234, 434), 0xC00000B7: (117, 270, 271, 129, 130, 131, 434)}


def _seccomp_build():
    """The program with the pid left open: (bytes, [(offset of a constant, negated)])."""
    allow, deny = 0x7FFF0000, 0x00050000 | 1  # SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO|EPERM
    prog = []
    for arch, (ptrace, pvr, pvw, kill, tkill, tgkill, pidfd) in _ARCH.items():
        body = [
            (0x20, 0, 0, 0),  # ld nr
            (0x15, "D", 0, ptrace), (0x15, "D", 0, pvr), (0x15, "D", 0, pvw),
            (0x15, "K", 0, kill), (0x15, "P", 0, tkill), (0x15, "P", 0, tgkill), (0x15, "P", 0, pidfd),
            (0x06, 0, 0, allow),
            ("K",), (0x20, 0, 0, 16), (0x15, "A", 0, 0), (0x25, "N", 0, 0x7FFFFFFF),
            (0x35, "A", "D", "me"),
            ("N",), (0x25, "D", "A", "-me"),
            ("P",), (0x20, 0, 0, 16), (0x25, "D", 0, 0x7FFFFFFF), (0x35, "A", "D", "me"),
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
    holes = [(8 * i + 4, k == "-me") for i, (_c, _t, _f, k) in enumerate(flat) if isinstance(k, str)]
    buf = b"".join(struct.pack("HBBI", c, jt, jf, 0 if isinstance(k, str) else k) for c, jt, jf, k in flat)
    return buf, holes


class _Prog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


_SECCOMP_PROG = []  # built once (the fork server's), filled in per process: a worker's start-up stays short


def _seccomp():
    """Load the filter for this process's pid; True when it is in place."""
    if not _SECCOMP_PROG:
        _SECCOMP_PROG.extend((*_seccomp_build(), ctypes.CDLL(None, use_errno=True)))
    buf, holes, libc = _SECCOMP_PROG
    me = os.getpid()
    b = bytearray(buf)
    for off, neg in holes:
        struct.pack_into("I", b, off, (1 << 32) - me if neg else me)
    arr = ctypes.create_string_buffer(bytes(b), len(b))
    libc.prctl(38, 1, 0, 0, 0)  # PR_SET_NO_NEW_PRIVS
    p = _Prog(len(b) // 8, ctypes.cast(arr, ctypes.c_void_p))
    return libc.prctl(22, 2, ctypes.byref(p), 0, 0) == 0  # PR_SET_SECCOMP, SECCOMP_MODE_FILTER


'''
