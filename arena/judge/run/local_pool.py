"""Local judge sandboxes prepared before their submission: the launcher, as on Docker.

``LocalPools.take(spec)`` hands out a prepared sandbox for these tests + limits, if one
is ready (else the judge runs the submission the cold way, one exec). Prepared = a private run directory (``ws/`` empty, bound
read-only at ``/workspace``; ``out/``, a small tmpfs at ``/judge-out``; ``judge/``, the
content-addressed judge-side tests and trusted config at ``/judge``), a bubblewrap
sandbox and, in it, the trusted bootstrap started as the launcher (PID 1 of the
sandbox's pid namespace, ``--as-pid-1``: nothing inside can signal it), which imports
pytest and coverage and waits on ``/judge-out/.request`` (arena/judge/in_sandbox/launcher.py,
arena/sandbox/launch.py). ``Prepared.run`` copies the snapshot into ``ws/``, sends the
one request and waits for the status; the sandbox is closed after the verdict and
never reused. Bounded: one prepared per key, at most ``max_keys`` keys; only keys the
caller warmed (``warm``) are refilled after a run.
"""

from __future__ import annotations

import asyncio
import logging
import shutil
import tempfile
import time
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING

from arena.judge.run import command as cmd
from arena.judge.run.scratch import make_out_dir, release_out_dir
from arena.judge.verdict.snapshot import materialize
from arena.judge.run.tests_cache import digest, judge_dir
from arena.sandbox import launch as proto
from arena.sandbox import registry
from arena.sandbox.base import ExecResult, Mount, SandboxError

if TYPE_CHECKING:
    from arena.sandbox.local_backend import LocalSandbox

log = logging.getLogger(__name__)
IDLE_MAX_S = 7 * 24 * 3600.0  # a prepared launcher waits this long at most


class Prepared:
    def __init__(self, run_dir: Path, mounted: bool, tests_args: list[str]):
        self.run_dir, self.mounted, self.tests_args = run_dir, mounted, tests_args
        self.out, self.ws = run_dir / "out", run_dir / "ws"
        self.sandbox: LocalSandbox | None = None
        self.task: asyncio.Future[ExecResult] | None = None  # the launcher's exec

    def alive(self) -> bool:
        return self.task is not None and not self.task.done()

    def _cleanup(self) -> None:  # also run by the sandbox registry on SIGTERM/SIGHUP/exit
        release_out_dir(self.out, self.mounted)
        shutil.rmtree(self.run_dir, ignore_errors=True)

    async def run(self, snapshot, args: list[str], timeout: float) -> ExecResult:
        sandbox, task = self.sandbox, self.task
        if sandbox is None or task is None:  # never: prepare() sets both or closes it
            raise SandboxError(f"prepared sandbox {self.run_dir.name}: not started")
        await asyncio.to_thread(materialize, snapshot, self.ws)
        cap, who = sandbox.limits.output_bytes, f"local sandbox {sandbox.id}"
        t0 = time.monotonic()
        ended, rc = await proto.request(self.out, args, cap, timeout, self.alive, who)
        timed_out = not ended
        if ended and rc is None:  # the launcher died: its exec ends with its tree
            try:
                res = await asyncio.wait_for(asyncio.shield(task), max(0.05, t0 + timeout - time.monotonic()))
                rc = res.exit_code
            except asyncio.TimeoutError:
                timed_out = True
        if timed_out:
            if not self.alive():
                raise SandboxError(f"{who}: the launcher ended without a status")
            task.cancel()  # exec kills the whole tree when cancelled
            await asyncio.gather(task, return_exceptions=True)
            rc = None
        stdout, stderr, truncated = proto.outputs(self.out, cap)
        return ExecResult(
            exit_code=rc,
            stdout=stdout,
            stderr=stderr,
            timed_out=timed_out,
            truncated=truncated,
            duration_s=time.monotonic() - t0,
        )

    async def close(self) -> None:
        try:
            if self.task is not None and not self.task.done():
                self.task.cancel()
            if self.task is not None:
                await asyncio.gather(self.task, return_exceptions=True)
            if self.sandbox is not None:
                await self.sandbox.close()
        finally:
            registry.unregister(self.run_dir.name)
            self._cleanup()


async def prepare(backend, spec, root: Path, wait: bool) -> Prepared:
    """A prepared sandbox; ``wait``: until its launcher waits for the request."""
    root.mkdir(parents=True, exist_ok=True)
    run_dir = Path(tempfile.mkdtemp(prefix=f"{registry.owner_tag()}-judge-", dir=root))
    p = Prepared(run_dir, False, [])
    registry.register(run_dir.name, p._cleanup)
    try:
        p.mounted = make_out_dir(p.out)
        p.ws.mkdir()
        jdir, p.tests_args = judge_dir(spec.test_dirs, run_dir / "judge")
        run_dir.chmod(0o755)
        sandbox: LocalSandbox = await backend.create(
            p.ws,
            spec.limits,
            image=spec.image,
            workspace_readonly=True,
            mounts=[Mount(jdir, cmd.JUDGE_ROOT, readonly=True), Mount(p.out, cmd.OUT_DIR, readonly=False)],
        )
        p.sandbox = sandbox
        # after create: each local sandbox runs as a uid of its own (arena/sandbox/quota.py)
        proto.make_fifos(p.out, sandbox.uid if getattr(backend, "privileged", False) else None)
        env = cmd.launcher_env(trace=bool(getattr(spec, "coverage", False)))
        p.task = asyncio.ensure_future(sandbox.exec(list(cmd.BOOTSTRAP), env=env, timeout=IDLE_MAX_S, as_pid_1=True))
        if wait:
            await asyncio.to_thread(proto.wait_ready, p.out, p.alive, f"local sandbox {sandbox.id}")
    except BaseException:
        await p.close()
        raise
    return p


class LocalPools:
    def __init__(self, backend, root: Path | None, max_keys: int = 4):
        self.backend, self.root, self.max_keys = backend, root, max_keys
        self.ready: OrderedDict[tuple, Prepared] = OrderedDict()
        self.pending: dict[tuple, asyncio.Future] = {}
        self.warmed: set[tuple] = set()

    def _root(self) -> Path:
        return self.root or registry.STATE_ROOT

    @staticmethod
    def key(spec) -> tuple:
        return (spec.limits, spec.image, digest(spec.test_dirs), bool(getattr(spec, "coverage", False)))

    async def warm(self, spec) -> None:
        key = self.key(spec)
        self.warmed.add(key)
        self.refill(key, spec)
        if key in self.pending:
            await asyncio.gather(self.pending[key], return_exceptions=True)

    def refill(self, key: tuple, spec) -> None:
        if key not in self.warmed or key in self.ready or key in self.pending:
            return
        fut = asyncio.ensure_future(prepare(self.backend, spec, self._root(), wait=True))
        self.pending[key] = fut

        def done(f: asyncio.Future) -> None:
            self.pending.pop(key, None)
            if f.cancelled() or f.exception() is not None:
                if not f.cancelled():
                    log.warning("judge: preparing a local sandbox failed: %s", f.exception())
                return
            self.ready[key] = f.result()
            while len(self.ready) > self.max_keys:
                _, old = self.ready.popitem(last=False)
                asyncio.ensure_future(old.close())

        fut.add_done_callback(done)

    async def take(self, spec) -> tuple[Prepared | None, tuple]:
        """A prepared sandbox for ``spec`` (None when none is ready: run it cold)."""
        key = self.key(spec)
        p = self.ready.pop(key, None)
        if p is not None and not p.alive():
            await p.close()
            p = None
        return p, key

    async def aclose(self) -> None:
        while self.pending:
            await asyncio.gather(*list(self.pending.values()), return_exceptions=True)
            await asyncio.sleep(0)
        self.warmed.clear()
        ready, self.ready = list(self.ready.values()), OrderedDict()
        await asyncio.gather(*(p.close() for p in ready), return_exceptions=True)
