"""The host side of a trusted launcher's one request, for any backend.

A launcher (arena/judge/in_sandbox/launcher.py) is a sandbox's trusted process started before any
submission exists; it writes ``<out>/.ready`` and blocks on the FIFO ``<out>/.request``.
The host opens the FIFO ``<out>/.done`` for reading, writes the request, and learns of
the end when the launcher writes the exit code there (end of file without one: the
launcher died). Output comes back in ``<out>/.stdout`` / ``.stderr`` (at most
``cap + 1`` bytes each), read without following links. ``alive()`` says whether the
launcher can still answer (the sandbox's process or container is running).
"""

from __future__ import annotations

import asyncio
import errno
import json
import os
import time
from pathlib import Path
from typing import Callable

from arena.sandbox.base import SandboxError
from arena.sandbox.fsutil import read_regular

REQUEST, DONE, READY, STDOUT, STDERR = ".request", ".done", ".ready", ".stdout", ".stderr"
START_BUDGET_S = 60.0  # for a cold launcher to start (not the run's timeout)
_POLL_S = 0.002
_CHECK_S = 0.25


def make_fifos(out: Path, uid: int | None) -> None:
    for name in (REQUEST, DONE):
        path = out / name
        os.mkfifo(path, 0o600)
        if uid is not None:
            os.chown(path, uid, uid)


def until(
    attempt: Callable[[], bool], alive: Callable[[], bool], what: str, who: str, budget: float = START_BUDGET_S
) -> None:
    """Call ``attempt()`` until it returns True; fail if the launcher is gone or the
    budget ran out."""
    deadline = time.monotonic() + budget
    next_check = time.monotonic() + _CHECK_S
    while not attempt():
        now = time.monotonic()
        if now > deadline:
            raise SandboxError(f"{who}: the launcher did not {what} within {budget:g}s")
        if now > next_check:
            next_check = now + _CHECK_S
            if not alive():
                raise SandboxError(f"{who}: the launcher exited before it could {what}")
        time.sleep(_POLL_S)


def wait_ready(out: Path, alive: Callable[[], bool], who: str, budget: float = START_BUDGET_S) -> None:
    """Block until the launcher waits for its request (a pool's warm-up)."""
    until(lambda: os.path.lexists(out / READY), alive, "start", who, budget)


def send(out: Path, data: bytes, alive: Callable[[], bool], who: str) -> None:
    box: list[int] = []

    def attempt() -> bool:
        try:
            box.append(os.open(out / REQUEST, os.O_WRONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC))
        except OSError as e:
            if e.errno != errno.ENXIO:  # ENXIO: no reader yet (a cold launcher starting)
                raise SandboxError(f"{who}: cannot send the request: {e}") from None
            return False
        return True

    until(attempt, alive, "take its request", who)
    try:
        if os.write(box[0], data) != len(data):
            raise SandboxError(f"{who}: the request was cut")
    finally:
        os.close(box[0])


async def _status(fd: int, timeout: float) -> tuple[bool, int | None]:
    loop = asyncio.get_running_loop()
    ended: asyncio.Future = loop.create_future()
    buf = bytearray()

    def on_read() -> None:
        try:
            b = os.read(fd, 64)
        except BlockingIOError:
            return
        buf.extend(b)
        if (not b or b"\n" in buf) and not ended.done():
            ended.set_result(None)

    loop.add_reader(fd, on_read)
    try:
        await asyncio.wait_for(ended, timeout)
    except asyncio.TimeoutError:
        return False, None
    finally:
        loop.remove_reader(fd)
    line = bytes(buf).split(b"\n", 1)[0]
    return True, int(line) if line.isdigit() else None


async def request(
    out: Path, args: list[str], cap: int, timeout: float, alive: Callable[[], bool], who: str
) -> tuple[bool, int | None]:
    """Send the request and wait: (ended, exit code). (False, None) at ``timeout``;
    (True, None) when the launcher ended without a status."""
    data = json.dumps({"args": list(args), "cap": cap}).encode()
    try:  # opened before the request is sent: the launcher's end is written here
        done = os.open(out / DONE, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as e:
        raise SandboxError(f"{who}: no launcher status pipe: {e}") from None
    try:
        await asyncio.to_thread(send, out, data, alive, who)
        return await _status(done, timeout)
    finally:
        os.close(done)


def outputs(out: Path, cap: int) -> tuple[bytes, bytes, bool]:
    """(stdout, stderr, truncated)."""
    o, e = read_regular(out / STDOUT, cap) or b"", read_regular(out / STDERR, cap) or b""
    return o[:cap], e[:cap], len(o) > cap or len(e) > cap
