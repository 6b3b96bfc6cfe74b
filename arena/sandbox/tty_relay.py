"""Run a sandboxed interactive command on a terminal of its own (stdlib only, run as a script).

``python tty_relay.py [--procs PATH]... [--fsize N] [--as N] [--nproc N] -- ARGV...``

The local backend's interactive shell (``LocalSandbox.shell_argv``) goes through this file.
In a child process it joins the sandbox's cgroups (``--procs``: each ``cgroup.procs``), sets
the rlimits the backend sets for ``exec``, starts a **new session** and execs ARGV (bwrap
... setpriv ... bash) — the relay itself stays out of the cgroup, so the sandbox's limits
never count it and a sweep of the sandbox never kills it.

When stdin is a terminal, the child's session gets a **fresh pseudo-terminal** as its
controlling terminal and this process relays bytes between the real terminal (put in raw
mode) and that pty, forwarding window-size changes. The sandbox then has full job control
(bwrap's ``--new-session`` is not used, it would take the terminal away), yet it can never
reach the real terminal: TIOCSTI only works on one's controlling terminal, which is the
inner pty, so injected keystrokes land in the sandbox's own input, never in the operator's
shell or the Textual app. When stdin is not a terminal the child simply runs in a new
session with no controlling terminal at all.

Exit status: the command's (128+N for a signal); 125 when the sandbox never started (bwrap
wrote nothing on its ``--info-fd``), after telling the user on stderr.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import os
import pty
import resource
import select
import signal
import sys
import termios
import tty

INFO_FD_ARG = "{info_fd}"  # replaced in ARGV by the number of bwrap's --info-fd pipe
_PR_SET_PDEATHSIG = 1


def _parse(args: list[str]) -> tuple[list[str], dict[str, int], list[str]]:
    procs: list[str] = []
    limits: dict[str, int] = {}
    i = 0
    while i < len(args) and args[i] != "--":
        key, val = args[i], args[i + 1]
        if key == "--procs":
            procs.append(val)
        elif key in ("--fsize", "--as", "--nproc"):
            limits[key[2:]] = int(val)
        else:
            raise SystemExit(f"tty_relay: unknown option {key}")
        i += 2
    argv = args[i + 1 :]
    if not argv:
        raise SystemExit("tty_relay: expected -- ARGV")
    return procs, limits, argv


def _enter(procs: list[str], limits: dict[str, int]) -> None:
    """In the child: join the cgroups and set the limits ``LocalSandbox.exec`` sets."""
    pid = str(os.getpid()).encode()
    for p in procs:
        fd = os.open(p, os.O_WRONLY)
        os.write(fd, pid)
        os.close(fd)
    rl = {"fsize": resource.RLIMIT_FSIZE, "as": resource.RLIMIT_AS, "nproc": resource.RLIMIT_NPROC}
    for key, val in limits.items():
        resource.setrlimit(rl[key], (val, val))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _copy_winsize(src: int, dst: int) -> None:
    try:
        fcntl.ioctl(dst, termios.TIOCSWINSZ, fcntl.ioctl(src, termios.TIOCGWINSZ, b"\0" * 8))
    except OSError:
        pass


def _relay(master: int) -> None:
    """Copy the real terminal to the pty and back until the pty closes."""
    stdin, stdout = 0, 1
    fds = [master, stdin]
    while True:
        try:
            ready, _, _ = select.select(fds, [], [])
        except InterruptedError:
            continue
        if master in ready:
            try:
                data = os.read(master, 65536)
            except OSError as exc:  # EIO: every slave end is closed (the sandbox ended)
                if exc.errno != errno.EIO:
                    raise
                data = b""
            if not data:
                return
            while data:
                data = data[os.write(stdout, data) :]
        if stdin in ready:
            data = os.read(stdin, 65536)
            if not data:  # the real terminal went away: stop listening, let the pty drain
                fds = [master]
            else:
                while data:
                    data = data[os.write(master, data) :]


def _status(st: int) -> int:
    if os.WIFSIGNALED(st):
        return 128 + os.WTERMSIG(st)
    return os.WEXITSTATUS(st)


def main(args: list[str]) -> int:
    procs, limits, argv = _parse(args)
    ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGHUP)  # die with whoever launched us
    info_r, info_w = os.pipe()
    argv = [str(info_w) if a == INFO_FD_ARG else a for a in argv]
    interactive = os.isatty(0)
    if interactive:
        pid, master = pty.fork()  # child: new session, the pty slave as controlling terminal
    else:
        pid, master = os.fork(), -1
    if pid == 0:
        try:
            os.close(info_r)
            if not interactive:
                os.setsid()  # no controlling terminal at all
            os.set_inheritable(info_w, True)
            _enter(procs, limits)
            os.execvp(argv[0], argv)
        except BaseException as exc:  # noqa: BLE001
            os.write(2, f"gauntlet: cannot start the sandbox shell: {exc}\n".encode())
        os._exit(125)
    os.close(info_w)
    saved = None
    if interactive:
        saved = termios.tcgetattr(0)
        _copy_winsize(0, master)
        signal.signal(signal.SIGWINCH, lambda *_: _copy_winsize(0, master))

        def restore_and_exit(*_: object) -> None:  # hung up or told to stop
            termios.tcsetattr(0, termios.TCSAFLUSH, saved)
            os._exit(129)

        for sig in (signal.SIGHUP, signal.SIGTERM):
            signal.signal(sig, restore_and_exit)
        tty.setraw(0)
        try:
            _relay(master)
        finally:
            termios.tcsetattr(0, termios.TCSAFLUSH, saved)
            os.close(master)
    _, st = os.waitpid(pid, 0)
    started = bool(select.select([info_r], [], [], 0)[0] and os.read(info_r, 4096))
    if not started:
        sys.stderr.write("gauntlet: the sandbox shell could not start (see the error above).\n")
        if interactive:
            sys.stderr.write("Press Enter to return.\n")
            sys.stderr.flush()
            sys.stdin.readline()
        return 125
    return _status(st)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
