"""The challenge library: bundled packages and any directory given, grouped by seed
000's categories (the grouping is arena/pipeline/catalogue.py's); the manifest summary
and validation findings of the selected one; start an attempt from it."""

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
    LibraryScreen ListView { width: 44; border: round $panel; }
    LibraryScreen .library-group { color: $accent; text-style: bold; }
    LibraryScreen ListItem.-group { background: transparent; }
    LibraryScreen #library-detail { width: 1fr; border: round $panel; padding: 0 1; }
    LibraryScreen #library-findings { margin-top: 1; }
    LibraryScreen #library-briefing-title { margin-top: 1; }
    """
    BINDINGS = [keys.BACK, keys.OPEN, keys.START, keys.GENERATE]

    def __init__(self, dirs: Iterable[Path] = ()) -> None:
        super().__init__(name="library")
        from arena.pipeline.catalogue import bundled, by_category, package_entry

        entries = [*bundled(), *(package_entry(Path(d), "given") for d in dirs)]
        # The list's rows: a category's header (None) then its challenges (their package).
        self.rows: list[Path | None] = []
        self.labels: list[tuple[str, str, str]] = []  # ("group" | "challenge", label, muted tags)
        for category, group in by_category(entries):
            if not group:
                continue
            self.rows.append(None)
            self.labels.append(("group", f"{category} ({len(group)})", ""))
            for e in group:
                self.rows.append(Path(e.path))
                tags = " · ".join(x for x in (e.format, e.weight_class) if x)
                mark = "" if e.source == "bundled" else f" ({e.source})"
                self.labels.append(("challenge", f"  {Path(e.path).name}{mark}", tags))
        self.paths = [p for p in self.rows if p is not None]
        self.current: Path | None = None
        self.generated: dict[Path, Any] = {}  # package -> its gauntlet_tui.generation.Generation

    def compose(self) -> ComposeResult:
        with Horizontal():
            first = next((i for i, p in enumerate(self.rows) if p is not None), None)
            yield ListView(*(self._item(*x) for x in self.labels), id="library-list", initial_index=first)
            with VerticalScroll(id="library-detail"):
                yield Static("Select a challenge.", id="library-summary")
                yield Static("", id="library-findings")
                yield Static("[b]briefing[/]", id="library-briefing-title")
                yield Markdown("", id="library-briefing")
        yield GauntletFooter()

    @staticmethod
    def _item(kind: str, label: str, tags: str = "") -> ListItem:
        if kind == "group":
            return ListItem(Static(escape(label), classes="library-group"), disabled=True, classes="-group")
        return ListItem(Static(escape(label) + (f"  [$text-muted]{escape(tags)}[/]" if tags else "")))

    def on_mount(self) -> None:
        if self.paths:
            self.show(self.paths[0])
        self.query_one(ListView).focus()

    @on(ListView.Highlighted)
    def _highlighted(self, event: ListView.Highlighted) -> None:
        i = event.list_view.index
        row = self.rows[i] if i is not None and i < len(self.rows) else None
        if row is not None:  # a category's header is never selected
            self.show(row)

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
            lv = self.query_one(ListView)
            if ("group", "generated here", "") not in self.labels:
                self.rows.append(None)
                self.labels.append(("group", "generated here", ""))
                lv.append(self._item("group", "generated here"))
            self.paths.append(path)
            self.rows.append(path)
            self.labels.append(("challenge", f"  {path.parent.name} (generated)", ""))
            lv.append(self._item("challenge", f"  {path.parent.name} (generated)"))

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
