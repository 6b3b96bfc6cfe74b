"""Nothing outlives the arena: a watchdog process that cleans up when the arena dies.

``start()`` (called by ``registry.install()``, once per arena process) spawns
``python -m arena.sandbox.reaper <arena pid>`` in a session of its own, holding the read
end of a pipe whose write end only the arena holds (close-on-exec, so no sandbox or agent
inherits it). However the arena ends — exit, SIGTERM, ``kill -9``, OOM — the kernel
closes that end, the reaper's read returns EOF, it waits for the arena's pid to be gone
and runs ``cleanup.cleanup_stale()``: the arena's containers (judge and agent, running
or not) are removed, its cgroups swept and removed, its /tmp and workspace-quota tmpfs
released (the workspace copied back to disk) and its state dirs and uid reservations
freed. What is left for the next start's ``cleanup_stale`` is only what a power cut (or
killing the reaper too) can leave. ``GAUNTLET_NO_REAPER=1`` turns it off.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

_proc: subprocess.Popen | None = None
_pipe_w: int | None = None


def start() -> int | None:
    """Spawn the reaper for this process (idempotent); its pid, or None."""
    global _proc, _pipe_w
    if _proc is not None and _proc.poll() is None and _pipe_w is not None:
        return _proc.pid
    if os.environ.get("GAUNTLET_NO_REAPER") == "1":
        return None
    r, w = os.pipe()  # both close-on-exec; only r is passed to the reaper
    root = str(Path(__file__).resolve().parents[2])  # the arena package this process uses
    env = {**os.environ, "PYTHONPATH": root + os.pathsep + os.environ.get("PYTHONPATH", "")}
    try:
        _proc = subprocess.Popen(
            [sys.executable, "-m", "arena.sandbox.reaper", str(os.getpid()), str(r)],
            pass_fds=(r,),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            cwd=root,
            env=env,
        )
    except OSError:
        os.close(r)
        os.close(w)
        return None
    os.close(r)
    _pipe_w = w
    return _proc.pid


def _wait_gone(pid: int, budget: float = 30.0) -> None:
    deadline = time.monotonic() + budget
    while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
        try:  # a zombie counts as gone: it holds nothing
            if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
                return
        except (OSError, IndexError):
            return
        time.sleep(0.05)


def main(argv: list[str]) -> int:
    owner, fd = int(argv[0]), int(argv[1])
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
        signal.signal(sig, signal.SIG_IGN)  # the terminal's Ctrl-C is the arena's business
    while True:
        try:
            if not os.read(fd, 4096):
                break
        except InterruptedError:
            continue
        except OSError:
            break
    _wait_gone(owner)
    from arena.sandbox.cleanup import cleanup_stale  # noqa: PLC0415

    cleanup_stale()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
