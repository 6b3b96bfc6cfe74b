"""The current heat as the app follows it (``arena.heats``): the run whose attempts the
screens show first, this heat's attempts and the older ones (recomputed when an attempt
arrives or the heat changes), and its news: the engine's alerts of this heat's attempts
become toasts over the dashboard and the big board (``gauntlet_tui.toasts``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from arena import heats
from gauntlet_tui.toasts import announce

if TYPE_CHECKING:
    from gauntlet_tui.engine import EngineAdapter

ANNOUNCED_ON = ("HomeScreen", "BigBoardScreen")  # the screens the toasts show over


class HeatHost(Protocol):
    """The app as the feed reads it: ``heat`` is a command's own run id (``own_heat``)."""

    adapter: EngineAdapter
    heat: str | None
    own_heat: bool
    toasts: bool


class HeatFeed:
    def __init__(self, app: HeatHost) -> None:
        self.app = app
        self._split: tuple[tuple, tuple[list[str], list[str]]] | None = None

    def current(self) -> str | None:
        """The run id of the heat the screens show first (None: not known yet, or none)."""
        app = self.app
        return app.heat if app.own_heat else (app.adapter.newest_heat or None)

    def split(self) -> tuple[list[str], list[str]]:
        """``(this heat's attempts, older ones)`` in the adapter's order (recomputed when an
        attempt arrives or the heat changes)."""
        ad = self.app.adapter
        key = (self.current(), self.app.own_heat, len(ad.order))
        if self._split is None or self._split[0] != key:
            parts = heats.split(
                ad.order, ad.views, heat=key[0], own=self.app.own_heat, is_local=lambda a: ad.handle(a) is not None
            )
            self._split = (key, parts)
        return self._split[1]

    def forget(self) -> None:
        """An attempt left the adapter: the split is made anew."""
        self._split = None

    def holds(self, attempt: str) -> bool:
        """Whether ``attempt`` is one of the current heat's."""
        ad = self.app.adapter
        view = ad.views.get(attempt)
        return heats.in_heat(view, heat=self.current(), own=self.app.own_heat, local=ad.handle(attempt) is not None)

    def announce(self, screen: object) -> None:
        """The alerts that arrived since the last refresh, drained: toasts when the app
        shows them and the dashboard or the big board is on top (``screen``)."""
        alerts = self.app.adapter.drain_alerts()
        if alerts and self.app.toasts and type(screen).__name__ in ANNOUNCED_ON:
            announce(self.app, alerts)
