"""Attempts on a Ray cluster (CONTRACT §9). Ray is imported only by ``connect`` (that is,
only with ``--cluster``, a plan's ``cluster:`` or ``RAY_ADDRESS``).

    placer = connect("ray://head:10001")   # or "auto", "host:6379"
    placer.attach(arena)                    # the arena's attempts now run on the nodes

Modules: ``driver`` (the command's machine: placement, event pump, faults), ``node``
(the actor that runs one attempt on a node), ``ship`` (content-hashed packages and
snapshots), ``grpcquiet`` (``quiet_grpc``), ``image`` (the ``gauntlet-node`` Docker image for test and demo nodes).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from arena.cluster.grpcquiet import quiet_grpc

if TYPE_CHECKING:
    from arena.cluster.driver import ClusterPlacer


def resolve_address(flag: str | None, plan: str | None = None) -> str | None:
    """``--cluster`` wins over the plan's ``cluster:``, which wins over ``RAY_ADDRESS``."""
    for v in (flag, plan, os.environ.get("RAY_ADDRESS")):
        if v and str(v).strip():
            return str(v).strip()
    return None


def connect(address: str) -> "ClusterPlacer":
    """A ``ClusterPlacer`` connected to the cluster at ``address`` (``UsageError`` naming
    ``--cluster`` when Ray is missing, the cluster cannot be reached or has no slot)."""
    from arena.errors import UsageError

    quiet_grpc()
    try:
        import ray  # noqa: F401,PLC0415
    except ImportError:
        raise UsageError(f"--cluster {address}: Ray is not installed (pip install 'gauntlet-arena[cluster]')") from None
    from arena.cluster.driver import ClusterPlacer
    from arena.cluster.status import init_ray

    init_ray(address)  # connected here (with its retry); the placer reuses the connection

    return ClusterPlacer(address)
