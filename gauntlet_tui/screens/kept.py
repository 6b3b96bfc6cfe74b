"""Screens that stay mounted while others are on top (the dashboard, the big board).

Textual re-applies the whole stylesheet to every widget of a screen each time it is
pushed again (``ScreenResume(refresh_styles=True)``), in case the theme changed while it
was away. Swapping the big board and the table did that to a hundred widgets per key.
``KeptScreen`` skips it when nothing styles depend on changed since the screen was last
on top: the theme, and the app's classes and pseudo-classes (focus, dark).
"""

from __future__ import annotations

from typing import Any

from textual import events
from textual.screen import Screen


class KeptScreen(Screen):
    _styled_for: Any = None  # what the styles were last applied for

    def _style_state(self) -> tuple:
        app = self.app
        return app.theme, frozenset(app.classes), app.pseudo_classes

    def _on_screen_suspend(self) -> None:
        self._styled_for = self._style_state()
        super()._on_screen_suspend()

    def _on_screen_resume(self, event: events.ScreenResume) -> None:
        if event.refresh_styles and self._styled_for is not None and self._styled_for == self._style_state():
            event.refresh_styles = False
        super()._on_screen_resume(event)
