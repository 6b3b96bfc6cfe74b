"""The untouched starter, judged once before the clock starts (issue 20, item 1).

Judging measures demonstrated work as the objective gained over the starter
(arena/scoring/context.py ``work_credit``), so every attempt records what the starter
itself scores: a ``starter.judged`` event (``result``: the judge's result over every
phase's tests; ``cached``; ``key``), published before the agent starts, at t = 0.

The starter's result depends only on the package's files outside ``agents/``, the judge's
own code and the sandbox backend, so it is cached under ``$GAUNTLET_CACHE/starter-judged/``
keyed by those three: on one machine each package's starter is judged once. The cache is
written by the arena only (the agent never sees it). An infrastructure error is recorded
as such (``infra_error``) and never cached; judging then falls back to the work gate alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import os
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from arena import events as ev

if TYPE_CHECKING:
    from arena.attempt.host import AttemptHost
    from arena.attempt.shared import Shared
    from arena.challenge.loader import Challenge

log = logging.getLogger(__name__)


@cache
def judge_code_hash() -> str:
    """A hash of the judge package's source (a judge change invalidates the cache)."""
    root = Path(__file__).resolve().parent.parent / "judge"
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        if p.is_file() and p.suffix in (".py", ".yml", ".yaml", ".json"):
            h.update(p.relative_to(root).as_posix().encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def cache_key(challenge_hash: str, backend: str, phases: list[int]) -> str:
    raw = json.dumps([challenge_hash, backend, phases, judge_code_hash()])
    return hashlib.sha256(raw.encode()).hexdigest()[:32]


def _cache_file(key: str) -> Path:
    from arena.sandbox.cache import cache_dir  # noqa: PLC0415

    d = cache_dir() / "starter-judged"
    d.mkdir(parents=True, exist_ok=True)
    return d / f"{key}.json"


def _read_cache(key: str) -> dict | None:
    try:
        doc = json.loads(_cache_file(key).read_text())
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) and "result" in doc else None


def _write_cache(key: str, result: dict) -> None:
    f = _cache_file(key)
    tmp = f.with_suffix(f".{os.getpid()}.tmp")
    with contextlib.suppress(OSError):
        tmp.write_text(json.dumps({"result": result}))
        os.replace(tmp, f)


async def judge_starter(a: AttemptHost) -> None:
    """Publish ``starter.judged`` for attempt ``a`` (nothing on a resumed attempt: its log has it)."""
    if a.resume is not None:
        return
    key, phases = await _key_of(a.shared, a.challenge)
    async with _lock(key):  # attempts of one package starting together judge its starter once
        await _judge_or_read(a, key, phases)


async def _key_of(shared: Shared, ch: Challenge) -> tuple[str, list[int]]:
    from arena.challenge.content import package_facts  # noqa: PLC0415

    phases = list(range(1, int(getattr(ch, "phase_count", 1) or 1) + 1))
    backend = str(getattr(shared.backend, "name", type(shared.backend).__name__))
    facts = await asyncio.to_thread(package_facts, Path(ch.root))
    return cache_key(str(facts["challenge_hash"]), backend, phases), phases


async def judge_starter_ahead(shared: Shared, ch: Challenge) -> bool:
    """Judge ``ch``'s starter into the cache now, if it is not there yet (a preparation
    step: then no attempt waits for it before its clock starts). True when cached; an
    infrastructure error is left for the attempts to meet and record."""
    from arena.judge import take_snapshot  # noqa: PLC0415

    key, phases = await _key_of(shared, ch)
    async with _lock(key):
        if await asyncio.to_thread(_read_cache, key) is not None:
            return True
        snap = await asyncio.to_thread(take_snapshot, ch.starter_dir, shared.snapshots)
        result = await shared.judge.run(ch, snap, submission=0, phases=phases)
        if result.infra_error:
            return False
        await asyncio.to_thread(_write_cache, key, result.model_dump(mode="json"))
        return True


_locks: dict[tuple[int, str], asyncio.Lock] = {}


def _lock(key: str) -> asyncio.Lock:
    """One lock per key and event loop (an asyncio lock belongs to one loop)."""
    k = (id(asyncio.get_running_loop()), key)
    lock = _locks.get(k)
    if lock is None:
        if len(_locks) > 256:
            _locks.clear()
        lock = _locks[k] = asyncio.Lock()
    return lock


async def _judge_or_read(a: AttemptHost, key: str, phases: list[int]) -> None:
    from arena.judge.verdict.snapshot import take_snapshot  # noqa: PLC0415

    ch = a.challenge
    cached = await asyncio.to_thread(_read_cache, key)
    if cached is not None:
        a.publish(ev.STARTER_JUDGED, {"result": cached["result"], "cached": True, "key": key}, t=0.0)
        return
    try:
        snap = await asyncio.to_thread(take_snapshot, ch.starter_dir, a.shared.snapshots)
        result = await a.shared.judge.run(ch, snap, submission=0, phases=phases)
    except Exception as exc:  # noqa: BLE001 - never the agent's fault, never the attempt's end
        log.warning("attempt %s: the starter could not be judged: %s", a.id, exc)
        a.publish(ev.STARTER_JUDGED, {"infra_error": f"{type(exc).__name__}: {exc}", "key": key}, t=0.0)
        return
    if result.infra_error:
        a.publish(ev.STARTER_JUDGED, {"infra_error": result.infra_error, "key": key}, t=0.0)
        return
    doc = result.model_dump(mode="json")
    await asyncio.to_thread(_write_cache, key, doc)
    a.publish(ev.STARTER_JUDGED, {"result": doc, "cached": False, "key": key}, t=0.0)


__all__ = ["cache_key", "judge_starter", "judge_starter_ahead", "judge_code_hash"]
