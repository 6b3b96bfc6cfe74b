"""The node side: one attempt (the agent's sandbox and its judge) on a Ray node.

``NodeAttempt`` is the body of a Ray actor (made remote in ``arena.cluster.driver``, one
per attempt, holding one ``gauntlet_slot``). It unpacks the challenge package it was sent
by content hash, builds a node-local ``Shared`` (bus, judge, the node's sandbox backend,
watcher, data directory) whose store is a ``RelayStore``, and runs the unmodified
``arena.attempt.Attempt``. The command's machine pulls events in batches with
``next_batch(acked)``, commits them, and says in its next call how far it has committed:
``RelayStore.flush()`` (what ``Attempt.commit`` awaits before answering a submit) returns
only once the command's machine has acknowledged everything appended before it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import time
from pathlib import Path
from typing import Any

from arena import events as ev
from arena.cluster import ship
from arena.cluster.gwlink import NodeGateway

NODE_DIR = Path(os.environ.get("GAUNTLET_NODE_DIR", "/tmp/gauntlet-node"))


class RelayStoreError(RuntimeError):
    """The command's machine could not commit (its store failed)."""


class RelayStore:
    """The node's stand-in for ``store.Store``: ``append`` (a bus subscriber) puts events
    in the outbox; ``flush`` waits for the command's machine's acknowledgement."""

    def __init__(self) -> None:
        self.outbox: list[Any] = []
        self.last = 0  # highest seq appended
        self.acked = 0  # highest seq the command's machine has committed
        self.failed: str | None = None
        self._acked = asyncio.Event()
        self.wake = asyncio.Event()

    def append(self, event: ev.Event) -> None:
        self.outbox.append((event, time.time()))  # the publish instant, for the benchmark
        self.last = max(self.last, event.seq)
        self.wake.set()

    def ack(self, upto: int, failed: str | None = None) -> None:
        if failed:
            self.failed = failed
        if upto > self.acked or failed:
            self.acked = max(self.acked, upto)
            self._acked.set()
            self._acked = asyncio.Event()

    def take(self) -> list[Any]:
        out, self.outbox = self.outbox, []
        self.wake = asyncio.Event()
        return out

    async def flush(self) -> None:
        target = self.last
        while self.acked < target:
            if self.failed:
                raise RelayStoreError(f"the command's machine could not commit: {self.failed}")
            await self._acked.wait()
        if self.failed and self.acked < target:
            raise RelayStoreError(self.failed)


def node_identity() -> dict[str, str]:
    try:
        import ray  # noqa: PLC0415 - only ever on a node, inside a Ray worker

        node_id = ray.get_runtime_context().get_node_id()
        ip = ray.util.get_node_ip_address()
    except Exception:  # noqa: BLE001 - outside Ray (unit tests): the host alone
        node_id, ip = "local", "127.0.0.1"
    return {"id": node_id, "host": socket.gethostname(), "address": ip}


class NodeAttempt:
    """One attempt on this node. Methods are called by the command's machine."""

    def __init__(self) -> None:
        self.store = RelayStore()
        self.attempt: Any = None
        self.task: asyncio.Task | None = None
        self.finished = False
        self.shared: Any = None
        self._watch: asyncio.Task | None = None
        self.gateway = NodeGateway()  # the tunnel to the command machine's gateway

    async def where(self) -> dict[str, str]:
        return node_identity()

    async def run(self, job: dict[str, Any], package: list) -> str:
        """Run the attempt described by ``job`` (see ``driver.job_for``); ``package`` is
        ``[ObjectRef]`` of the package tar, fetched only when this node lacks its hash."""
        try:
            self.task = asyncio.ensure_future(self._run(job, package))
            try:
                return await self.task
            except asyncio.CancelledError:  # stop(): the attempt closed itself interrupted
                return "interrupted"
        finally:
            self.finished = True
            self.store.wake.set()

    async def _run(self, job: dict[str, Any], package: list) -> str:
        from arena.agents.factory import make_agent
        from arena.attempt.core import Attempt
        from arena.attempt.shared import Shared
        from arena.bus import EventBus
        from arena.challenge import load_challenge
        from arena.judge import Judge
        from arena.sandbox import get_backend
        from arena.telemetry.watch import WorkspaceWatcher
        from arena import paths

        pkg = NODE_DIR / "packages" / job["package_hash"]
        if not pkg.exists():
            data = await package[0]
            ship.unpack(data, pkg, expect=job["package_hash"])
        spec = job["agent"]
        if job.get("agent_file"):
            name, data_hash = job["agent_file"]["name"], job["agent_file"]["hash"]
            f = NODE_DIR / "agents" / data_hash / name
            if not f.exists():
                f.parent.mkdir(parents=True, exist_ok=True)
                f.write_bytes(job["agent_file"]["data"])
            spec = str(f)
        challenge = load_challenge(pkg)
        store_path = NODE_DIR / "data" / "node.db"
        backend = get_backend(job.get("sandbox"))
        watcher = WorkspaceWatcher(paths.workspaces_root(store_path), interval=0.25)
        bus = EventBus()
        bus.subscribe(self.store.append)
        # the relay stands in for the store on a node (append/flush): the Store seam it fills
        self.shared = Shared(bus, self.store, Judge(backend, 1), backend, watcher, store_path)  # type: ignore[arg-type]  # RelayStore is duck-typed as Store
        if job.get("gateway"):  # the agent has a model: its gateway is the command machine's
            self.gateway.configure(job["gateway"], paths.sockets_root(store_path) / f"gwn-{os.getpid()}")
            self.shared._gateway = self.gateway
        self._watch = asyncio.ensure_future(watcher.run())
        agent = make_agent(spec, challenge)
        a = Attempt(challenge, agent, self.shared, time_scale=float(job["time_scale"]), attempt_id=job["attempt"])
        a.run_id = job.get("run")
        self.attempt = a
        try:
            return await a.run()
        finally:
            self._watch.cancel()
            with contextlib.suppress(BaseException):
                await self._watch
            with contextlib.suppress(Exception):
                await self.shared.judge.aclose()
            await self.gateway.aclose()

    async def next_batch(self, acked: int, wait_s: float = 1.0, failed: str | None = None) -> dict:
        """Acknowledge ``acked`` (committed on the command's machine), then return the
        next events (waiting up to ``wait_s`` for one), the snapshots their submissions
        name, and whether the attempt is over and everything has been sent."""
        self.store.ack(acked, failed)
        if not self.store.outbox and not self.finished:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.store.wake.wait(), wait_s)
            await asyncio.sleep(0.005)  # let a burst of events gather into one batch
        taken = self.store.take()
        events = [e for e, _ in taken]
        snaps = {}
        if self.shared is not None:
            for e in events:
                h = e.data.get("hash") if e.kind == "submission.received" else None
                d = self.shared.snapshots / h if isinstance(h, str) else None
                if d is not None and d.is_dir():
                    snaps[h] = ship.pack(d)[1]
        return {
            "events": [e.model_dump() for e in events],
            "snapshots": snaps,
            "published": [at for _, at in taken],
            "done": self.finished and not self.store.outbox,
        }

    async def gw_pull(self, acked: int, wait_s: float = 1.0) -> list:
        """The bytes the agent sent to its gateway socket since ``acked`` (gwlink.py)."""
        return await self.gateway.pull(acked, wait_s)

    async def gw_push(self, items: list) -> None:
        """The gateway's answers and events, in order (gwlink.py)."""
        self.gateway.push(items)

    async def stop(self) -> None:
        """The operator stopped the run: the attempt ends ``interrupted``."""
        if self.task is not None and not self.task.done():
            self.task.cancel()
