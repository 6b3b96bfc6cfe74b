"""The pooled judge container's own process: the test runner, started before any submission.

A pooled Docker judge container does not idle under ``sleep infinity`` waiting for a
``docker exec``: its main process is the trusted bootstrap itself (``run.py``, python
``-I``), started with ``GAUNTLET_JUDGE_REQUEST=/judge-out/.request`` (a FIFO the host
made). It imports pytest, the plugin and coverage while ``/workspace`` is still empty,
writes ``/judge-out/.ready`` and blocks on the FIFO. The host copies the submission
into ``/workspace``, writes one request (``{"args": [...], "cap": N}``: the pytest
arguments, forced options included, and the output cap) and waits for the container to
exit (``docker wait``; killed at the timeout). ``serve`` then forks:

- the child returns the args to ``run.py``, which puts the submission on ``sys.path`` and
  runs the tests exactly as an exec'd run does (stdout/stderr are pipes to the parent);
- the parent (the pump, PID 1 of the container: no docker-init, so no process inside
  can signal it, not even with SIGKILL or ``kill -9 -1``) keeps the first ``cap + 1`` bytes of each stream in
  ``/judge-out/.stdout`` / ``.stderr``, kills every process of the sandbox user once
  the output passes 8x the cap (as the exec path does), and when the child ends kills
  whatever it left running (``kill -9 -1``), drains the pipes, writes the child's exit
  code to ``/judge-out/.done`` (a FIFO the host opened for reading before it sent the
  request: the host learns of the end at once, not when the container has stopped)
  and exits with that code.

The container serves exactly one request: when the pump (PID 1) exits, the kernel kills
everything left in the container's pid namespace. Nothing the submission does can reach
the host beyond what an exec'd run could: the pump runs as the same user, so at worst a
run that tampers with it (ptrace) forges or stalls its own result (the host's timeout
still applies), and the files it writes are read back capped and without following
links, like the report.
"""

from __future__ import annotations

LAUNCHER = r'''
import json, os, select, signal

KILL_FACTOR = 8


def _take(request, out):
    try:  # the request carries the run's key: no process of the sandbox user reads it here
        import ctypes
        ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0 (inherited by the run)
    except Exception:
        pass
    fd = os.open(os.path.join(out, ".ready"), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    os.close(fd)
    with open(request, "rb") as f:  # blocks until the host writes the request
        data = f.read(1 << 20)
    # The host opened .done for reading before it wrote the request: the status goes
    # there. Both names are unlinked before any submission code runs.
    done = os.open(os.path.join(out, ".done"), os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    for name in (".done", ".request"):
        try:
            os.unlink(os.path.join(out, name))
        except OSError:
            pass
    req = json.loads(data)
    args, cap = req["args"], int(req["cap"])
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise SystemExit("gauntlet launcher: bad request")
    return args, cap, done


def _open_out(out, name):
    return os.open(os.path.join(out, name),
                   os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)


def serve(request, out):
    """Wait for the request; return its args in the child that runs the tests."""
    args, cap, done = _take(request, out)
    import importlib
    importlib.invalidate_caches()  # /workspace was empty when the imports ran
    files = [_open_out(out, ".stdout"), _open_out(out, ".stderr")]
    pipes = [os.pipe(), os.pipe()]
    pid = os.fork()
    if pid == 0:
        for f in files + [done]:
            os.close(f)
        for i, (r, w) in enumerate(pipes):
            os.dup2(w, 1 + i)
            os.close(r)
            os.close(w)
        return args
    for _, w in pipes:
        os.close(w)
    _pump(pid, [r for r, _ in pipes], files, cap, done)


def _pump(pid, reads, files, cap, done):
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # PID 1: no handler, no signal from inside
    seen = {r: 0 for r in reads}
    dest = dict(zip(reads, files))
    try:
        pidfd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        pidfd = None
    status, killed = None, False
    live = list(reads)
    while live or status is None:
        watch = live + ([pidfd] if pidfd is not None and status is None else [])
        ready, _, _ = select.select(watch, [], [], None if pidfd is not None or status is not None else 0.05)
        if status is None and (pidfd in ready or pidfd is None):
            got, st = os.waitpid(pid, os.WNOHANG)
            if got:
                status = st
                _kill_rest()  # whatever the run left running (and holding the pipes)
        for r in ready:
            if r not in seen:
                continue
            b = os.read(r, 1 << 16)
            if not b:
                live.remove(r)
                continue
            room = cap + 1 - seen[r]
            if room > 0:
                os.write(dest[r], b[:room])
            seen[r] += len(b)
            if not killed and seen[r] > cap * KILL_FACTOR:
                killed = True
                _kill_rest()
    code = os.waitstatus_to_exitcode(status)
    code = code if code >= 0 else 128 - code
    for f in files:
        os.close(f)
    os.write(done, b"%d\n" % code)  # the host reads the results from here on
    os._exit(code)


def _kill_rest():
    try:
        os.kill(-1, signal.SIGKILL)  # every process of this user but this one (and init)
    except OSError:
        pass
'''
