"""The file-system view the isolation worker (worker.py) leaves itself: no judge-side file.

``LANDLOCK`` is part of the worker's source. ``_landlock()`` builds a Landlock ruleset
(the kernel's unprivileged sandboxing LSM, ABI 1 and later: Linux 5.13+) that handles
every file-system access right the running kernel knows, allows all of them beneath each
top-level entry of ``/`` except ``/judge`` (the judge-side tests and the trusted
side's config) and ``/judge-out`` (the report, the progress log), and restricts the
process with it (``landlock_restrict_self``, after ``PR_SET_NO_NEW_PRIVS``). From then
on the process and everything it starts get ``EACCES`` opening, listing, writing or
executing anything beneath those two, by any path (``/proc/self/root/...`` and the
trusted process's ``/proc/<pid>/cwd`` included: Landlock checks the file's real place).
The fork server restricts itself before its first fork, so every worker starts
restricted and no submission code ever runs with the judge's files in reach.

Best effort by design: a kernel without Landlock (or a container runtime whose seccomp
profile refuses the calls) leaves the worker as before — it then still runs as the same
uid as the trusted process and could read the tests by path (what it reads reaches
feedback only through redact.py) — and the worker's hello says which (``landlock``).
"""

from __future__ import annotations

LANDLOCK = r'''
_LL_DENY = ("judge", "judge-out")


class _LLRuleset(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64)]


class _LLBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _landlock():
    """Restrict this process (and its children) to the file system minus ``/judge`` and
    ``/judge-out``; True when the ruleset is in force."""
    libc = ctypes.CDLL(None, use_errno=True)
    sysc = libc.syscall
    sysc.restype = ctypes.c_long
    abi = sysc(444, None, ctypes.c_size_t(0), ctypes.c_uint32(1))  # LANDLOCK_CREATE_RULESET_VERSION
    if abi < 1:
        return False
    fs = (1 << 13) - 1  # ABI 1: EXECUTE .. MAKE_SYM
    if abi >= 2:
        fs |= 1 << 13  # REFER
    if abi >= 3:
        fs |= 1 << 14  # TRUNCATE
    if abi >= 5:
        fs |= 1 << 15  # IOCTL_DEV
    on_files = fs & ((1 << 0) | (1 << 1) | (1 << 2) | (1 << 14) | (1 << 15))  # EXECUTE WRITE_FILE READ_FILE TRUNCATE IOCTL_DEV
    attr = _LLRuleset(fs)
    rfd = sysc(444, ctypes.byref(attr), ctypes.c_size_t(ctypes.sizeof(attr)), ctypes.c_uint32(0))
    if rfd < 0:
        return False
    try:
        for name in os.listdir("/"):
            real = os.path.realpath("/" + name)
            if name in _LL_DENY or any(real == "/" + d or real.startswith("/" + d + "/") for d in _LL_DENY):
                continue
            try:
                fd = os.open("/" + name, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue
            try:
                rule = _LLBeneath(fs if os.path.isdir("/" + name) else on_files, fd)
                sysc(445, ctypes.c_int(rfd), ctypes.c_int(1), ctypes.byref(rule), ctypes.c_uint32(0))
            finally:
                os.close(fd)
        libc.prctl(38, 1, 0, 0, 0)  # PR_SET_NO_NEW_PRIVS
        return sysc(446, ctypes.c_int(rfd), ctypes.c_uint32(0)) == 0  # landlock_restrict_self
    finally:
        os.close(rfd)


'''
