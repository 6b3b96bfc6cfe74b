"""The challenge library: bundled packages and any directory given; the manifest
summary and validation findings of the selected one; start an attempt from it."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from gauntlet_tui.text import esc as escape
from textual.screen import Screen
from textual.widgets import ListItem, ListView, Markdown, Static

from gauntlet_tui import keys
from gauntlet_tui.screens.host import host, may_act
from gauntlet_tui.screens.package_view import describe, render_findings
from gauntlet_tui.widgets.footer import GauntletFooter


class LibraryScreen(Screen):
    DEFAULT_CSS = """
    LibraryScreen ListView { width: 32; border: round $panel; }
    LibraryScreen #library-detail { width: 1fr; border: round $panel; padding: 0 1; }
    LibraryScreen #library-findings { margin-top: 1; }
    LibraryScreen #library-briefing-title { margin-top: 1; }
    """
    BINDINGS = [keys.BACK, keys.OPEN, keys.START, keys.GENERATE]

    def __init__(self, dirs: Iterable[Path] = ()) -> None:
        super().__init__(name="library")
        from arena.challenge import bundled_challenges

        self.paths = [*bundled_challenges(), *(Path(d) for d in dirs)]
        self.current: Path | None = None
        self.generated: dict[Path, Any] = {}  # package -> its gauntlet_tui.generation.Generation

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield ListView(*(ListItem(Static(escape(p.name))) for p in self.paths), id="library-list")
            with VerticalScroll(id="library-detail"):
                yield Static("Select a challenge.", id="library-summary")
                yield Static("", id="library-findings")
                yield Static("[b]briefing[/]", id="library-briefing-title")
                yield Markdown("", id="library-briefing")
        yield GauntletFooter()

    def on_mount(self) -> None:
        if self.paths:
            self.show(self.paths[0])
        self.query_one(ListView).focus()

    @on(ListView.Highlighted)
    def _highlighted(self, event: ListView.Highlighted) -> None:
        if event.list_view.index is not None and event.list_view.index < len(self.paths):
            self.show(self.paths[event.list_view.index])

    def show(self, path: Path) -> None:
        self.current = path
        summary, findings, challenge = describe(path)
        self.query_one("#library-summary", Static).update(summary)
        self.briefing = challenge.briefing if challenge is not None else ""
        self.query_one("#library-briefing", Markdown).update(self.briefing or "_no briefing_")
        self.query_one("#library-findings", Static).update(render_findings(findings))

    def action_open(self) -> None:
        gen = self.generated.get(self.current) if self.current is not None else None
        if gen is not None:  # a package generated here: back to its live view
            from gauntlet_tui.screens.generate import GenerateScreen

            self.app.push_screen(GenerateScreen(gen))
            return
        self.action_start()

    @work(exclusive=True, group="generate")
    async def action_generate(self) -> None:
        """The author's way in: a generated package, live (screens/generate.py)."""
        if not may_act(self, "generate a challenge"):
            return
        from gauntlet_tui.screens.generate import start_generation
        from gauntlet_tui.screens.generate_form import GenerateForm

        choice = await self.app.push_screen_wait(GenerateForm())
        if choice:
            gen = start_generation(self, choice)
            if gen is not None:
                self.generated[gen.package] = gen
                self.add(gen.package)

    def add(self, path: Path) -> None:
        """List a package here (a generated one: it can be played like a bundled one)."""
        if path not in self.paths:
            self.paths.append(path)
            self.query_one(ListView).append(ListItem(Static(escape(f"{path.parent.name} (generated)"))))

    @on(ListView.Selected)
    def _selected(self) -> None:
        self.action_open()

    @work(exclusive=True, group="start")
    async def action_start(self) -> None:
        if self.current is None or not may_act(self, "start an attempt"):
            return
        from gauntlet_tui.screens.start import StartScreen

        _, findings, challenge = describe(self.current)
        if challenge is None:
            self.notify("this package cannot be loaded: see its findings", severity="error")
            return
        agents = [f"scripted:{n}" for n in challenge.agent_names] + ["human"]
        choice = await self.app.push_screen_wait(StartScreen(self.current.name, agents))
        if choice:
            attempt = await host(self).start_live_attempt(self.current, **choice)
            if attempt is not None:  # watch it: the attempt view fills in as events arrive
                host(self).open_attempt_screen(attempt, wait_for_events=True)
