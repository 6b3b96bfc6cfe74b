"""The kernel's process events connector (NETLINK_CONNECTOR, CN_IDX_PROC), standard library only.

Every fork, exec and exit on the machine arrives as a datagram with the kernel's own
monotonic timestamp, so a 10 ms program is never missed (only a full socket buffer
loses events, reported as ``ENOBUFS``). Needs CAP_NET_ADMIN (root). Pids are the
initial pid namespace's. Used by ``observer_proc.py``.
"""

from __future__ import annotations

import os
import socket
import struct

NETLINK_CONNECTOR = 11
CN_IDX_PROC = CN_VAL_PROC = 1
PROC_CN_MCAST_LISTEN = 1
NLMSG_DONE = 3
SO_RCVBUFFORCE = 33
PROC_EVENT_FORK, PROC_EVENT_EXEC, PROC_EVENT_UID, PROC_EVENT_EXIT = 0x1, 0x2, 0x4, 0x80000000

_NLMSG = struct.Struct("=IHHII")  # len, type, flags, seq, pid
_CNMSG = struct.Struct("=IIIIHH")  # idx, val, seq, ack, len, flags
_EVENT = struct.Struct("=IIQ")  # what, cpu, timestamp_ns
_FORK = struct.Struct("=IIII")  # parent pid, parent tgid, child pid, child tgid
_EXEC = struct.Struct("=II")  # pid, tgid
_UID = struct.Struct("=IIII")  # pid, tgid, real uid, effective uid
_EXIT = struct.Struct("=IIII")  # pid, tgid, exit_code (wait status), exit_signal


def open_socket(rcvbuf: int = 16 << 20) -> socket.socket:
    """A non-blocking socket subscribed to process events (OSError when not permitted)."""
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, NETLINK_CONNECTOR)
    try:
        try:
            s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, rcvbuf)
        except OSError:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        s.bind((0, CN_IDX_PROC))
        op = struct.pack("=I", PROC_CN_MCAST_LISTEN)
        cn = _CNMSG.pack(CN_IDX_PROC, CN_VAL_PROC, 0, 0, len(op), 0) + op
        s.send(_NLMSG.pack(_NLMSG.size + len(cn), NLMSG_DONE, 0, 0, os.getpid()) + cn)
        s.setblocking(False)
    except OSError:
        s.close()
        raise
    return s


def wait_status_code(status: int) -> int:
    """A wait status as a shell would show it: the exit code, or -signal when killed."""
    sig = status & 0x7F
    return -sig if sig else (status >> 8) & 0xFF


def parse(buf: bytes):
    """Yield ``("fork", ts, parent_tgid, child_pid, child_tgid)``, ``("exec", ts, pid, tgid)``,
    ``("uid", ts, pid, tgid, real_uid)`` and ``("exit", ts, pid, tgid, code)`` from one datagram; other events are skipped."""
    off = 0
    while off + _NLMSG.size <= len(buf):
        length, _typ, _flags, _seq, _pid = _NLMSG.unpack_from(buf, off)
        if length < _NLMSG.size:
            return
        p = off + _NLMSG.size + _CNMSG.size
        if p + _EVENT.size <= off + length:
            what, _cpu, ts = _EVENT.unpack_from(buf, p)
            d = p + _EVENT.size
            if what == PROC_EVENT_FORK:
                _ppid, ptgid, cpid, ctgid = _FORK.unpack_from(buf, d)
                yield ("fork", ts, ptgid, cpid, ctgid)
            elif what == PROC_EVENT_EXEC:
                pid, tgid = _EXEC.unpack_from(buf, d)
                yield ("exec", ts, pid, tgid)
            elif what == PROC_EVENT_UID:
                pid, tgid, ruid, _euid = _UID.unpack_from(buf, d)
                yield ("uid", ts, pid, tgid, ruid)
            elif what == PROC_EVENT_EXIT:
                pid, tgid, status, _sig = _EXIT.unpack_from(buf, d)
                yield ("exit", ts, pid, tgid, wait_status_code(status))
        off += (length + 3) & ~3
