"""What the screens ask of the app that hosts them (``GauntletApp``), as a Protocol.

Textual types ``Screen.app`` as ``App[Any]``; the screens call a few navigation methods of
the Gauntlet app on it. ``host(screen)`` is that app, typed by what it offers, without the
screens importing ``gauntlet_tui.app`` (which imports them).
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol, cast

from textual.dom import DOMNode


class ArenaHost(Protocol):
    def open_attempt_screen(self, attempt: str, *, wait_for_events: bool = False) -> None: ...

    def open_replay(self, attempt: str, speed: float = 1.0) -> None: ...

    async def start_live_attempt(
        self, challenge: Path, *, agent: str, sandbox: str | None, time_scale: float
    ) -> str | None: ...

    async def stop_attempt(self, attempt: str) -> None: ...

    def current_heat(self) -> str | None: ...

    def heat_split(self) -> tuple[list[str], list[str]]: ...

    def forget_attempt(self, attempt: str) -> None: ...


def host(node: DOMNode) -> ArenaHost:
    """The Gauntlet app ``node`` is mounted in."""
    return cast(ArenaHost, node.app)


def may_act(node: DOMNode, what: str) -> bool:
    """Whether the person at this screen may ``what`` (stop, submit, start…): False, with a
    notice, for a watcher of ``gauntlet serve`` (``GauntletApp.may_act``); True elsewhere."""
    check = getattr(node.app, "may_act", None)
    return True if check is None else bool(check(what))
