"""The Gauntlet Textual app: screens, themes, keys and the refresh timer.

The app owns one ``EngineAdapter`` (the engine's events, buffered) and calls ``tick()``
a few times a second: the adapter folds what arrived into views, and the screen on top
redraws what changed. Nothing here holds rules, scores or SQL.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any, Iterable, cast

from textual.app import App, ScreenStackError, SystemCommand
from textual.binding import Binding
from textual.css.query import NoMatches
from textual.notifications import SeverityLevel
from textual.screen import Screen

from gauntlet_tui import gcpolicy, keys, settings, text
from gauntlet_tui.engine import EngineAdapter
from gauntlet_tui.feeds import HeatFeed, runs
from gauntlet_tui.guard import Guard
from gauntlet_tui.screens.attempt import AttemptScreen
from gauntlet_tui.screens.help import HelpScreen
from gauntlet_tui.screens.home import HomeScreen
from gauntlet_tui.presence import Presence
from gauntlet_tui.totals import Totals
from gauntlet_tui.widgets.clock import PROJECTOR_CSS
from themes import DEFAULT_THEME, THEME_NAMES, THEMES, VARIABLE_DEFAULTS, register_all


class GauntletApp(App[None]):
    TITLE = "Gauntlet"
    attempt_status: str | None = None  # set by attempt_app when its attempt ends
    CSS = (
        """
    Screen { background: $background; }
    Footer { background: $panel; }
    """
        + PROJECTOR_CSS
    )
    BINDINGS = [
        keys.HELP,
        keys.QUIT,
        Binding(
            "ctrl+s",
            "screenshot",
            "Screenshot",
            show=False,
            id="screenshot",
            tooltip="Save an SVG of the screen in the current directory",
        ),
        Binding("ctrl+c", "quit", "Quit", show=False, priority=True, id="ctrl-c", tooltip="Quit Gauntlet"),
    ]

    def __init__(
        self,
        adapter: EngineAdapter | None = None,
        *,
        title: str = "Gauntlet",
        refresh_hz: float = 4.0,
        live_refresh: bool = True,
        start: str = "home",
        attempt: str | None = None,
        store: Path | None = None,
        library_dirs: Iterable[Path] = (),
        theme: str | None = None,
        on_ready: Any = None,
        replay_events: list | None = None,
        replay_speed: float = 1.0,
        board: bool | None = None,
        toasts: bool = True,
        cluster_status: Any = None,
        read_only: bool = False,
        served: bool = False,
        own_heat: bool = False,
    ) -> None:
        super().__init__()
        self.adapter = adapter or EngineAdapter()
        self.title_text = title
        self.refresh_hz = refresh_hz
        self.live_refresh = live_refresh
        self.start = start
        self.start_attempt_id = attempt
        self.store_path = store
        self.library_dirs = list(library_dirs)
        self._forced_theme = theme
        self._on_ready = on_ready  # async callable(app): e.g. the demo starting its attempts
        self.ticks = 0
        self.replay_events = replay_events
        self.replay_speed = replay_speed
        self.board = board  # the big board at start: None = only under the projector theme
        self.toasts = toasts  # warnings/cutoff/reveal/infra toasts on the dashboard
        self.live_runs: dict[str | None, Any] = {}  # sandbox choice -> gauntlet_tui.live.LiveRun
        self.generations: list[Any] = []  # gauntlet_tui.generation.Generation started here
        self.generation_factory: Any = None  # tests: a stand-in job at the seam (screens/generate.py)
        self.follower: Any = None  # gauntlet_tui.follow.StoreFollower
        self.guard = Guard(self)
        self.presence = Presence(self)  # a person at the keyboard holds their attempt
        self.totals = Totals()  # scorecard totals of finished attempts (the Score column)
        self.cluster = None  # gauntlet_tui.cluster.ClusterPoller: the cluster line, with --cluster
        self.read_only = read_only  # a watcher (`gauntlet serve` without the token): may_act says no
        self.served = served  # one browser session of `gauntlet serve`: nothing saved on the server
        # the current heat (arena.heats): a command's own (``own_heat``; ``heat`` is its run id
        # once created), else the store's newest (the follower notes it on the adapter)
        self.own_heat = own_heat
        self.quitting = False
        self.heat: str | None = None
        self.heat_feed = HeatFeed(self)
        if cluster_status is not None:  # its poll() returns a plain ClusterSnapshot
            from gauntlet_tui.cluster import ClusterPoller

            self.cluster = ClusterPoller(self, cluster_status)
        register_all(self)

    # -- never crash the room (gauntlet_tui.guard) -------------------------------------
    def _handle_exception(self, error: Exception) -> None:
        if not self.guard.handle(error):
            self.guard._write("the app (fatal)", error)
            super()._handle_exception(error)  # exits with status 1

    async def run_action(self, action: Any, default_namespace: Any = None, namespaces: Any = None) -> bool:
        try:
            return await super().run_action(action, default_namespace, namespaces)
        except Exception as exc:  # noqa: BLE001 — a key or a palette entry must not end the room
            if not self.guard.report(f"action {action!r}", exc):
                super()._handle_exception(exc)
            return True

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Every toast is text, never markup, whoever asks (``Widget.notify`` lands here):
        names, titles and error details reach toasts (gauntlet_tui.text.notify)."""
        text.notify(self, message, title=title, severity=severity, timeout=timeout)

    # -- theme variables every theme must provide (Textual's own themes included) ------
    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(VARIABLE_DEFAULTS)

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        from gauntlet_tui.palette import app_commands

        yield from app_commands(self)
        for command in super().get_system_commands(screen):
            if "screenshot" not in command.title.lower():  # ours says where it wrote
                yield command
        for theme in THEMES:
            yield SystemCommand(
                f"Theme: {theme.name}",
                f"Switch to the {theme.name} theme (remembered)",
                lambda name=theme.name: setattr(self, "theme", name),
            )

    def on_mount(self) -> None:
        wanted = self._forced_theme or settings.load().get("theme") or DEFAULT_THEME
        self.theme = wanted if wanted in self.available_themes else DEFAULT_THEME
        self.theme_changed_signal.subscribe(self, self._remember_theme)
        self.push_screen(HomeScreen(self.adapter, title=self.title_text))
        if self.start == "home" and (self.board if self.board is not None else self.theme == "gauntlet-projector"):
            self.action_big_board()
        if self.start == "attempt" and self.start_attempt_id:
            self.open_attempt_screen(self.start_attempt_id, wait_for_events=True)
        if self.start == "replay" and self.replay_events:
            from gauntlet_tui.screens.replay import ReplayScreen

            self.push_screen(ReplayScreen(self.replay_events, speed=self.replay_speed))
        if self.live_refresh:
            self.set_interval(1 / self.refresh_hz, self.tick, name="refresh")
            if self.cluster is not None:
                self.cluster.start()
        if self.store_path is not None:
            self.run_worker(self._load_store(self.store_path), group="store", exclusive=True)
        self._ready_worker = None
        if self._on_ready is not None:
            self._ready_worker = self.run_worker(self._on_ready(self), group="ready")
        self.call_after_refresh(gcpolicy.settle)  # up: later GC passes skip all that is here now

    def may_act(self, what: str) -> bool:
        """False (and a notice saying why) for a watcher of `gauntlet serve`: watchers browse
        and open attempts, they never stop, submit, start or write anything."""
        if not self.read_only:
            return True
        self.notify(
            f"Read-only: a watcher cannot {what}. The operator opens the page with"
            " ?token=… (printed by `gauntlet serve`).",
            title="Refused",
            severity="warning",
            timeout=6,
        )
        return False

    def _remember_theme(self, theme: Any) -> None:
        if not self._forced_theme and not self.served and theme.name in THEME_NAMES:
            settings.save(theme=theme.name)

    async def _load_store(self, store_path: Path) -> None:
        """Show the store's attempts, and follow the ones other processes are running."""
        from gauntlet_tui.follow import StoreFollower

        self.follower = StoreFollower(self.adapter, store_path)
        try:
            await self.follower.poll()
        except Exception as exc:  # noqa: BLE001 — an unreadable store must not crash the UI
            self.notify(f"could not read the store {self.store_path}: {exc}", severity="error", timeout=8)
            await self.follower.close()
            return
        self.adapter.flush()
        self.adapter.drain_alerts()  # what the store held is history, not news: no toasts for it
        self.tick(full=True)
        gcpolicy.settle()  # the store's attempts are loaded
        if self.live_refresh:
            await self.follower.run()
        else:
            await self.follower.close()

    # -- the current heat (gauntlet_tui.feeds.heat) -------------------------------------
    def current_heat(self) -> str | None:
        return self.heat_feed.current()

    def heat_split(self) -> tuple[list[str], list[str]]:
        return self.heat_feed.split()

    def forget_attempt(self, attempt: str) -> None:
        """An attempt removed from the store leaves every screen (its row, its card)."""
        self.adapter.forget(attempt)
        self.heat_feed.forget()
        if self.follower is not None:
            self.follower.forget(attempt)

    def in_heat(self, attempt: str) -> bool:
        return self.heat_feed.holds(attempt)

    # -- the refresh timer ----------------------------------------------------------
    def tick(self, full: bool = False) -> None:
        """Fold buffered events into views, then let the screen on top redraw."""
        self.ticks += 1
        changed = self.adapter.flush()
        try:
            screen = self.screen
        except ScreenStackError:  # the app is closing: its screens are gone, the timer not yet
            return
        self.heat_feed.announce(screen)  # the heat's alerts as toasts
        try:
            if isinstance(screen, HomeScreen):
                screen.refresh_view(None if full else changed)
            elif hasattr(screen, "refresh_view"):
                screen.refresh_view()
        except NoMatches:  # the screen is being torn down (app exiting): nothing to draw
            pass
        except Exception as exc:  # noqa: BLE001 — one bad redraw must not stop the timer
            if not self.guard.report(f"redrawing {type(screen).__name__}", exc):
                super()._handle_exception(exc)
        if changed or full:
            self.totals.wake(self)
        self.presence.schedule()

    def watch_app_focus(self, focus: bool) -> None:
        self.presence.schedule()

    def refresh_rows(self, attempts: set[str]) -> None:
        """Redraw these attempts' rows if the dashboard is on top (else on its return).
        A worker may finish while the app closes: with no screen left there is nothing to draw."""
        if not self.screen_stack:
            return
        if isinstance(self.screen, HomeScreen) and self.screen.is_mounted:
            self.screen.refresh_view(attempts)

    # -- navigation -----------------------------------------------------------------
    def open_attempt_screen(self, attempt: str, *, wait_for_events: bool = False) -> None:
        """Open an attempt; ``wait_for_events``: it fills in once its events arrive."""
        if attempt in self.adapter.views or wait_for_events:
            self.push_screen(AttemptScreen(self.adapter, attempt))
        else:
            self.notify(f"unknown attempt {attempt}", severity="error")

    def action_command_palette(self) -> None:
        from gauntlet_tui.palette import GauntletPalette

        if self.use_command_palette and not GauntletPalette.is_open(cast("App[object]", self)):
            self.push_screen(GauntletPalette(id="--command-palette"))

    def pop_screen(self) -> Any:
        """Every screen pops, except the home screen (a burst of Esc/q on a closing
        pop-up must not leave the room without one)."""
        if len(self.screen_stack) <= 2 and isinstance(self.screen, HomeScreen):
            from textual.await_complete import AwaitComplete

            return AwaitComplete(asyncio.sleep(0))
        return super().pop_screen()

    def action_back(self) -> None:  # type: ignore[override]  # Textual awaits it when async, calls it when not
        if len(self.screen_stack) > 2:
            self.pop_screen()
            self.tick(full=True)

    def action_back_or_quit(self) -> None:
        if len(self.screen_stack) > 2:
            self.action_back()
        else:
            self.run_worker(self._quit(), group="quit", exclusive=True)

    async def action_quit(self) -> None:
        """ctrl+c and the palette's Quit ask first too, like q at home."""
        self.run_worker(self._quit(), group="quit", exclusive=True)

    def live_attempts(self) -> list[str]:
        return [a for a in self.adapter.order if self.adapter.is_live(a) and self.adapter.handle(a)]

    async def _quit(self) -> None:
        from gauntlet_tui.screens.confirm import ConfirmScreen

        gens = [g for g in self.generations if g.running]
        if gens and not await self.push_screen_wait(
            ConfirmScreen(f"{len(gens)} generation job(s) still running (report.json so far is kept). Quit anyway?")
        ):
            return
        live = self.live_attempts()
        if live:
            if not await self.push_screen_wait(
                ConfirmScreen(f"{len(live)} attempt(s) still running. Stop them (interrupted) and quit?")
            ):
                return
            self.quitting = True  # the heat ends in the quit, not on its Standings
            self.notify("stopping the running attempts…", timeout=10)
            for attempt in live:
                await self.adapter.handle(attempt).stop()
            for run in self.live_runs.values():
                await run.wait()
            if self._ready_worker is not None:
                with contextlib.suppress(Exception):
                    await self._ready_worker.wait()
        self.exit()

    def action_screenshot(self, filename: str | None = None, path: str | None = None) -> None:
        """Save an SVG of the screen in the current directory (or ``path``) and say where."""
        import os

        if not self.may_act("save a screenshot on the server"):
            return

        try:
            written = self.save_screenshot(filename, path or os.getcwd())
        except OSError as exc:
            self.notify(f"could not save the screenshot in {path or os.getcwd()}: {exc}", severity="error", timeout=8)
            return
        self.notify(f"screenshot saved: {written}", title="Screenshot", timeout=6)

    def action_help(self) -> None:
        screen = self.screen
        rows = []
        seen = set()
        for binding in [*screen.BINDINGS, *self.BINDINGS]:
            if isinstance(binding, Binding) and binding.show and binding.id not in seen:
                seen.add(binding.id)
                rows.append((binding.key_display or binding.key, binding.description, binding.tooltip))
        self.push_screen(HelpScreen(type(screen).__name__.replace("Screen", ""), rows))

    def action_big_board(self) -> None:
        """The projector layout: one card per attempt (``v`` toggles it). One board for
        the app's life: back on top it redraws its cards in place, it never remounts them."""
        from gauntlet_tui.screens.bigboard import BigBoardScreen

        if isinstance(self.screen, BigBoardScreen):
            self.action_back()
        elif self.is_screen_installed("bigboard"):
            if self.get_screen("bigboard") not in self.screen_stack:  # else it is open, under this one
                self.push_screen("bigboard")
        else:
            self.install_screen(BigBoardScreen(self.adapter), "bigboard")
            self.push_screen("bigboard")

    def action_library(self) -> None:
        from gauntlet_tui.screens.library import LibraryScreen

        self.push_screen(LibraryScreen(self.library_dirs))

    def action_past(self) -> None:
        from gauntlet_tui.screens.past import PastScreen

        self.push_screen(PastScreen(self.adapter))

    def action_leaderboard(self) -> None:
        from gauntlet_tui.screens.leaderboard import LeaderboardScreen

        self.push_screen(LeaderboardScreen(self.store_path))

    def open_replay(self, attempt: str, speed: float = 1.0) -> None:
        self.run_worker(self._open_replay(attempt, speed), group="replay", exclusive=True)

    async def _open_replay(self, attempt: str, speed: float) -> None:
        from gauntlet_tui.history import load_events
        from gauntlet_tui.screens.replay import ReplayScreen

        events = await load_events(self.store_path, attempt) if self.store_path else None
        if not events:
            self.notify(f"no stored events for {attempt}", severity="error")
            return
        self.push_screen(ReplayScreen(events, speed=speed))

    async def live_run(self, sandbox: str | None) -> Any:
        return await runs.live_run(self, sandbox)

    async def prepare(self, arena: Any, items: list) -> bool:
        """Build the images and warm the sandboxes ``(challenge, agent spec)`` pairs need,
        with the progress screen up; True when ready. A failure stays on screen (why,
        and ``--sandbox local``) and is also notified; no attempt should then start."""
        from arena.attempt.prepare import Preparation, PrepareError
        from gauntlet_tui.screens.prepare import PrepareScreen

        try:
            prep = Preparation.plan(arena, items)
        except Exception as exc:  # noqa: BLE001 — a bad agent name etc.: say it, start nothing
            self.notify(f"cannot prepare: {exc}", severity="error", timeout=15)
            return False
        if not prep.steps:
            return True
        screen = PrepareScreen(prep)
        self.push_screen(screen)
        try:
            await prep.run()
        except PrepareError as exc:
            self.notify(str(exc), severity="error", timeout=30)
            return False
        if screen.is_attached:
            screen.dismiss(True)
        return True

    async def show_standings(self, attempts: list[str], again: Any = None) -> None:
        """The round's final standings screen (stays up; ``again`` runs another round): these
        attempts, named and with the status words the other screens give them; a heat's
        (``gauntlet arena``) rates this heat's attempts only. Not when the room is quitting."""
        from arena.pipeline.boards import standings  # marks the unverified publications' attempts
        from gauntlet_tui.screens.standings import StandingsScreen

        if not attempts or self.store_path is None or self.quitting:
            return
        heat = self.current_heat() if self.own_heat else None
        try:
            result = await standings(self.store_path, attempts, heat=heat)
        except Exception as exc:  # noqa: BLE001 — the round is over either way
            self.notify(f"could not compute the standings: {exc}", severity="error", timeout=15)
            return
        if self.quitting:
            return
        self.push_screen(StandingsScreen(result, again=again, views=self.adapter.views, heat=heat))

    async def start_live_attempt(
        self, challenge: Path, *, agent: str, sandbox: str | None, time_scale: float
    ) -> str | None:
        return await runs.start_live_attempt(self, challenge, agent=agent, sandbox=sandbox, time_scale=time_scale)

    async def on_unmount(self) -> None:
        gcpolicy.release()
        await self.presence.close()
        if self.cluster is not None:
            self.cluster.close()
        for run in self.live_runs.values():
            await run.close()

    async def stop_attempt(self, attempt: str) -> None:
        await runs.stop_attempt(self, attempt)
