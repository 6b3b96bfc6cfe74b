"""The command's machine: place each attempt on a Ray node and bring its events home.

``ClusterPlacer(address).place`` is the Arena's "run this attempt elsewhere" seam
(``Arena.place``). Per attempt: one ``NodeAttempt`` actor needing one ``gauntlet_slot``
(Ray's own scheduler picks the node and queues the actor while every slot is taken); the
package goes out by content hash (``ray.put`` once per hash); then a pull loop: every
``next_batch(acked)`` returns the node's new events, which are published on the local
bus exactly as a local attempt's (so the store, the screens and the headless printer see
them), committed with ``store.flush()``, and acknowledged in the next call — only then
does the node answer the agent's submit. A node lost mid-attempt ends the attempt
``infra_error`` naming the node; events are deduplicated by ``seq``. An agent with a
model reaches this machine's gateway through ``gwlink.GatewayLink`` (keys stay here).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena import events as ev
from arena.agents.base import identity_of
from arena.attempt import runner_lock
from arena.cluster import ship
from arena.cluster.gwlink import GatewayLink
from arena.errors import UsageError

if TYPE_CHECKING:  # the attempt layer sits above the cluster placer
    from arena.attempt.arena import Arena
    from arena.attempt.core import Attempt

log = logging.getLogger(__name__)
SLOT = "gauntlet_slot"
UNAVAILABLE_RETRIES = 20  # transient "actor unavailable" answers before giving up (1 s apart)


class _State:
    def __init__(self) -> None:
        self.acked = 0  # highest seq committed here
        self.started = False
        self.judged: set[int] = set()
        self.replaced: set[int] = set()
        # the next_batch call in flight: a pump cancelled while waiting for it (the operator
        # stopped the attempt) leaves it here, and the next pump reads that same batch
        # instead of losing the events the node already handed to it
        self.pending: Any = None

    def scored(self) -> int | None:
        ok = self.judged - self.replaced
        return max(ok) if ok else None


class ClusterPlacer:
    # Any: the ray module (imported only with --cluster; tests pass a stand-in)
    def __init__(self, address: str, *, ray_module: Any = None) -> None:
        import ray  # noqa: PLC0415 - Ray is imported only with --cluster

        from arena.cluster.node import NodeAttempt

        self.ray = ray_module or ray
        self.address = address
        try:
            self.ray.init(
                address=address,
                namespace="gauntlet",
                log_to_driver=False,
                ignore_reinit_error=True,
                logging_level=logging.WARNING,
            )
        except Exception as exc:  # noqa: BLE001 - ConnectionError, RuntimeError, ValueError
            raise UsageError(
                f"--cluster {address}: cannot connect to the Ray cluster: "
                f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
            ) from None
        slots = self.ray.cluster_resources().get(SLOT, 0)
        if not slots:
            raise UsageError(
                f"--cluster {address}: no node offers the {SLOT} resource (start "
                f"nodes with ray start ... --resources='{{\"{SLOT}\": N}}')"
            )
        self._actor = self.ray.remote(NodeAttempt)
        # blocking ray.get calls: per running attempt its event pump, and with a model the
        # gateway tunnel's pull and push (gwlink.py); per queued attempt its wait for a slot
        self._pool = ThreadPoolExecutor(max_workers=256, thread_name_prefix="ray-get")
        self._packages: dict[str, tuple[str, Any]] = {}
        self.shared: Any = None  # set by attach()

    def attach(self, arena: "Arena") -> None:
        """Make ``arena`` run its attempts on the cluster."""
        self.shared = arena.shared
        arena.place = self.place

    def nodes(self) -> list[dict[str, Any]]:
        """Alive nodes with their ``gauntlet_slot`` total (for doctor and the dashboard)."""
        return [
            {
                "id": n["NodeID"],
                "address": n.get("NodeManagerAddress"),
                "host": n.get("NodeManagerHostname"),
                "slots": n.get("Resources", {}).get(SLOT, 0),
            }
            for n in self.ray.nodes()
            if n.get("Alive")
        ]

    # Any: a Ray ObjectRef and whatever the remote call returned
    async def _get(self, ref: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self._pool, self.ray.get, ref)

    def _package(self, root: Path) -> tuple[str, Any]:
        key = str(Path(root).resolve())
        if key not in self._packages:
            h, data = ship.pack(Path(root))
            self._packages[key] = (h, self.ray.put(data))
        return self._packages[key]

    def job_for(self, attempt: "Attempt") -> tuple[dict[str, Any], list]:
        h, ref = self._package(attempt.challenge.root)
        spec = attempt.agent.spec
        job: dict[str, Any] = {
            "attempt": attempt.id,
            "agent": spec,
            "package_hash": h,
            "time_scale": attempt.time_scale,
            "run": attempt.run_id,
            "sandbox": None,
        }  # the node's own backend (auto: docker, else local)
        if not (spec.startswith("scripted:") or spec == "human") and Path(spec).is_file():
            import hashlib  # noqa: PLC0415

            data = Path(spec).read_bytes()
            job["agent_file"] = {"name": Path(spec).name, "data": data, "hash": hashlib.sha256(data).hexdigest()}
        return job, [ref]

    # -- one attempt -----------------------------------------------------------------
    async def place(self, attempt: "Attempt") -> str:
        ray = self.ray
        job, package = self.job_for(attempt)
        link = GatewayLink(self, attempt)  # the model gateway stays here (gwlink.py)
        job["gateway"] = await link.open()
        actor = self._actor.options(
            resources={SLOT: 1}, num_cpus=0, max_restarts=0, max_task_retries=0, max_concurrency=64
        ).remote()
        st, node = _State(), {"id": "?", "host": "?", "address": "?"}
        try:
            node = await self._get(actor.where.remote())  # waits for a free slot
            run_ref = actor.run.remote(job, package)
            link.start(actor)
            await self._pump(attempt, actor, st, node)
            status = await self._get(run_ref)
        except asyncio.CancelledError:
            with contextlib.suppress(BaseException):
                actor.stop.remote()
                await asyncio.wait_for(asyncio.shield(self._pump(attempt, actor, st, node)), 20)
            raise
        except ray.exceptions.RayTaskError as exc:  # a bug of ours on the node
            status = await self._lost(attempt, st, node, "agent-runner", str(exc).splitlines()[-1])
        except (ray.exceptions.RayError, ConnectionError) as exc:
            status = await self._lost(
                attempt,
                st,
                node,
                "node",
                f"node {node['host']} ({node['address']}, id {node['id'][:12]}) lost mid-attempt: {type(exc).__name__}",
            )
        finally:
            await link.close()
            with contextlib.suppress(Exception):
                ray.kill(actor, no_restart=True)
        attempt.status = status
        return status

    # Any: a Ray actor handle (NodeAttempt.remote)
    async def _pump(self, attempt: "Attempt", actor: Any, st: _State, node: dict) -> None:
        failed: str | None = None
        unavailable = 0
        while True:
            try:
                if st.pending is None:
                    st.pending = actor.next_batch.remote(st.acked, 1.0, failed)
                batch = await self._get(st.pending)
                st.pending = None
            except self.ray.exceptions.ActorUnavailableError:
                st.pending = None
                unavailable += 1
                if unavailable > UNAVAILABLE_RETRIES:
                    raise
                await asyncio.sleep(1.0)  # infrastructure retry, not attempt logic
                continue
            unavailable = 0
            for h, data in batch["snapshots"].items():
                await asyncio.to_thread(ship.unpack, data, self.shared.snapshots / h, expect=None)
            last = st.acked
            for raw in batch["events"]:
                e = ev.Event(**raw)
                if e.seq <= last:
                    continue  # already here (a repeated batch): never stored twice
                self.shared.bus.deliver(self._local(attempt, e, st, node))
                last = e.seq
            if last > st.acked:
                try:
                    await self.shared.store.flush()
                    st.acked = last
                    self._timings(batch.get("published") or [])
                except Exception as exc:  # noqa: BLE001 - the node answers infra_error
                    failed = f"{type(exc).__name__}: {exc}"
            if batch["done"]:
                return

    def _timings(self, published: list[float]) -> None:
        """Benchmark only ($GAUNTLET_CLUSTER_TIMINGS): seconds from each event's publish on
        the node to its commit here (nodes of the test bed share this machine's clock)."""
        path = os.environ.get("GAUNTLET_CLUSTER_TIMINGS")
        if path and published:
            import time  # noqa: PLC0415

            now = time.time()
            with open(path, "a") as fh:
                fh.write("".join(f"{now - at:.6f}\n" for at in published))

    def _local(self, attempt: "Attempt", e: ev.Event, st: _State, node: dict) -> ev.Event:
        d = e.data
        if e.kind == ev.ATTEMPT_STARTED:
            st.started = True
            d = {
                **d,
                "challenge_path": str(Path(attempt.challenge.root).resolve()),
                "workspace": str(self.shared.workspaces / attempt.id),
                "runner_pid": runner_lock.held_pid(),
                "agent": identity_of(attempt.agent),
                "agent_spec": attempt.agent.spec,
                "node": node,
            }
            e = e.model_copy(update={"data": d})
        elif e.kind == ev.FEEDBACK_DELIVERED and isinstance(d.get("submission"), int):
            st.judged.add(d["submission"])
        elif e.kind == ev.SUBMISSION_REPLACED and isinstance(d.get("submission"), int):
            st.replaced.add(d["submission"])
        attempt.events.append(e)
        return e

    async def _lost(self, attempt: "Attempt", st: _State, node: dict, source: str, detail: str) -> str:
        """Close the attempt here: what was committed stays, the node's unsent events are
        gone (none of them was acknowledged to the agent)."""
        bus = self.shared.bus
        bus.start_seq(attempt.id, st.acked)
        if not st.started:
            e = bus.publish(
                attempt.id, 0.0, ev.ATTEMPT_STARTED, {**attempt.started_data(), "node": node}
            )  # never reached the node
            attempt.events.append(e)
        last_t = max((x.t for x in attempt.events), default=0.0)
        for kind, data in (
            (ev.INFRA_ERROR, {"source": source, "detail": detail, "node": node}),
            (
                ev.ATTEMPT_FINISHED,
                {"status": "infra_error", "reason": f"{source}: {detail}", "scored_submission": st.scored()},
            ),
        ):
            attempt.events.append(bus.publish(attempt.id, last_t, kind, data))
        with contextlib.suppress(Exception):
            await self.shared.store.flush()
        attempt.reason = f"{source}: {detail}"
        log.warning("attempt %s: %s", attempt.id, detail)
        return "infra_error"

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
        with contextlib.suppress(Exception):
            self.ray.shutdown()
