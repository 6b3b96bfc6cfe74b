"""The attempts the app starts and stops: one live run per sandbox choice, opened at the
first start (``gauntlet_tui.live.LiveRun``, on the app's store), and a stop, asked of the
attempt's own arena when another process runs it (``arena.attempt.control``). A watcher
of ``gauntlet serve`` does neither (``may_act`` says why). The engine is imported at the
first start or stop, not with the app."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel

    from gauntlet_tui.engine import EngineAdapter


class RunsHost(Protocol):
    adapter: EngineAdapter
    store_path: Path | None
    live_runs: dict[str | None, Any]  # sandbox choice -> LiveRun
    follower: Any  # gauntlet_tui.follow.StoreFollower, once the store is read

    def may_act(self, what: str) -> bool: ...

    def notify(
        self, message: str, *, severity: SeverityLevel = "information", timeout: float | None = None
    ) -> None: ...

    async def live_run(self, sandbox: str | None) -> Any: ...


async def live_run(app: RunsHost, sandbox: str | None) -> Any:
    """The live run of this sandbox choice, opened on the app's store (the default store
    when it has none yet)."""
    from arena.paths import store_path
    from gauntlet_tui.live import LiveRun

    if not app.may_act("start an attempt"):
        raise PermissionError("read-only: watchers cannot start attempts")
    if sandbox not in app.live_runs:
        app.store_path = app.store_path or store_path()
        app.live_runs[sandbox] = await LiveRun.open(app.adapter, app.store_path, sandbox=sandbox)
    return app.live_runs[sandbox]


async def start_live_attempt(
    app: RunsHost, challenge: Path, *, agent: str, sandbox: str | None, time_scale: float
) -> str | None:
    """Start one attempt; its id, or None (a bad choice is notified, never a crash)."""
    from gauntlet_tui.live import AttemptSpec

    if not app.may_act("start an attempt"):
        return None
    try:
        run = await app.live_run(sandbox)
        attempt = run.start(AttemptSpec(challenge, agent, time_scale))
    except Exception as exc:  # noqa: BLE001 — a bad choice is reported, never a crash
        app.notify(f"could not start: {exc}", severity="error", timeout=8)
        return None
    app.notify(f"started {attempt}: {Path(challenge).name} — {agent}", timeout=3)
    return attempt


async def stop_attempt(app: RunsHost, attempt: str) -> None:
    """Stop an attempt this process runs, or ask the arena of the process that runs it."""
    if not app.may_act("stop an attempt"):
        return
    handle = app.adapter.handle(attempt)
    if handle is not None and hasattr(handle, "stop"):
        await handle.stop()
        app.notify(f"stopping {attempt}…", timeout=3)
        return
    store = app.follower.store if app.follower is not None else None
    if store is None:
        app.notify(f"{attempt} cannot be stopped from here", severity="error")
        return
    from arena.attempt.control import ask_stop  # another process runs it: ask its arena

    reply = await ask_stop(store, attempt)
    if reply.ok:
        app.notify(f"stopping {attempt}… (asked its arena, pid {reply.pid})", timeout=5)
    else:
        app.notify(f"{attempt} was not stopped: {reply.reason}", severity="error", timeout=8)
