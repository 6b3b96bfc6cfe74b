"""Home: the live dashboard of the current heat, one DataTable row per attempt.

The current heat (``arena.heats``, through the app's ``heat_split``) is the run the
command created (``gauntlet arena``, ``gauntlet run``), or the store's newest one for
``gauntlet`` and ``gauntlet serve``: its rows are the table. The store's older attempts are
a key away (``o`` toggles), never mixed in. Agents are named by ``arena.names``: the
contestants shown are told apart, however narrow the Agent column.

``refresh_view(changed)`` is called by the app's refresh timer (a few Hz) with the ids
of attempts whose views changed; rows of running attempts are passed too because their
clocks move. Only changed cells are written, inside one ``batch_update``. With a
cluster, a line under the title shows its nodes and their slots (the app's poller puts a
plain snapshot on the adapter), and the table gets a Node column once an attempt has one.
"""

from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.events import Resize
from gauntlet_tui.text import esc as escape
from textual.widgets import DataTable, Input, Static

from arena.names import Namer
from gauntlet_tui import keys
from gauntlet_tui.engine import EngineAdapter
from gauntlet_tui.screens.confirm import ConfirmScreen
from gauntlet_tui.widgets import AttemptTable
from gauntlet_tui.widgets.cluster_line import ClusterLine
from gauntlet_tui.widgets.detail import MIN_WIDTH, PANE_MAX, PANE_MIN, DetailPane
from gauntlet_tui.screens.kept import KeptScreen
from gauntlet_tui.screens.host import host, may_act
from gauntlet_tui.widgets.footer import GauntletFooter


# what the Score column shows (table_cells.score_cell), in words for the room; the short
# one where the long one would wrap
SCORE_LEGEND = (
    "[b]Score[/]: [b]91.9[/] = the scorecard total, once the attempt has ended · [b]obj 62.5[/] = "
    "objective so far (last submission's tests), before process, strategy, integrity"
)
SCORE_LEGEND_SHORT = "[b]Score[/]: [b]91.9[/] = final total · [b]obj 62.5[/] = objective so far"
LEGEND_CELLS = 2 + Text.from_markup(SCORE_LEGEND).cell_len  # with the line's padding


class HomeScreen(KeptScreen):
    DEFAULT_CSS = """
    HomeScreen #home-title { height: 1; padding: 0 1; background: $panel; color: $foreground; }
    HomeScreen #home-filter { display: none; height: 3; border: tall $accent; }
    HomeScreen.-filtering #home-filter { display: block; }
    HomeScreen #home-empty { display: none; padding: 1 2; color: $text-muted; }
    HomeScreen.-empty #home-empty { display: block; }
    HomeScreen #paused-banner { display: none; height: 1; background: $warning; color: $background; text-style: bold; padding: 0 1; }
    HomeScreen.-paused #paused-banner { display: block; }
    HomeScreen #home-body { height: 1fr; }
    HomeScreen.-narrow DetailPane { display: none; }
    HomeScreen.-crowded DetailPane { display: none; }
    HomeScreen.-empty DetailPane { display: none; }
    HomeScreen #score-legend { height: auto; padding: 0 1; color: $text-muted; }
    HomeScreen.-empty #score-legend { display: none; }
    """
    BINDINGS = [
        keys.FILTER,
        keys.OPEN,
        keys.SORT,
        keys.STOP,
        keys.PAUSE,
        keys.LIBRARY,
        keys.PAST,
        keys.LEADERBOARD,
        keys.BIG_BOARD,
        keys.OLDER,
    ]

    def __init__(self, adapter: EngineAdapter, *, title: str = "Gauntlet") -> None:
        super().__init__(name="home")
        self.adapter = adapter
        self.title_text = title
        self.paused = False
        self._title = ""
        self._table: AttemptTable | None = None
        self._wanted = 0  # the table's wanted width when the detail pane was last placed
        self.older = False  # showing the store's older attempts instead of the current heat (o)
        self.shown: list[str] = []  # the attempts of the rows, in the adapter's order
        self._others = 0  # attempts not shown (the other side of the toggle)
        self._scope_key: tuple | None = None
        self._empty = ""  # the empty table's sentence shown

    def compose(self) -> ComposeResult:
        yield Static("", id="home-title")
        yield ClusterLine(id="cluster-line")
        yield Static("PAUSED — live updates held (p to resume)", id="paused-banner")
        yield Input(placeholder="filter: challenge, agent, format, class, status…", id="home-filter")
        with Horizontal(id="home-body"):
            yield AttemptTable(self._row, id="attempts")
            yield DetailPane(id="home-detail")
        yield Static(SCORE_LEGEND, id="score-legend")
        yield Static("No attempts yet. Press l for the challenge library, or run `gauntlet demo`.", id="home-empty")
        yield GauntletFooter()

    def on_mount(self) -> None:
        self.set_class(self.app.size.width < MIN_WIDTH, "-narrow")
        self.refresh_view(None)
        self.query_one(AttemptTable).focus()

    def on_resize(self, event: Resize) -> None:
        self.set_class(event.size.width < MIN_WIDTH, "-narrow")
        self._place_detail()
        legend = SCORE_LEGEND if event.size.width >= LEGEND_CELLS else SCORE_LEGEND_SHORT
        self.query_one("#score-legend", Static).update(legend)

    def _place_detail(self) -> None:
        """The detail pane gets what the table leaves of the width (``PANE_MIN`` to
        ``PANE_MAX``): titles and classes whole first, on terminals that have the room.
        When the table at its least (the agents' shortest names whole: long adapter and
        model names) fits the terminal but not beside ``PANE_MIN`` of pane, the pane gives
        way (``enter`` opens the attempt) and the table takes the width; a terminal too
        narrow for the table either way keeps the pane, the table scrolls sideways."""
        self._wanted = self.table.wanted_width()
        least = self.table.min_width()
        self.set_class(least <= self.size.width < least + PANE_MIN, "-crowded")
        width = max(PANE_MIN, min(PANE_MAX, self.size.width - self._wanted))
        pane = self.query_one(DetailPane)
        if pane.styles.width is None or pane.styles.width.value != width:
            pane.styles.width = width

    def on_screen_resume(self) -> None:
        """Back on top (after help, a pop-up, an attempt): what changed meanwhile was
        folded into the views while another screen was drawn, so redraw every row."""
        if self.is_mounted:
            self.refresh_view(None)

    @property
    def table(self) -> AttemptTable:
        if self._table is None:
            self._table = self.query_one(AttemptTable)
        return self._table

    def _row(self, attempt: str) -> tuple | None:
        """What the table shows of an attempt: (view, elapsed now, scorecard total)."""
        ad = self.adapter
        view = ad.views.get(attempt)
        if view is None:
            return None
        totals = getattr(self.app, "totals", None)
        return view, ad.elapsed(attempt), totals.values.get(attempt) if totals else None

    def refresh_view(self, changed: set[str] | None) -> None:
        """Redraw the rows of ``changed`` attempts and of running ones; None = all. The
        table writes only the rows in sight (``AttemptTable.sync``)."""
        if self.paused:
            return
        ad = self.adapter
        if self.table.show_nodes(ad.has_nodes):
            changed = None  # the table was rebuilt with its Node column: every row again
        if self._scope():
            changed = None
        ids = self.shown if changed is None else [a for a in self.shown if a in changed or ad.is_live(a)]
        if ad.cluster is not None:
            self.query_one(ClusterLine).show(ad.cluster)
        with self.app.batch_update():
            self.table.sync(ids)
            if self.table.wanted_width() != self._wanted:  # a longer title, or the Node column
                self._place_detail()
        self._refresh_title()
        self._show_detail()

    def _scope(self) -> bool:
        """Which attempts are the rows: the current heat's, or (``o``) the older ones. True
        when that changed: rows that left it are dropped, the agents renamed among the
        contestants now shown, and every row is synced again."""
        split = getattr(self.app, "heat_split", None)
        mine, older = split() if split is not None else (self.adapter.order, [])
        heat = getattr(self.app, "current_heat", lambda: None)()
        if self.older and not older:
            self.older = False  # nothing older left (or none ever): back to the heat
        key = (self.older, heat, len(mine), len(older))
        if key == self._scope_key:
            return False
        self._scope_key = key
        self.shown, others = (older, mine) if self.older else (mine, older)
        if bool(self._others) != bool(others):
            self.refresh_bindings()  # the o key is there only with something on its other side
        self._others = len(others)
        keep = set(self.shown)
        gone = [a for a in self.table.attempt_keys() if a not in keep]
        if gone:
            self.table.drop(gone)
        views = self.adapter.views
        self.table.set_namer(Namer((views[a].agent, views[a].model) for a in self.shown if a in views))
        return True

    def _heat_words(self) -> str:
        heat = getattr(self.app, "current_heat", lambda: None)()
        if self.older:
            return f" · [b]older attempts[/] ([b]o[/]: back to {'heat ' + escape(heat) if heat else 'this heat'})"
        where = f" · heat [b]{escape(heat)}[/]" if heat else ""
        return where + (f" · {self._others} older ([b]o[/])" if self._others else "")

    def _refresh_title(self) -> None:
        ad = self.adapter
        views = [ad.views[a] for a in self.shown if a in ad.views]
        running = sum(1 for v in views if not v.finished)
        title = (
            f"[b]{escape(self.title_text)}[/]{self._heat_words()} · {running} running · {len(views) - running} finished"
            + (f" · filter: {escape(self.table.filter_text)}" if self.table.filter_text else "")
        )
        if self.table.sort_column:
            title += f" · sorted by {self.table.sort_column} {'▼' if self.table.sort_reverse else '▲'}"
        if title != self._title:  # one line, fixed height: no re-layout needed
            self._title = title
            self.query_one("#home-title", Static).update(title, layout=False)
        if not views and self._empty != self._empty_text():
            self._empty = self._empty_text()
            self.query_one("#home-empty", Static).update(self._empty)
        if self.has_class("-empty") != (not views):
            self.set_class(not views, "-empty")

    def _show_detail(self) -> None:
        if self.has_class("-narrow") or self.has_class("-crowded"):
            return
        attempt = self.selected()
        view = self.adapter.views.get(attempt) if attempt else None
        self.query_one(DetailPane).show(attempt, view, self.adapter.elapsed(attempt) if view and attempt else 0.0)

    @on(DataTable.RowHighlighted)
    def _row_highlighted(self) -> None:
        if not self.paused:
            self._show_detail()

    @on(DataTable.HeaderSelected)
    def _header_clicked(self, event: DataTable.HeaderSelected) -> None:
        self.table.sort_by(str(event.column_key.value))  # sorts and writes the rows in sight
        self._refresh_title()
        self._show_detail()

    def _empty_text(self) -> str:
        if self._others:
            return f"No attempts in this heat yet. Press o for the store's {self._others} older attempt(s)."
        return "No attempts yet. Press l for the challenge library, or run `gauntlet demo`."

    # -- keys -----------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``o`` (older attempts) only when the store has attempts outside the current heat."""
        return (self.older or bool(self._others)) if action == "older" else True

    def action_older(self) -> None:
        """Toggle the rows: the store's older attempts, or back to the current heat."""
        split = getattr(self.app, "heat_split", None)
        older = split()[1] if split is not None else []
        if not self.older and not older:
            self.notify("No older attempts: every attempt of the store is in this heat.", timeout=4)
            return
        self.older = not self.older
        self.table.clear_rows(measures=True)
        self.table.move_cursor(row=0)
        self._scope_key = None
        self.refresh_view(None)

    def action_filter(self) -> None:
        self.add_class("-filtering")
        self.query_one("#home-filter", Input).focus()

    @on(Input.Changed, "#home-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.table.filter_text = event.value.strip()
        self.refresh_view(None)

    @on(Input.Submitted, "#home-filter")
    def _filter_done(self, event: Input.Submitted) -> None:
        if not event.value.strip():
            self.remove_class("-filtering")
        self.table.focus()

    def key_escape(self) -> None:
        if self.has_class("-filtering"):
            self.query_one("#home-filter", Input).value = ""
            self.remove_class("-filtering")
            self.table.focus()

    def action_sort(self) -> None:
        self.table.cycle_sort()  # sorts and writes the rows in sight
        self._refresh_title()  # the title shows the sort; no toast (a toast re-lays out the screen)
        self._show_detail()

    def selected(self) -> str | None:
        table = self.table
        if table.row_count == 0:
            return None
        return str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)

    def action_open(self) -> None:
        attempt = self.selected()
        if attempt:
            host(self).open_attempt_screen(attempt)

    @on(DataTable.RowSelected)
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        host(self).open_attempt_screen(str(event.row_key.value))

    def action_pause(self) -> None:
        self.paused = not self.paused
        self.set_class(self.paused, "-paused")
        if not self.paused:
            self.refresh_view(None)

    @work(exclusive=True, group="stop")
    async def action_stop(self) -> None:
        attempt = self.selected()
        if attempt is None or not may_act(self, "stop an attempt"):
            return
        view = self.adapter.views[attempt]
        if not self.adapter.is_live(attempt):
            self.notify(f"{attempt} is not running here.", severity="warning")
            return
        if await self.app.push_screen_wait(
            ConfirmScreen(f"Stop attempt {attempt} ({view.title} — {view.agent})?\nIt ends as interrupted.")
        ):
            await host(self).stop_attempt(attempt)
