"""The footer, with ``?`` (help) and ``q`` (quit/back) first: on an 80-column terminal the
keys past the right edge are cut, and those two must never be. It recomposes only when
the keys it shows changed (Textual's recomposes on every screen switch and focus change:
a dozen widgets mounted and styled anew each time the big board and the table swap)."""

from __future__ import annotations

from collections import defaultdict

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

FIRST = ("app.help", "app.back_or_quit")


class GauntletFooter(Footer):
    _shown: tuple | None = None  # what the last compose showed

    def _keys(self, screen: Screen) -> tuple:
        return tuple(
            (binding.key, binding.action, binding.description, enabled, tooltip)
            for _, binding, enabled, tooltip in screen.active_bindings.values()
            if binding.show
        )

    def bindings_changed(self, screen: Screen) -> None:
        if self._bindings_ready and self.children and screen is self.screen and self._keys(screen) == self._shown:
            return  # the same keys: nothing to recompose
        super().bindings_changed(screen)

    def compose(self) -> ComposeResult:
        if not self._bindings_ready:
            return
        self._shown = self._keys(self.screen)
        by_action: defaultdict[str, list] = defaultdict(list)
        for _, binding, enabled, tooltip in self.screen.active_bindings.values():
            if binding.show:
                by_action[binding.action].append((binding, enabled, tooltip))
        order = sorted(by_action, key=lambda a: FIRST.index(a) if a in FIRST else len(FIRST))
        self.styles.grid_size_columns = len(order)
        for action in order:
            binding, enabled, tooltip = by_action[action][0]
            yield FooterKey(
                binding.key,
                self.app.get_key_display(binding),
                binding.description,
                binding.action,
                disabled=not enabled,
                tooltip=tooltip,
            ).data_bind(compact=Footer.compact)
