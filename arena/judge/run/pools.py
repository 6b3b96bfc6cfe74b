"""The judge's pools of pre-started Docker sandboxes, and closes kept off the critical path.

One pool per (image, limits, judge-side directory hash, warm-up): the judge-side
directory is content-addressed (``tests_cache``), so the key is stable for one
challenge + phases and a pooled container's read-only ``/judge`` mount is exactly what
the run needs; ``/judge-out`` is each container's own scratch (a 16 MiB tmpfs on the
host, as root). Bounded twice: ``size`` containers ready per pool, at most
``max_pools`` pools (least recently used closed first). A container serves exactly one
submission and is then removed — in the background: ``close_later`` returns at once and
``drain()``/``aclose()`` wait for every close; a close still pending at exit is done by
the sandbox registry (atexit/SIGTERM), and a crashed arena's by ``cleanup_stale``.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import shutil
from collections import OrderedDict
from pathlib import Path
from typing import Awaitable, Protocol

from arena.judge.run import command as cmd
from arena.sandbox import registry
from arena.sandbox.base import Limits, Mount

log = logging.getLogger(__name__)
OUT_MB = 16  # the run's only writable host directory: memory, never the host disk
# Run once in each new pooled container (trusted, before any submission is there):
# the first exec in a fresh container otherwise pays for the overlay's cold lookups.
WARM_ARGV = [
    "python3",
    "-I",
    "-B",
    "-c",
    "import pytest, _pytest.junitxml, _pytest.terminal, _pytest.runner, "
    "_pytest.python\ntry:\n import coverage\nexcept Exception:\n pass",
]


class Closeable(Protocol):
    """What the judge closes in the background: a pool, a used sandbox, a prepared one."""

    async def close(self) -> None: ...


class JudgePools:
    def __init__(self, backend, size: int, max_pools: int = 4, warm: bool = True, launcher: bool = True):
        self.backend, self.size, self.max_pools, self.warm = backend, size, max_pools, warm
        self.launcher = launcher
        self.pools: OrderedDict[tuple, Closeable] = OrderedDict()
        self.closing: set[asyncio.Future[None]] = set()
        self._cache: Path | None = None

    @property
    def cache_root(self) -> Path:
        """This judge's content-addressed judge-side directories (removed at aclose or
        exit; pid-tagged, so cleanup_stale removes a crashed arena's)."""
        if self._cache is None:
            self._cache = registry.STATE_ROOT / f"{registry.owner_tag()}-judgecache-{secrets.token_hex(4)}"
            cache = self._cache
            registry.register(cache.name, lambda: shutil.rmtree(cache, ignore_errors=True))
        return self._cache

    def pool(self, image: str, limits: Limits, judge_dir: Path, pytest: bool, trace: bool = False):
        """``trace``: launchers prepared for the coverage pass (their own pool)."""
        launch = pytest and self.launcher
        key = (image, limits, judge_dir.name, pytest and self.warm, launch, trace and launch)
        pool = self.pools.get(key)
        if pool is not None:
            self.pools.move_to_end(key)
            return pool
        pool = self.backend.pool(
            limits,
            mounts=[Mount(judge_dir, cmd.JUDGE_ROOT, readonly=True)],
            image=image,
            workspace_readonly=True,
            size=self.size,
            scratch=cmd.OUT_DIR,
            scratch_mb=OUT_MB,
            warm=WARM_ARGV if key[3] else None,
            warm_env=cmd.judge_env(),
            launcher=(list(cmd.BOOTSTRAP), cmd.launcher_env(trace=key[5])) if launch else None,
        )
        self.pools[key] = pool
        while len(self.pools) > self.max_pools:
            _, old = self.pools.popitem(last=False)
            self._later(old.close())
        return pool

    def close_later(self, sandbox: Closeable) -> None:
        """Close (remove) a used sandbox without waiting for it."""
        self._later(sandbox.close())

    def _later(self, coro: Awaitable[None]) -> None:
        fut = asyncio.ensure_future(coro)
        self.closing.add(fut)
        fut.add_done_callback(self._closed)

    def _closed(self, fut: asyncio.Future[None]) -> None:
        self.closing.discard(fut)
        if not fut.cancelled() and fut.exception() is not None:
            log.warning("judge: closing a sandbox failed: %s", fut.exception())

    async def drain(self) -> None:
        while self.closing:
            await asyncio.gather(*list(self.closing), return_exceptions=True)

    async def aclose(self) -> None:
        pools, self.pools = list(self.pools.values()), OrderedDict()
        for p in pools:
            self._later(p.close())
        await self.drain()
        if self._cache is not None:
            registry.unregister(self._cache.name)
            shutil.rmtree(self._cache, ignore_errors=True)
            self._cache = None
