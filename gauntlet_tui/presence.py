"""A person at the keyboard is not a hung agent: while the TUI has input focus (the
terminal reports focus in/out), every live ``--agent human`` attempt of this process is
held (``LiveHandle.attention``: the hang watchdog does not count that time). Their open
shell holds it too (``LiveHandle.shell_session``). Otherwise the attempt view shows the
watchdog's countdown (``LiveHandle.hang_left``)."""

from __future__ import annotations

import contextlib
from typing import Any


class Presence:
    def __init__(self, app: Any) -> None:
        self.app = app
        self._held: dict[str, contextlib.AsyncExitStack] = {}
        self._busy = False

    def humans(self) -> list[str]:
        ad = self.app.adapter
        return [
            a for a in ad.order if ad.is_live(a) and ad.views[a].agent == "human" and hasattr(ad.handle(a), "attention")
        ]

    def needs_update(self) -> bool:
        want = set(self.humans()) if self.app.app_focus else set()
        return want != set(self._held)

    def held(self, attempt: str) -> bool:
        return attempt in self._held

    def schedule(self) -> None:
        """From the refresh timer or a focus change: update once, never two at a time."""
        if not self._busy and self.needs_update():
            self._busy = True
            self.app.run_worker(self._update_once(), group="presence")

    async def _update_once(self) -> None:
        try:
            await self.update()
        finally:
            self._busy = False

    async def update(self) -> None:
        """Hold the live human attempts while focused; release the rest."""
        want = set(self.humans()) if self.app.app_focus else set()
        for attempt in [a for a in self._held if a not in want]:
            await self._held.pop(attempt).aclose()
        for attempt in want - set(self._held):
            stack = contextlib.AsyncExitStack()
            await stack.enter_async_context(self.app.adapter.handle(attempt).attention())
            self._held[attempt] = stack

    async def close(self) -> None:
        for stack in self._held.values():
            await stack.aclose()
        self._held.clear()
