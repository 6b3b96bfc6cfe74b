"""Shared fixtures and checks for tests/test_sandbox*.py (both backends).

Docker cases carry ``@pytest.mark.docker`` and FAIL (never skip) when the engine or the
image is missing: ``get_backend("docker")`` raises SandboxError.
"""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from arena.sandbox import Limits, get_backend, registry
from arena.sandbox import cgroups

BACKENDS = [pytest.param("local", id="local"), pytest.param("docker", id="docker", marks=pytest.mark.docker)]

# Small limits so hostile code hits them fast.
SMALL = Limits(cpus=1.0, memory_mb=128, pids=64, wall_s=20.0, output_bytes=64 * 1024, tmpfs_mb=16, file_mb=8)


def leftovers(pid: int | None = None) -> dict[str, list[str]]:
    """What process ``pid`` (default: this one) left behind: containers, cgroups, state
    dirs, mounts."""
    me = str(pid or os.getpid())
    out: dict[str, list[str]] = {"cgroups": [], "dirs": [], "mounts": [], "containers": []}
    out["cgroups"] = [g for g in cgroups.stale_groups() if g.split("-")[0] == me]
    if registry.STATE_ROOT.is_dir():
        out["dirs"] = [d.name for d in registry.STATE_ROOT.iterdir() if d.name.split("-")[0] == me]
    root = f"{registry.STATE_ROOT}/{me}-"
    out["mounts"] = [
        ln.split()[4] for ln in Path("/proc/self/mountinfo").read_text().splitlines() if ln.split()[4].startswith(root)
    ]
    try:
        import docker

        client = docker.from_env(timeout=10)
        out["containers"] = [
            c.name for c in client.containers.list(all=True, filters={"label": f"gauntlet.owner={me}"})
        ]
    except Exception:  # noqa: BLE001 — no engine: no containers of ours either
        pass
    return {k: v for k, v in out.items() if v}


def host_procs_with(token: str) -> list[int]:
    """Host pids whose command line contains ``token`` (sandboxed processes included)."""
    found = []
    for p in Path("/proc").iterdir():
        if not p.name.isdigit() or int(p.name) == os.getpid():
            continue
        try:
            if token.encode() in (p / "cmdline").read_bytes():
                found.append(int(p.name))
        except OSError:
            continue
    return found


def script(ws: Path, name: str, body: str) -> list[str]:
    """Write a Python script into the workspace; return the argv that runs it inside."""
    (ws / name).write_text(textwrap.dedent(body))
    return ["python", f"/workspace/{name}"]


def left_since(before: dict[str, list[str]]) -> dict[str, list[str]]:
    """What this process holds now that it did not hold at ``before`` (a ``leftovers()``)."""
    now = leftovers()
    out = {k: sorted(set(v) - set(before.get(k, []))) for k, v in now.items()}
    return {k: v for k, v in out.items() if v}


@pytest.fixture(params=BACKENDS)
def backend(request):
    """The backend; after the test, what the test itself left behind fails it. Only what
    it made counts: one leak elsewhere in the run (a container some earlier test left) is
    that test's failure, not every later sandbox test's (stop 32's CI: one container, 60
    teardown errors)."""
    be = get_backend(request.param)  # raises (test fails) when unavailable
    before = leftovers()
    yield be
    left = left_since(before)
    assert not left, f"left behind after the test: {left}"


@pytest.fixture
def ws(tmp_path) -> Path:
    d = tmp_path / "ws"
    d.mkdir()
    return d


@pytest.fixture
async def sandbox(backend, ws):
    sb = await backend.create(ws, SMALL)
    try:
        yield sb
    finally:
        await sb.close()
