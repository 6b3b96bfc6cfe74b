"""Two attempts side by side (``gauntlet compare`` in the TUI): the scorecards component by
component, the two timelines aligned on the attempt clock and the diff of the scored
submissions. Everything comes from ``arena.compare`` (bounded there); this screen only
lays it out. Agent text is shown literally: table cells are ``rich.text.Text`` (never
markup), the diff is ``Content`` assembled from plain parts."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import DataTable, Static

from gauntlet_tui import keys
from gauntlet_tui.text import line, lines
from gauntlet_tui.widgets.footer import GauntletFooter

if TYPE_CHECKING:
    from arena.compare import Comparison
    from arena.compare.timeline import Line

# line kind -> (bold, theme variable)
KIND_STYLE = {
    "submit": (True, "primary"),
    "score": (True, "primary"),
    "finish": (True, ""),
    "warning": (False, "warning"),
    "refused": (False, "warning"),
    "fault": (False, "error"),
    "marker": (False, "foreground-muted"),
}
DIFF_STYLE = {"+": "$success", "-": "$error", "@": "$accent"}


def _cell(item: Line | None, colours: dict[str, str]) -> Text:
    if item is None:
        return Text("")
    bold, var = (False, "foreground-muted") if item.source == "agent" else KIND_STYLE.get(item.kind, (False, ""))
    style = " ".join(x for x in ("bold" if bold else "", colours.get(var, "") if var else "") if x)
    text = ("> " if item.source == "agent" else "") + item.text
    return Text(text, style=style, no_wrap=True, overflow="ellipsis")


def _num(v: float | None) -> str:
    return "-" if v is None else f"{v:g}"


def diff_content(c: Comparison) -> Content:
    from arena.compare.render import diff_lines

    out = []
    for text in diff_lines(c):
        style = "bold" if text.startswith(("---", "+++")) else DIFF_STYLE.get(text[:1], "")
        out.append(line((text, style)) if style else line(text))
    return lines(out)


class CompareScreen(Screen):
    DEFAULT_CSS = """
    CompareScreen #compare-top { height: auto; max-height: 9; }
    CompareScreen #compare-head { width: 1fr; height: auto; padding: 0 1; }
    CompareScreen #compare-scores { width: 44; height: auto; max-height: 8; }
    CompareScreen #compare-timeline { height: 1fr; border: round $panel; }
    CompareScreen #compare-diff { height: 1fr; border: round $panel; padding: 0 1; }
    """
    BINDINGS = [keys.BACK]

    def __init__(self, store_path: Path | None, a: str, b: str) -> None:
        super().__init__(name="compare")
        self.store_path = store_path
        self.a, self.b = a, b
        self.comparison: Comparison | None = None

    def compose(self) -> ComposeResult:
        with Horizontal(id="compare-top"):
            yield Static(line(f"Comparing {self.a} and {self.b}…"), id="compare-head")
            yield DataTable(id="compare-scores", cursor_type="none", show_cursor=False)
        yield DataTable(id="compare-timeline", cursor_type="row", zebra_stripes=True)
        with VerticalScroll(id="compare-diff"):
            yield Static("", id="compare-diff-body")
        yield GauntletFooter()

    async def on_mount(self) -> None:
        from arena.compare import compare

        head = self.query_one("#compare-head", Static)
        if self.store_path is None:
            head.update(line(("No store: nothing to compare.", "$error")))
            return
        try:
            c = await compare(self.store_path, self.a, self.b)
        except Exception as exc:  # noqa: BLE001 — an unknown attempt or unreadable store: say so
            head.update(line((f"could not compare {self.a} and {self.b}: {exc}", "$error")))
            return
        self.comparison = c
        self.show(c)

    def show(self, c: Comparison) -> None:
        ha, hb = c.a.head(), c.b.head()
        rows = []
        for side, h in (("A", ha), ("B", hb)):
            rows.append(
                line(
                    (f"{side} ", "bold"),
                    f"{h['attempt']}  {h['challenge']}  {h['agent']}  ",
                    (f"{h['total']:g}", "bold"),
                )
            )
            scored = f"#{h['scored_submission']}" if h["scored_submission"] else "none"
            trajectory = " -> ".join(f"{x:g}" for x in h["trajectory"]) or "no score"
            rows.append(line(("  ", ""), (f"{h['status']} · scored {scored} · trajectory {trajectory}", "$text-muted")))
        rows += [line(("note: ", "$warning"), n) for n in c.notes]
        rows.append(line(("tab: timeline / diff · '>' lines are the agent's own account · esc: back", "$text-muted")))
        self.query_one("#compare-head", Static).update(lines(rows))
        colours = self.app.theme_variables
        scores = self.query_one("#compare-scores", DataTable)
        for label in ("component", "A", "B", "B-A"):
            scores.add_column(label, key=label)
        for r in c.components():
            d = r["diff"]
            style = "" if not d else colours.get("success" if d > 0 else "error", "")
            diff = Text("-" if d is None else f"{d:+g}" if d else "0", style=style, justify="right")
            scores.add_row(
                r["component"], Text(_num(r["a"]), justify="right"), Text(_num(r["b"]), justify="right"), diff
            )
        width = max(20, (self.size.width - 14) // 2)
        table = self.query_one("#compare-timeline", DataTable)
        table.add_column("t (s)", key="t", width=7)
        table.add_column(Text(f"A {c.a.attempt} · {ha['agent']}"), key="a", width=width)
        table.add_column(Text(f"B {c.b.attempt} · {hb['agent']}"), key="b", width=width)
        for row in c.rows:
            table.add_row(Text(f"{row.t:.1f}", justify="right"), _cell(row.a, colours), _cell(row.b, colours))
        self.query_one("#compare-diff-body", Static).update(diff_content(c))
        table.focus()


def mark_or_compare(screen: Screen, table: DataTable) -> None:
    """The compare key of the attempts list: the first press marks the highlighted attempt,
    the second (on another one) opens the comparison; on the marked one it unmarks."""
    if not table.row_count:
        return
    current = str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)
    marked: str | None = getattr(screen, "compare_marked", None)
    if marked is None:
        screen.compare_marked = current  # type: ignore[attr-defined]
        screen.notify(f"{current} marked: pick another attempt and press c to compare", timeout=6)
        return
    screen.compare_marked = None  # type: ignore[attr-defined]
    if marked == current:
        screen.notify(f"{current} unmarked", timeout=3)
        return
    store = getattr(screen.app, "store_path", None)
    screen.app.push_screen(CompareScreen(store, marked, current))
