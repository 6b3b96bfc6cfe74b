"""arena.sandbox — one protocol (base.py), two backends: ``docker`` and ``local``.

``get_backend(name)``: ``"docker"``, ``"local"``, or ``None`` = Docker when the engine
answers a ping within a short timeout, else local. ``cleanup_stale()`` removes what a
crashed run left behind (the attempt runner calls it on start).
"""

from __future__ import annotations

from arena.sandbox.base import (  # noqa: F401 — re-exported
    WORKSPACE,
    ExecResult,
    Limits,
    Mount,
    SandboxError,
)
from arena.sandbox.registry import cleanup_stale  # noqa: F401

BACKENDS = ("docker", "local")


def docker_available(timeout: float = 2.0) -> bool:
    try:
        import docker  # noqa: PLC0415

        client = docker.from_env(timeout=timeout)
        try:
            return bool(client.ping())
        finally:
            client.close()
    except Exception:  # noqa: BLE001 — any failure means "no engine"
        return False


def get_backend(name: str | None = None):
    """The backend called ``name``; raises SandboxError when it is unavailable."""
    if name is None:
        name = "docker" if docker_available() else "local"
    if name == "docker":
        from arena.sandbox.docker_backend import DockerBackend  # noqa: PLC0415

        return DockerBackend()
    if name == "local":
        from arena.sandbox.local_backend import LocalBackend  # noqa: PLC0415

        return LocalBackend()
    raise SandboxError(f"unknown sandbox backend {name!r}: expected one of {', '.join(BACKENDS)}")
