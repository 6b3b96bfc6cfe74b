"""The arena's one shared observer, asked for by several attempts at once (issue 34 item 3).

On the old code the second caller got the observer while its ``start()`` was still under way
(``available`` still False) and its attempt stayed unobserved for its whole life: "observed
telemetry unavailable: this sandbox cannot be told apart from the host".
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from arena.observe import SandboxObservation, close_shared_observer, shared_observer
from arena.sandbox import Limits, get_backend

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="observation needs root")


async def test_concurrent_first_uses_share_one_started_observer():
    async def use() -> tuple[object, bool]:
        obs = await shared_observer()
        return obs, obs.available  # as the caller finds it when handed over

    try:
        got = await asyncio.gather(use(), use(), use())
        first = got[0][0]
        assert all(obs is first for obs, _ in got)
        assert [ok for _, ok in got] == [True, True, True], first.notes  # none half-started
    finally:
        await close_shared_observer()
    again = await shared_observer()  # closed: the next use starts a new one
    try:
        assert again is not first and again.available, again.notes
    finally:
        await close_shared_observer()


async def test_a_cancelled_waiter_does_not_cancel_the_start_the_others_wait_for():
    try:
        waiter = asyncio.ensure_future(shared_observer())
        other = asyncio.ensure_future(shared_observer())
        await asyncio.sleep(0)  # both are waiting on the one start
        waiter.cancel()
        obs = await other
        assert obs.available, obs.notes
    finally:
        await close_shared_observer()


async def test_two_attempts_observed_at_once_both_see_their_commands(tmp_path: Path):
    """Two real local sandboxes start observation together through the shared observer."""

    async def one(name: str) -> tuple[list[str], list[tuple[str, dict]]]:
        ws = tmp_path / name
        ws.mkdir()
        observation = SandboxObservation(tmp_path / f"state-{name}")
        notes: list[str] = []
        observation.on_note = notes.append
        events: list[tuple[str, dict]] = []
        sb = await get_backend("local").create(ws, Limits(wall_s=60), mounts=observation.mounts())
        try:
            async with observation.observe(sb, ws, lambda k, d: events.append((k, d))):
                res = await sb.exec(["sh", "-c", f"echo {name} > mark.txt; cat mark.txt {name}.none || true"])
                assert res.exit_code == 0, res
                await (await shared_observer()).sync()
        finally:
            await sb.close()
        return notes, events

    try:
        results = await asyncio.gather(one("alpha"), one("beta"))
    finally:
        await close_shared_observer()
    for name, (notes, events) in zip(("alpha", "beta"), results):
        assert not any("unavailable" in n for n in notes), (name, notes)
        argvs = [d["argv"] for k, d in events if k == "command.run"]
        assert ["cat", "mark.txt", f"{name}.none"] in argvs, (name, argvs)
        other = "beta" if name == "alpha" else "alpha"
        assert ["cat", "mark.txt", f"{other}.none"] not in argvs  # each attempt sees its own sandbox only
