"""``gauntlet doctor --cluster``: every node checks its own sandbox backend and images.

``check_cluster(address)`` (the command's machine) lists the nodes and runs
``check_node`` as a Ray task pinned to each alive one (``NodeAffinitySchedulingStrategy``,
not soft: on that node or not at all; no CPU asked, so busy nodes answer too). On the node,
``check_node`` looks at what an attempt placed there would use: the backend it picks
(Docker when its engine answers, else local bubblewrap), the ``gauntlet-base`` image for
Docker, a real sandbox running ``python3`` (what judges and agents need), a writable
``$GAUNTLET_NODE_DIR``, the same Python minor and Ray as here; the ruff binary and the
agent images are optional. Plain dicts and dataclasses out: the command prints them.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.cluster.status import ClusterSnapshot, ClusterStatus, NodeSlots
from arena.sandbox.base import Backend

NODE_TIMEOUT_S = 120.0


def _check(name: str, ok: bool, detail: str, fix: str = "", needed: bool = True) -> dict[str, Any]:
    return {"name": name, "ok": ok, "detail": detail, "fix": "" if ok else fix, "needed": needed}


def expected() -> dict[str, str]:
    """What every node must match (the command's machine's side)."""
    import ray  # noqa: PLC0415 - only with --cluster

    return {"python": f"{sys.version_info.major}.{sys.version_info.minor}", "ray": ray.__version__}


# -- on the node ---------------------------------------------------------------------
async def _smoke(backend: Backend, root: Path) -> tuple[bool, str]:
    """A real sandbox of ``backend``: ``python3`` runs and prints inside it."""
    from arena.sandbox.base import Limits  # noqa: PLC0415

    ws = Path(tempfile.mkdtemp(prefix="doctor-", dir=root))
    sb = None
    try:
        sb = await backend.create(ws, Limits(wall_s=60))
        r = await sb.exec(["python3", "-c", "print('gauntlet-ok')"], timeout=60)
        out = r.stdout.decode(errors="replace").strip()
        if r.exit_code == 0 and out == "gauntlet-ok":
            return True, "a sandbox ran python3"
        return (
            False,
            f"python3 in a sandbox: exit {r.exit_code}: {(r.stderr or r.stdout).decode(errors='replace')[-160:]}",
        )
    except Exception as exc:  # noqa: BLE001 - SandboxError and whatever the backend raised
        return False, f"{type(exc).__name__}: {str(exc)[:200]}"
    finally:
        if sb is not None:
            try:
                await sb.close()
            except Exception:  # noqa: BLE001 - the verdict is already known
                pass
        shutil.rmtree(ws, ignore_errors=True)


def _backend_checks(node_dir: Path) -> list[dict[str, Any]]:
    from arena.sandbox import SandboxError, docker_available, get_backend  # noqa: PLC0415

    out: list[dict[str, Any]] = []
    name = "docker" if docker_available() else "local"
    if name == "docker":
        from arena.sandbox.image import image_status  # noqa: PLC0415

        try:
            st = image_status()
            out.append(
                _check(
                    "image",
                    bool(st["present"]),
                    st["image"] if st["present"] else f"{st['image']} missing",
                    "gauntlet sandbox build (on this node)",
                )
            )
            if not st["present"]:
                return out
        except Exception as exc:  # noqa: BLE001
            out.append(_check("image", False, f"cannot list images: {exc}", "gauntlet sandbox build (on this node)"))
            return out
    try:
        backend = get_backend(name)
    except SandboxError as exc:
        fix = "apt-get install -y bubblewrap (or a Docker engine with gauntlet sandbox build)"
        out.append(_check("backend", False, f"{name}: {exc}", fix))
        return out
    ok, detail = asyncio.run(_smoke(backend, node_dir))
    mode = ""
    if name == "local":
        mode = f" ({'root+setpriv' if backend.privileged else 'unprivileged userns'}, "
        mode += f"{'cgroup limits' if backend.use_cgroups else 'rlimits'})"
    fix = (
        "run the node with SYS_ADMIN (bubblewrap's namespaces), or give it a Docker engine"
        if name == "local"
        else "check the node's Docker engine and gauntlet-base image"
    )
    out.append(_check("backend", ok, f"{name}{mode}: {detail}", fix))
    return out


def check_node(expect: dict[str, str]) -> dict[str, Any]:
    """Run on a node (as a Ray task): its identity and its checks."""
    from arena.cluster.node import NODE_DIR, node_identity  # noqa: PLC0415

    checks: list[dict[str, Any]] = []
    py = f"{sys.version_info.major}.{sys.version_info.minor}"
    try:
        import ray  # noqa: PLC0415

        rv = ray.__version__
    except ImportError:  # cannot be: this runs in a Ray worker
        rv = "?"
    same = py == expect.get("python") and rv == expect.get("ray")
    checks.append(
        _check(
            "runtime",
            same,
            f"python {sys.version.split()[0]}, ray {rv}",
            f"the same Python {expect.get('python')} and ray=={expect.get('ray')} as the command's machine",
        )
    )
    try:
        NODE_DIR.mkdir(parents=True, exist_ok=True)
        probe = NODE_DIR / f".doctor-{os.getpid()}"
        probe.write_text("ok")
        probe.unlink()
        checks.append(_check("node dir", True, str(NODE_DIR)))
        checks += _backend_checks(NODE_DIR)
    except OSError as exc:
        checks.append(
            _check(
                "node dir",
                False,
                f"{NODE_DIR}: {exc.strerror or exc}",
                "set GAUNTLET_NODE_DIR to a writable directory before `ray start`",
            )
        )
    try:
        from ruff import find_ruff_bin  # noqa: PLC0415

        ruff = find_ruff_bin()
    except Exception:  # noqa: BLE001
        ruff = shutil.which("ruff") or ""
    checks.append(
        _check(
            "ruff",
            bool(ruff),
            ruff or "not found (the code-quality judge)",
            "pip install ruff (optional)",
            needed=False,
        )
    )
    return {"identity": {**node_identity(), "hostname": socket.gethostname()}, "checks": checks}


# -- on the command's machine --------------------------------------------------------
@dataclass
class NodeReport:
    node: NodeSlots
    checks: list[dict[str, Any]] = field(default_factory=list)
    error: str = ""  # the check did not run (node lost, timed out)

    @property
    def ok(self) -> bool:
        return not self.error and all(c["ok"] for c in self.checks if c["needed"])

    @property
    def counts(self) -> bool:
        """A node with no slot takes no attempt: what it lacks does not fail the check."""
        return self.node.total > 0


@dataclass
class ClusterReport:
    snapshot: ClusterSnapshot
    nodes: list[NodeReport]

    @property
    def ok(self) -> bool:
        return self.snapshot.total > 0 and all(r.ok for r in self.nodes if r.counts)


# Any: the ray module (imported only here, with --cluster; tests may pass a stand-in)
def check_cluster(address: str, *, timeout: float = NODE_TIMEOUT_S, ray_module: Any = None) -> ClusterReport:
    """Connect, list the nodes, run ``check_node`` on each alive one (in parallel)."""
    status = ClusterStatus(address, ray_module=ray_module)
    ray = status.ray
    try:
        snap = status.poll()
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy  # noqa: PLC0415

        task = ray.remote(check_node)
        want = expected()
        refs = {  # one options() call: Ray Client's wrappers do not chain them
            n.id: task.options(
                num_cpus=0, max_retries=0, scheduling_strategy=NodeAffinitySchedulingStrategy(n.id, soft=False)
            ).remote(want)
            for n in snap.alive
        }
        reports = []
        for n in snap.alive:
            try:
                got = ray.get(refs[n.id], timeout=timeout)
                reports.append(NodeReport(n, got["checks"]))
            except Exception as exc:  # noqa: BLE001 - GetTimeoutError, the node lost, a bug there
                text = str(exc).strip().splitlines()
                reports.append(NodeReport(n, error=f"{type(exc).__name__}: {text[-1] if text else ''}"[:300]))
        return ClusterReport(snap, reports)
    finally:
        status.close()
