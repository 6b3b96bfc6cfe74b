"""Never crash the room: what the app does with an exception it did not expect.

Running attempts are tasks of the app's event loop, so an app that dies takes the room
down with it. ``Guard`` is the app's one place for unexpected exceptions:

- an action (a key, the palette, a click) that raises is reported and the app goes on
  (``GauntletApp.run_action`` calls ``guard.report``);
- a worker that raises is reported and the app goes on (the worker is over anyway);
- a screen above the home screen whose message loop raised is closed (Textual stops a
  message pump whose handler raised), reported, and the app goes on;
- anything else — the app's own message loop, the home screen — cannot go on: it is
  logged and the app exits with status 1 (``fatal``), never 0.

"Reported" means: the traceback is written to ``tui.log`` in the config directory and a
notification names the error and the log file. More than ``max_errors`` reports end the
app like a fatal error (something is broken in a loop).
"""

from __future__ import annotations

import logging
import traceback
from pathlib import Path
from typing import Any

from gauntlet_tui import settings

log = logging.getLogger("gauntlet_tui")


def log_path() -> Path:
    return settings.config_dir() / "tui.log"


class Guard:
    def __init__(self, app: Any, *, max_errors: int = 50) -> None:
        self.app = app
        self.max_errors = max_errors
        self.errors: list[str] = []  # one line per reported error, for tests and the log

    def _write(self, where: str, error: BaseException) -> None:
        text = "".join(traceback.format_exception(type(error), error, error.__traceback__))
        log.error("unexpected error in %s: %s", where, text)
        try:
            path = log_path()
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("a", encoding="utf-8") as fh:
                fh.write(f"--- error in {where}\n{text}\n")
        except OSError:  # a read-only config dir must not turn one error into two
            pass

    def report(self, where: str, error: BaseException) -> bool:
        """Log and show ``error``; False once there were too many (the caller ends the app)."""
        self.errors.append(f"{where}: {type(error).__name__}: {error}")
        self._write(where, error)
        if len(self.errors) > self.max_errors:
            return False
        try:
            self.app.notify(
                f"internal error in {where}: {type(error).__name__}: {error} "
                f"(the room goes on; details in {log_path()})",
                severity="error",
                timeout=8,
            )
        except Exception:  # noqa: BLE001 — the app is shutting down: the log has it
            pass
        return True

    def handle(self, error: Exception) -> bool:
        """Textual's unhandled exception: True when handled (the app goes on)."""
        from textual.screen import Screen
        from textual.widget import Widget
        from textual.worker import WorkerFailed

        app = self.app
        if getattr(app, "_exit_renderables", None) or not app.is_running:
            return False  # already ending: let Textual do what it does
        if isinstance(error, WorkerFailed):
            return self.report("a background task", error.error)
        pump = _raising_pump(error)
        screen = (
            pump if isinstance(pump, Screen) else getattr(pump, "screen", None) if isinstance(pump, Widget) else None
        )
        stack = app.screen_stack
        if screen is not None and screen not in stack and screen is not getattr(app, "_default_screen", None):
            return self.report(type(screen).__name__, error)  # already closed: nothing left to stop
        if screen is not None and screen in stack and stack.index(screen) > 1:
            # its message loop has stopped: close it, the screens below still work
            if not self.report(type(screen).__name__, error):
                return False
            app.call_later(_close, app, screen)
            return True
        return False


def _raising_pump(error: BaseException) -> Any:
    """The message pump whose loop caught ``error`` (the outermost frame's ``self``)."""
    tb = error.__traceback__
    return tb.tb_frame.f_locals.get("self") if tb is not None else None


def _close(app: Any, screen: Any) -> None:
    """Close ``screen`` (and whatever was pushed above it); never the home screen."""
    stack = app.screen_stack
    if screen not in stack or stack.index(screen) < 2:
        return
    for _ in range(len(stack) - stack.index(screen)):
        app.pop_screen()
