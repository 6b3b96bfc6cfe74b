"""The big board: the dashboard for a projector, one card per attempt filling the screen.

Each card shows the challenge (its border's title) and the agent (its first line, always:
the longest of its names that fits the card, ``arena.names``), the time left in large
digits, the state as the card's colour (running, 80% warning, 90% urgent, grace, over, infra error), the score and
its trajectory, and the last feedback in one line. ``v`` toggles it from home; under the
projector theme the app opens it by default. The cards are the current heat's attempts
(the app's ``heat_split``, as the dashboard's rows). Cards are redrawn by the app's refresh
timer (``refresh_view``) from the engine's views; nothing is computed here.

More attempts than fit the screen (cards of at least ``CARD_W`` x ``CARD_H`` cells) are
shown a page at a time: PgDn/PgUp (or ``]``/``[``) turn the page, a line above the cards
says which page of how many. The cards are mounted once per page size and re-pointed at
the page's attempts; each writes only the parts of it that changed.
"""

from __future__ import annotations

import math
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Vertical
from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual.renderables.digits import Digits as DigitsRenderable
from textual.strip import Strip
from textual.widgets import Digits, Sparkline, Static

from arena.names import Namer
from arena.view import AttemptView
from gauntlet_tui import keys
from gauntlet_tui.text import as_text
from gauntlet_tui.widgets.attempt_lines import STATES, card_state, feedback_line, state_line
from gauntlet_tui.widgets.clock import fmt_clock
from gauntlet_tui.screens.kept import KeptScreen
from gauntlet_tui.widgets.footer import GauntletFooter


def clock_text(view: AttemptView, elapsed: float) -> str:
    stage = view.stage(elapsed)
    if stage == "grace":
        return fmt_clock(max(0.0, view.cutoff_s() + view.grace_s - elapsed))
    if view.finished or stage == "over":
        return fmt_clock(max(0.0, view.time_limit_s - view.elapsed_s)) if view.finished else "00:00"
    return fmt_clock(view.remaining(elapsed))


CARD_W, CARD_H = 40, 10  # the smallest card that shows all of it (title, digits, state, spark)


def grid_for(n: int, width: int, height: int) -> tuple[int, int, int]:
    """(columns, rows, cards per page) for ``n`` attempts in ``width`` x ``height`` cells:
    all of them when they fit, in a near-square grid; else a page of the most that fit."""
    max_cols, max_rows = max(1, width // CARD_W), max(1, height // CARD_H)
    if n > max_cols * max_rows:
        return max_cols, max_rows, max_cols * max_rows
    cols = max(1, math.ceil(math.sqrt(n * 2)) // 2 + (1 if n > 1 else 0))
    cols = min(cols, n, max_cols) if n else 1
    if math.ceil(n / cols) > max_rows:
        cols = math.ceil(n / max_rows)
    return cols, max(1, math.ceil(n / cols)), max(n, 1)


OFFSET = Style(meta={"offset": (0, 0)})  # what DigitsRenderable puts on its glyphs
_glyphs: dict[tuple[str, bool], list[str]] = {}


def glyph_rows(value: str, bold: bool) -> list[str]:
    """The three rows of large characters ``Digits`` draws for ``value`` (cached)."""
    rows = _glyphs.get((value, bold))
    if rows is None:
        if len(_glyphs) > 4096:
            _glyphs.clear()
        segments = DigitsRenderable(value).render(Style(bold=bold))
        rows = _glyphs[(value, bold)] = [seg.text for seg in segments if isinstance(seg, Segment) and seg.text != "\n"]
    return rows


class BoardDigits(Digits):
    """``Digits`` drawn straight from its glyph rows: the same characters and styles,
    without Rich's Align and render pipeline (a page turn redraws 16 of them)."""

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        style = self.rich_style
        rows = glyph_rows(self.value, bool(style.bold))
        if y >= len(rows):
            return Strip.blank(width, style)
        text = rows[y]
        size = cell_len(text)
        if size >= width:
            return Strip([Segment(text, style + OFFSET)], size).crop(0, width)
        return Strip([Segment(text, style + OFFSET), Segment(" " * (width - size), style)], width)


class AttemptCard(Vertical):
    DEFAULT_CSS = """
    AttemptCard { border: heavy $primary; padding: 0 1; height: 1fr; border-title-align: left;
                  border-title-color: $foreground; }
    AttemptCard .card-title { text-style: bold; height: auto; max-height: 2; }
    AttemptCard Digits { width: auto; }
    AttemptCard .card-state { height: 1; }
    AttemptCard Sparkline { height: 1fr; max-height: 6; margin: 1 0 0 0; }
    AttemptCard .card-feedback { height: 1; color: $text-muted; }
    AttemptCard.-warning { border: heavy $warning; }
    AttemptCard.-warning Digits { color: $warning; }
    AttemptCard.-urgent { border: heavy $error; }
    AttemptCard.-urgent Digits { color: $error; text-style: bold; }
    AttemptCard.-grace { border: double $warning; background: $warning 20%; }
    AttemptCard.-grace Digits { color: $warning; }
    AttemptCard.-over { border: heavy $panel; }
    AttemptCard.-over Digits { color: $text-muted; }
    AttemptCard.-infra { border: heavy $error; background: $error 25%; }
    """

    def __init__(self, serial: int) -> None:
        super().__init__(id=f"card-{serial}")
        self.attempt: str | None = None
        self._shown: dict[str, Any] = {}  # part -> what it shows now
        self._parts: tuple | None = None
        self._state: str | None = None

    def compose(self) -> ComposeResult:
        yield Static("", classes="card-title")
        yield BoardDigits("--:--")
        yield Static("", classes="card-state")
        yield Static("", classes="card-feedback")
        yield Sparkline([], summary_function=max)

    def assign(self, attempt: str | None) -> None:
        """Point the card at another attempt (a page turn); it redraws on ``show``."""
        if attempt != self.attempt:
            self.attempt = attempt
            self._shown.clear()
        if self.display != (attempt is not None):
            self.display = attempt is not None

    def _set(self, part: str, value: Any) -> bool:
        if self._shown.get(part, self) == value:
            return False
        self._shown[part] = value
        return True

    def show(self, view: AttemptView, elapsed: float, namer: Namer | None = None) -> None:
        """Write what changed: the state class, the challenge (border title), the agent,
        digits, state line, feedback, spark."""
        if not self.is_mounted or not self.children:
            return
        if self._parts is None:  # found once: a DOM query per part per refresh adds up
            self._parts = (
                self.query_one(".card-title", Static),
                self.query_one(Digits),
                self.query_one(".card-state", Static),
                self.query_one(".card-feedback", Static),
                self.query_one(Sparkline),
            )
        title, digits, line, feedback, spark = self._parts
        state = card_state(view, elapsed)
        if state != self._state:  # the class it has, kept across page turns
            was, self._state = self._state, state
            self.remove_class(*(f"-{s}" for s in STATES if s != state), update=False)
            self.add_class(f"-{state}", update=False)
            # restyle the card and its digits: no other part has a rule on the state; but a
            # state with a background of its own (grace, infra) is the parts' background too
            # (else their text kept the old one: dark boxes on the infra card)
            tinted = {was, state} & {"grace", "infra"}
            self.app.stylesheet.update_nodes([self, *self._parts] if tinted else [self, digits], animate=False)
        if self._set("challenge", f"{view.title or view.challenge} · {view.format}"):
            self.border_title = as_text(self._shown["challenge"], limit=200)
        room = max(1, self.size.width - 4)  # inside the border and the padding
        agent = (namer or Namer()).name(view.agent, view.model, view.contestant, room)
        if self._set("title", agent):
            title.update(as_text(self._shown["title"]))  # a name longer than the card wraps: never cut
        if self._set("clock", clock_text(view, elapsed)):
            digits.update(self._shown["clock"])
        if self._set("line", state_line(view, elapsed)):
            line.update(as_text(self._shown["line"]), layout=False)
        if self._set("feedback", feedback_line(view)):
            feedback.update(as_text(self._shown["feedback"]), layout=False)
        if self._set("trajectory", view.trajectory):
            spark.data = list(self._shown["trajectory"])


class BigBoardScreen(KeptScreen):
    DEFAULT_CSS = """
    BigBoardScreen #board { grid-gutter: 0 1; height: 1fr; }
    BigBoardScreen #board-pages { display: none; height: 1; padding: 0 1; background: $panel; }
    BigBoardScreen.-paged #board-pages { display: block; }
    BigBoardScreen #board-empty { padding: 2 4; color: $text-muted; }
    """
    BINDINGS = [
        keys.BACK,
        Binding("v", "app.back", "Table", id="board-table", tooltip="Back to the dashboard table"),
        keys.PAGE_NEXT,
        keys.PAGE_PREV,
    ]

    def __init__(self, adapter: Any) -> None:
        super().__init__(name="bigboard")
        self.adapter = adapter
        self.page = 0
        self.pages = 1
        self.slots: list[AttemptCard] = []  # mounted cards, one per place on the page
        self.cards: dict[str, AttemptCard] = {}  # attempt -> its card, this page's only
        self._grid: tuple[int, int] | None = None
        self._mounting = False
        self._serial = 0  # card ids are never reused (a removed card may still be leaving)
        self.namer = Namer()  # the contestants on the board, told apart (arena.names)
        self._namer_for: Any = None
        self._namer_n = 0

    def compose(self) -> ComposeResult:
        yield Static("", id="board-pages")
        yield Grid(id="board")
        yield GauntletFooter()

    def on_mount(self) -> None:
        self.refresh_view()

    def on_screen_resume(self) -> None:
        self.refresh_view()

    def on_resize(self) -> None:
        self.refresh_view()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The page keys are there (and in the footer) only when there are pages."""
        return self.pages > 1 if action == "page" else True

    def action_page(self, step: int) -> None:
        self.page = max(0, min(self.pages - 1, self.page + step))
        self.refresh_view()

    def _place(self, n: int) -> int:
        """Lay the grid out for ``n`` attempts on this screen; returns cards per page."""
        width, height = self.size.width, self.size.height - 1  # the footer
        cols, rows, per_page = grid_for(n, width, height)
        if per_page < n:  # paged: the page line takes a row
            cols, rows, per_page = grid_for(n, width, height - 1)
        pages = max(1, math.ceil(n / per_page))
        if (pages > 1) != (self.pages > 1):
            self.refresh_bindings()
        self.pages = pages
        self.set_class(pages > 1, "-paged")
        grid = self.query_one("#board", Grid)
        # read back, not remembered: the grid's inline styles do not survive the screen's
        # first styling when it is pushed over the dashboard (seen: one column of cards)
        if (grid.styles.grid_size_columns, grid.styles.grid_size_rows) != (cols, rows):
            grid.styles.grid_size_columns = cols
            grid.styles.grid_size_rows = rows
        self._grid = (cols, rows)
        return per_page

    def refresh_view(self, changed: Any = None) -> None:
        if self._mounting or not self.size.height:
            return
        split = getattr(self.app, "heat_split", None)
        ids = split()[0] if split is not None else self.adapter.order
        per_page = self._place(len(ids))
        if len(self.slots) != per_page:
            self._resize_pool(per_page)
            return
        self.page = min(self.page, self.pages - 1)
        first = self.page * per_page
        shown = ids[first : first + per_page]
        self.cards = {}
        for i, card in enumerate(self.slots):
            attempt = shown[i] if i < len(shown) else None
            card.assign(attempt)
            if attempt is not None:
                self.cards[attempt] = card
        if self.pages > 1:
            self.query_one("#board-pages", Static).update(
                f"page {self.page + 1}/{self.pages} · attempts {first + 1}–{first + len(shown)} of "
                f"{len(ids)} · PgDn/PgUp or ]/[ to turn",
                layout=False,
            )
        views = self.adapter.views
        if self._namer_for is not ids or len(ids) != self._namer_n:
            self._namer_for, self._namer_n = ids, len(ids)
            self.namer = Namer((views[a].agent, views[a].model) for a in ids if a in views)
        for attempt, card in self.cards.items():
            view = views.get(attempt)
            if view is not None:
                card.show(view, self.adapter.elapsed(attempt), self.namer)

    def _resize_pool(self, per_page: int) -> None:
        """Mount or remove cards so there is one per place; redraw once they are there."""
        grid = self.query_one("#board", Grid)
        extra, self.slots = self.slots[per_page:], self.slots[:per_page]
        for card in extra:
            card.remove()
        new = [AttemptCard(self._serial + i) for i in range(per_page - len(self.slots))]
        self._serial += len(new)
        self.slots += new
        self._mounting = True

        def done() -> None:
            self._mounting = False
            self.refresh_view()

        if new:
            grid.mount(*new)
        self.call_after_refresh(done)
