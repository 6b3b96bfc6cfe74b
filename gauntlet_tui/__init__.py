"""gauntlet_tui: the Textual screens of Gauntlet. The engine (``arena``) never imports
this package; this package never holds rules, scores or SQL.

Entry points for other commands:

- ``await open_attempt(arena, attempt)`` — run the app on one live attempt (``gauntlet
  run`` without ``--headless``): the attempt view opens at once, the attempt runs in the
  app's event loop, quitting asks before stopping it. Returns the attempt's final status
  (None if the app was closed before the attempt ended).
- ``attempt_app(arena, attempt)`` — the same app, built but not run (tests run it with
  ``run_test``); its ``attempt_status`` is set when the attempt ends.
- the home screen (``gauntlet``), demo and replay: see ``gauntlet_tui.cli.tui_cmd``.
"""

from __future__ import annotations

from typing import Any


def attempt_app(arena: Any, attempt: Any, *, title: str = "Gauntlet") -> Any:
    """A ``GauntletApp`` showing one live ``arena.attempt.Attempt`` of ``arena`` (an
    ``arena.attempt.Arena``); it subscribes to ``arena.bus`` now, before the attempt
    starts, and runs the attempt once the app is up."""
    from gauntlet_tui.app import GauntletApp
    from gauntlet_tui.engine import EngineAdapter
    from gauntlet_tui.live import LiveHandle

    adapter = EngineAdapter(arena.bus)
    adapter.attach_clock(attempt.id, lambda: attempt.clock.elapsed())
    adapter.attach_handle(attempt.id, LiveHandle(attempt))

    async def run(app: GauntletApp) -> None:
        app.attempt_status = await arena.run_one(attempt)
        app.notify(f"attempt {attempt.id} {app.attempt_status}", timeout=6)

    app = GauntletApp(
        adapter,
        title=title,
        start="attempt",
        attempt=attempt.id,
        store=getattr(arena.shared, "store_path", None),
        on_ready=run,
    )
    app.attempt_status = None
    return app


async def open_attempt(arena: Any, attempt: Any, *, title: str = "Gauntlet") -> str | None:
    app = attempt_app(arena, attempt, title=title)
    await app.run_async()
    app.adapter.close()
    return app.attempt_status
