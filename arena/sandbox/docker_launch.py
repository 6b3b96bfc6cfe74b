"""Running a pooled container's one request: its main process is a trusted launcher.

A pool made with ``launcher=(argv, env)`` starts each container with that argv as its
main process (the sandbox user, PID 1; see ``DockerBackend.create_sync(main=...)``) and
the FIFOs of the launcher protocol (``launch.py``) in its scratch directory.
``launch(sandbox, args, timeout)`` sends the one request and waits for the launcher's
status, instead of a ``docker exec`` (API round trips and a new process tree); at the
timeout the container is killed. The container serves this one request only; its
close removes it.
"""

from __future__ import annotations

import asyncio
import time

from arena.sandbox import launch as proto
from arena.sandbox.base import ExecResult, SandboxError

REQUEST = proto.REQUEST


def _running(sb) -> bool:
    try:
        sb.container.reload()
    except Exception:  # noqa: BLE001
        return False
    return sb.container.status in ("created", "running")


def wait_ready(sb) -> None:
    proto.wait_ready(sb.request.parent, lambda: _running(sb), f"docker sandbox {sb.id}")


def _wait(sb, timeout: float) -> int | None:
    """The container's exit code, or None when it was still running at ``timeout``."""
    try:
        return int(sb.api.wait(sb.container.id, timeout=max(0.05, timeout))["StatusCode"])
    except Exception as exc:  # noqa: BLE001 — a read timeout, or the engine failed
        if "timed out" in str(exc).lower() or "timeout" in type(exc).__name__.lower():
            return None
        raise SandboxError(f"docker sandbox {sb.id}: waiting for the run failed: {exc}") from None


def _kill(sb) -> None:
    try:
        sb.container.kill()
    except Exception:  # noqa: BLE001 — it may have ended meanwhile
        pass


async def launch(sb, args: list[str], *, timeout: float) -> ExecResult:
    if sb.closed:
        raise SandboxError(f"sandbox {sb.id} is closed")
    out, cap, who = sb.request.parent, sb.limits.output_bytes, f"docker sandbox {sb.id}"
    t0 = time.monotonic()
    ended, rc = await proto.request(out, args, cap, timeout, lambda: _running(sb), who)
    timed_out = not ended
    if ended and rc is None:  # the launcher died (killed by the run): wait for the end
        rc = await asyncio.to_thread(_wait, sb, max(0.05, t0 + timeout - time.monotonic()))
        timed_out = rc is None
    if timed_out:
        if not await asyncio.to_thread(_running, sb):
            raise SandboxError(f"{who}: the launcher ended without a status")
        await asyncio.to_thread(_kill, sb)
        await asyncio.to_thread(_wait, sb, 15)
        rc = None
    stdout, stderr, truncated = proto.outputs(out, cap)
    return ExecResult(
        exit_code=rc,
        stdout=stdout,
        stderr=stderr,
        timed_out=timed_out,
        truncated=truncated,
        duration_s=time.monotonic() - t0,
    )
