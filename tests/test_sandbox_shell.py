"""``Sandbox.shell_argv``: the human's interactive shell runs inside the attempt's own
sandbox (both backends), with the agent environment, the client reaching the socket, the
sandbox user, no network, cwd /workspace; on a terminal it has job control and a pty of
its own (the real terminal is out of its reach)."""

from __future__ import annotations

import asyncio
import fcntl
import os
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from arena.challenge import load_challenge
from arena.clock import ManualTime
from arena.sandbox import Limits, get_backend
from attempt_kit import make_package, open_arena, stored
from sandbox_common import BACKENDS

SCRIPT = b"""echo "attempt=$GAUNTLET_ATTEMPT socket=$GAUNTLET_SOCKET"
echo "uid=$(id -u)"
echo "cwd=$(pwd)"
if ls /root >/dev/null 2>&1; then echo root=readable; else echo root=closed; fi
python3 -c "
import socket
try:
    socket.create_connection(('1.1.1.1', 53), 2)
    print('net=on')
except OSError:
    print('net=off')"
echo "fsize=$(ulimit -f)"
gauntlet-agent status
echo from-the-shell > made-in-shell.txt
exit 7
"""


@pytest.mark.parametrize("backend", BACKENDS)
async def test_shell_argv_runs_inside_the_attempts_sandbox(tmp_path, backend):
    pkg = make_package(tmp_path / "pkg", fmt="sprint")
    arena = await open_arena(tmp_path, ManualTime(), sandbox=backend)
    try:
        a = arena.attempt(load_challenge(pkg), "human")
        task = asyncio.create_task(arena.run_one(a))
        while not a.ready:
            await asyncio.sleep(0.01)
        sb = a.sandbox
        assert sb is not None and sb.backend == backend  # the human agent gets a sandbox
        argv = sb.shell_argv(a.sandbox_env)
        # Run it as a terminal would, but with the commands on stdin; the attempt's loop
        # keeps serving the socket meanwhile (gauntlet-agent status must be answered).
        proc = await asyncio.create_subprocess_exec(
            *argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        out, err = await asyncio.wait_for(proc.communicate(SCRIPT), 60)
        text = out.decode()
        made = a.workspace / "made-in-shell.txt"
        assert proc.returncode == 7, err.decode()
        assert f"attempt={a.id} socket=/gauntlet/agent.sock" in text
        assert f"uid={sb.uid}" in text and sb.uid != 0
        assert "cwd=/workspace" in text
        assert "root=closed" in text and "net=off" in text
        assert f"fsize={sb.limits.file_mb * 1024}" in text  # the sandbox's limits apply
        assert "ok: true" in text and f'attempt: "{a.id}"' in text  # client → socket → attempt
        assert made.read_text() == "from-the-shell\n" and made.stat().st_uid == sb.uid
        a.finish("finished", "test over")
        await asyncio.wait_for(task, 30)
        events = await stored(arena, a.id)
    finally:
        await arena.close()
    assert any(e.kind == "protocol.call" and e.data["op"] == "status" for e in events)


def _run_on_a_terminal(
    argv: list[str], script: bytes, probe=None, rows=33, cols=101, timeout=60.0
) -> tuple[int, str, int]:
    """Run ``argv`` as the foreground of a fresh pseudo-terminal (its controlling
    terminal), type ``script`` at the first prompt; returns (exit code, screen text,
    the terminal's device number). ``probe()`` runs once the script has been typed."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    outer_dev = os.fstat(slave).st_rdev

    def ctty():
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, start_new_session=True, preexec_fn=ctty)
    os.close(slave)
    out, typed, end = b"", False, time.monotonic() + timeout
    while proc.poll() is None and time.monotonic() < end:
        if select.select([master], [], [], 0.1)[0]:
            try:
                out += os.read(master, 65536)
            except OSError:
                break
        if not typed and b"$ " in out:
            os.write(master, script)
            typed = True
        if typed and probe is not None and b"PROBE-NOW" in out:
            probe()
            probe = None
            os.write(master, b"exit 5\n")
    rc = proc.wait(timeout=10)
    os.close(master)
    return rc, out.decode(errors="replace"), outer_dev


def _tty_nr(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[4])
    except (FileNotFoundError, ProcessLookupError):
        return None  # exited since it was listed


def _cmdline(pid: int) -> bytes:
    """A member's command line, or b"" if it exited between listing and reading."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except (FileNotFoundError, ProcessLookupError):
        return b""


@pytest.mark.parametrize("backend", BACKENDS)
async def test_shell_on_a_terminal_has_job_control_and_its_own_pty(tmp_path, backend):
    ws = tmp_path / "ws"
    ws.mkdir()
    sb = await get_backend(backend).create(ws, Limits(memory_mb=256, pids=64))
    seen: dict = {}
    try:
        argv = sb.shell_argv({"GAUNTLET_ATTEMPT": "a-test"})

        def probe():  # from the host, while the shell runs
            if backend == "local":
                members = sb.cg.pids()
                shells = [p for p in members if _cmdline(p).startswith(b"/bin/bash")]
                seen["shell_ttys"] = {_tty_nr(p) for p in shells} - {None}  # in the sandbox's cgroup
                seen["relay_in_cgroup"] = any(b"tty_relay" in _cmdline(p) for p in members)

        script = b"set -o | grep monitor; stty size; sleep 30 & jobs; kill %1; tty; echo PROBE-NOW\n"
        rc, screen, outer_dev = await asyncio.to_thread(_run_on_a_terminal, argv, script, probe)
    finally:
        await sb.close()
    assert rc == 5, screen
    assert "monitor        \ton" in screen  # job control: bash owns its terminal
    assert "33 101" in screen  # the window size reaches the sandbox's terminal
    assert "[1]+  Running" in screen and "not a tty" not in screen
    if backend == "local":
        # The sandbox's controlling terminal is the relay's pty, not ours: TIOCSTI (which
        # only works on one's controlling terminal) cannot type into the real terminal.
        assert seen["shell_ttys"] and outer_dev not in seen["shell_ttys"] and 0 not in seen["shell_ttys"]
        assert seen["relay_in_cgroup"] is False  # the host-side relay is not in the sandbox


async def test_shell_argv_refuses_a_closed_sandbox(tmp_path):
    from arena.sandbox import SandboxError

    ws = tmp_path / "ws"
    ws.mkdir()
    sb = await get_backend("local").create(ws, Limits())
    await sb.close()
    with pytest.raises(SandboxError, match="closed"):
        sb.shell_argv({})


def test_relay_reports_a_sandbox_that_never_started():
    """bwrap writes on --info-fd once the sandbox exists; nothing written = it never
    started: exit 125 and a line saying so (not the shell's own exit status)."""
    from arena.sandbox.shell import RELAY

    bad = subprocess.run(
        [sys.executable, "-I", str(RELAY), "--", "bwrap", "--no-such-option"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert bad.returncode == 125 and "could not start" in bad.stderr
    ok = subprocess.run(
        [
            sys.executable,
            "-I",
            str(RELAY),
            "--",
            "bwrap",
            "--ro-bind",
            "/",
            "/",
            "--info-fd",
            "{info_fd}",
            "sh",
            "-c",
            "exit 3",
        ],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert ok.returncode == 3, ok.stderr
