"""The cluster's nodes and their ``gauntlet_slot``s, as plain data (CONTRACT §9).

For the dashboard's cluster line and ``gauntlet doctor --cluster``: screens get
``ClusterSnapshot``/``NodeSlots`` and never see Ray.

    status = ClusterStatus("ray://head:10001")   # connects (or reuses the connection)
    snap = status.poll()                          # blocking: call it off the UI's loop
    [(n.host, n.used, n.free) for n in snap.alive]

Totals come from ``ray.nodes()``. What is free on each node is not in Ray's public API
(``ray.available_resources()`` is cluster-wide), so a small actor (no CPU, on the head
when it can) reads ``ray._private.state.available_resources_per_node()`` — a
DeveloperAPI of the pinned Ray range — inside the cluster; when it cannot be reached,
each node's ``free`` is None and the snapshot still has the cluster-wide free count.
"""

from __future__ import annotations

import contextlib
import logging
import time
from dataclasses import dataclass, field
from typing import Any

from arena.errors import UsageError

SLOT = "gauntlet_slot"
HEAD = "node:__internal_head__"
POLL_TIMEOUT_S = 5.0
# The head's Ray Client server starts a server process per command; now and then that
# process dies at birth ("Initialization failure from server", seen on a loaded machine,
# its log empty): a fresh connection then works.
FLAKY = "Initialization failure from server"
CONNECT_TRIES = 3


@dataclass(frozen=True)
class NodeSlots:
    id: str
    host: str
    address: str
    alive: bool = True
    total: int = 0  # gauntlet_slots the node offers
    free: int | None = None  # None: not known (the per-node reading failed)
    head: bool = False

    @property
    def used(self) -> int | None:
        return None if self.free is None else max(0, self.total - self.free)


@dataclass(frozen=True)
class ClusterSnapshot:
    address: str
    nodes: tuple[NodeSlots, ...] = ()
    cluster_free: int | None = None  # ray.available_resources(): the whole cluster
    error: str = ""  # the poll failed (the nodes are then the last ones known, or none)
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def alive(self) -> list[NodeSlots]:
        return [n for n in self.nodes if n.alive]

    @property
    def lost(self) -> list[NodeSlots]:
        """Dead nodes whose host has no alive node now (a restarted node is a new id)."""
        hosts = {n.host for n in self.alive}
        return [n for n in self.nodes if not n.alive and n.host not in hosts]

    @property
    def total(self) -> int:
        return sum(n.total for n in self.alive)


# Any: the ray module, in and out (imported only with --cluster)
def init_ray(address: str, ray: Any = None) -> Any:
    """Connect this process to the cluster at ``address`` (a connection already made is
    reused); the ray module. ``UsageError`` naming ``--cluster`` when Ray is missing or the
    cluster cannot be reached; a connection the head's client server failed to set up is
    tried again (``CONNECT_TRIES``)."""
    if ray is None:
        from arena.cluster.grpcquiet import quiet_grpc  # noqa: PLC0415

        quiet_grpc()
        try:
            import ray as ray_module  # noqa: PLC0415 - Ray is imported only with --cluster
        except ImportError:
            raise UsageError(
                f"--cluster {address}: Ray is not installed (pip install 'gauntlet-arena[cluster]')"
            ) from None
        ray = ray_module
    if ray.is_initialized():
        return ray
    for attempt in range(1, CONNECT_TRIES + 1):
        try:
            ray.init(
                address=address,
                namespace="gauntlet",
                log_to_driver=False,
                ignore_reinit_error=True,
                logging_level=logging.WARNING,
            )
            return ray
        except Exception as exc:  # noqa: BLE001 - ConnectionError, RuntimeError, ValueError
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            if FLAKY not in first or attempt == CONNECT_TRIES:
                raise UsageError(f"--cluster {address}: cannot connect to the Ray cluster: {first}") from None
            with contextlib.suppress(Exception):
                ray.shutdown()
            time.sleep(2.0)  # an infrastructure retry (the head's per-client server), not attempt logic
    raise AssertionError("unreachable")


def node_slots(raw: dict[str, Any], free: dict[str, dict[str, float]] | None = None) -> NodeSlots:
    """One ``ray.nodes()`` entry (and the per-node available resources, if known)."""
    res = raw.get("Resources") or {}
    nid = str(raw.get("NodeID", ""))
    avail = None if free is None or nid not in free else int(free[nid].get(SLOT, 0))
    return NodeSlots(
        id=nid,
        host=str(raw.get("NodeManagerHostname") or raw.get("NodeManagerAddress") or nid[:12]),
        address=str(raw.get("NodeManagerAddress", "")),
        alive=bool(raw.get("Alive")),
        total=int(res.get(SLOT, 0)),
        free=avail if raw.get("Alive") else 0,
        head=HEAD in res,
    )


class SlotWatch:
    """The body of the in-cluster actor that reads each node's available resources."""

    def available(self) -> dict[str, dict[str, float]]:
        import ray._private.state as state  # noqa: PLC0415 - inside the cluster only

        return {k: dict(v) for k, v in state.available_resources_per_node().items()}


class ClusterStatus:
    # Any: the ray module (tests may pass a stand-in)
    def __init__(self, address: str, *, ray_module: Any = None) -> None:
        self.address = address
        self.ray = init_ray(address, ray_module)
        self._watch: Any = None  # the SlotWatch actor handle, made on the first poll
        self._watch_failed = ""

    def _free_per_node(self, nodes: list[dict[str, Any]]) -> dict[str, dict[str, float]] | None:
        ray = self.ray
        if self._watch is None and not self._watch_failed:
            try:
                from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy  # noqa: PLC0415

                head = next((n["NodeID"] for n in nodes if n.get("Alive") and HEAD in (n.get("Resources") or {})), None)
                opts: dict[str, Any] = {"num_cpus": 0, "max_restarts": 0}
                if head:
                    opts["scheduling_strategy"] = NodeAffinitySchedulingStrategy(head, soft=True)
                self._watch = ray.remote(SlotWatch).options(**opts).remote()
            except Exception as exc:  # noqa: BLE001 - then only the cluster-wide count
                self._watch_failed = f"{type(exc).__name__}: {exc}"
                return None
        try:
            return ray.get(self._watch.available.remote(), timeout=POLL_TIMEOUT_S)
        except Exception:  # noqa: BLE001 - e.g. its node was lost: a new one next time
            with contextlib.suppress(Exception):
                ray.kill(self._watch, no_restart=True)
            self._watch = None
            return None

    def poll(self) -> ClusterSnapshot:
        """The nodes now (blocking, a few ms once warm; up to ``POLL_TIMEOUT_S``)."""
        ray = self.ray
        try:
            nodes = list(ray.nodes())
            free = self._free_per_node(nodes)
            cluster_free = int(ray.available_resources().get(SLOT, 0))
        except Exception as exc:  # noqa: BLE001 - the cluster went away: say so
            first = str(exc).splitlines()[0] if str(exc) else ""
            return ClusterSnapshot(self.address, error=f"{type(exc).__name__}: {first}".rstrip(": "))
        notes = (f"per-node free slots unknown ({self._watch_failed})",) if self._watch_failed else ()
        out = sorted((node_slots(n, free) for n in nodes), key=lambda n: (not n.head, n.host, n.id))
        return ClusterSnapshot(self.address, tuple(out), cluster_free, notes=notes)

    def close(self) -> None:
        if self._watch is not None:
            with contextlib.suppress(Exception):
                self.ray.kill(self._watch, no_restart=True)
            self._watch = None
