"""Drawing the dashboard table's rows, fast and cached by row key (a DataTable mixin).

``DataTable`` renders every cell through Rich (``Styled(Padding(cell))``, about a tenth
of a millisecond each), keys its row and line caches by the cursor's position and by a
counter that any update bumps, and bakes each row's *position* into the cell renders
(the ``row`` mouse meta). For a table of one-line rows (``AttemptTable`` adds them so),
no fixed columns and a row cursor this draws the same segments
(``tests/tui/test_table_render.py`` compares them with DataTable's own, line by line)
from two caches:

- cells, by (row key, column) and the few things that style them (cursor on the row,
  hover, focus), without position: a sort or a scroll reuses them;
- lines, by row key *and* position, assembled from cached cells with the position's
  mouse meta applied, so a click after a sort still selects the row under the mouse.

A written cell drops its own renders and its row's lines (``forget_cell``); a theme or
size change drops everything. The header row is DataTable's own.
"""

from __future__ import annotations

from typing import Any

from rich.segment import Segment
from rich.style import Style
from rich.cells import cell_len, set_cell_size
from gauntlet_tui.text import shown
from rich.text import Text
from textual._segment_tools import line_crop
from textual.renderables.styled import Styled
from textual.strip import Strip
from rich.padding import Padding

MAX_VARIANTS = 8  # cached renders per cell or per row before the oldest are dropped


class TableRender:
    """Mixed into a ``DataTable`` subclass (before it in the bases)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._cell_segs: dict[Any, dict[tuple, list[Segment]]] = {}  # (row, col) -> variant -> segments
        self._line_strips: dict[Any, dict[tuple, Strip]] = {}  # row key -> variant -> line
        self._metas: dict[tuple, Style] = {}  # (row index, column index) -> mouse meta style
        self._styled: dict[tuple, Style] = {}  # (style, row index, column index) -> style + meta
        super().__init__(*args, **kwargs)

    # -- cache invalidation ------------------------------------------------------------
    def forget_cell(self, row_key: Any, column_key: Any) -> None:
        self._cell_segs.pop((row_key, column_key), None)
        self._line_strips.pop(row_key, None)

    def forget_row(self, row_key: Any) -> None:
        self._line_strips.pop(row_key, None)
        for key in [k for k in self._cell_segs if k[0] == row_key]:
            del self._cell_segs[key]

    def forget_renders(self) -> None:
        self._cell_segs.clear()
        self._line_strips.clear()

    def _get_offsets(self, y: int) -> tuple[Any, int]:
        """(row key, line in row) of table line ``y``: rows are one line, so it is the row
        at that index (DataTable builds a list of every line, sorting every row, after
        each reorder)."""
        t: Any = self
        if not self._fast():
            return super()._get_offsets(y)  # type: ignore[misc]
        header = t.header_height if t.show_header else 0
        if y < header:
            return t._header_row_key, y
        row_key = t._row_locations.get_key(y - header)
        if row_key is None:
            raise LookupError(f"Y coord {y!r} is greater than total height")
        return row_key, 0

    @property
    def _total_row_height(self) -> int:
        return len(self._row_locations) if self._fast() else super()._total_row_height  # type: ignore[attr-defined,misc]

    def notify_style_update(self) -> None:
        super().notify_style_update()  # type: ignore[misc]
        self.forget_renders()

    def _fast(self) -> bool:
        t: Any = self
        return (
            t.cursor_type == "row"
            and not t.fixed_columns
            and not t.fixed_rows
            and not t.zebra_stripes
            and not t._should_render_row_labels
        )

    # -- drawing -------------------------------------------------------------------------
    def render_lines(self, crop: Any) -> list[Strip]:
        """The widget's style once per paint, not once per line (it walks the DOM)."""
        self._pass_style = self.rich_style  # type: ignore[attr-defined]
        try:
            return super().render_lines(crop)  # type: ignore[misc]
        finally:
            self._pass_style = None

    def render_line(self, y: int) -> Strip:
        t: Any = self
        style = getattr(self, "_pass_style", None)
        if style is None or not self._fast():
            return super().render_line(y)  # type: ignore[misc]
        scroll_x, scroll_y = t.scroll_offset
        if y >= (t.header_height if t.show_header else 0):
            y += scroll_y
        return self._render_line(y, scroll_x, scroll_x + t.size.width, style)

    def _render_line(self, y: int, x1: int, x2: int, base_style: Style) -> Strip:
        t: Any = self
        try:
            row_key, line_no = t._get_offsets(y)
        except LookupError:
            return super()._render_line(y, x1, x2, base_style)  # type: ignore[misc]
        if row_key == t._header_row_key or line_no or not self._fast():
            return super()._render_line(y, x1, x2, base_style)  # type: ignore[misc]
        index = t._row_locations.get(row_key)
        show_cursor, show_hover = t.show_cursor, t._show_hover_cursor
        cursor = t.cursor_row == index
        hover = t.hover_row == index
        width = t.size.width
        state = (show_cursor, show_hover, t._pseudo_class_state)
        key = (index, x1, x2, width, base_style, cursor, hover, state)
        lines = self._line_strips.setdefault(row_key, {})
        strip = lines.get(key)
        if strip is None:
            if len(lines) >= MAX_VARIANTS:
                lines.clear()
            strip = lines[key] = self._assemble(row_key, index, x1, x2, width, base_style, cursor, hover, state)
        return strip

    def _assemble(
        self,
        row_key: Any,
        index: int,
        x1: int,
        x2: int,
        width: int,
        base_style: Style,
        cursor: bool,
        hover: bool,
        state: tuple,
    ) -> Strip:
        """One row's line: DataTable's ``_render_line_in_row`` + ``_render_line`` for a
        one-line row, from cached cells."""
        t: Any = self
        show_cursor, show_hover = state[0], state[1]
        component, post = t._get_styles_to_render_cell(
            False,
            False,
            False,
            hover,
            cursor,
            show_cursor,
            show_hover,
            t.cursor_foreground_priority == "css",
            t.cursor_background_priority == "css",
        )
        pre = base_style + component
        row = t._data[row_key]
        segments: list[Segment] = []
        table_width = 0
        for c, column in enumerate(t.ordered_columns):
            cell_width = column.get_render_width(t)
            table_width += cell_width
            variants = self._cell_segs.setdefault((row_key, column.key), {})
            vkey = (cell_width, pre, post)
            cell = variants.get(vkey)
            if cell is None:
                if len(variants) >= MAX_VARIANTS:
                    variants.clear()
                cell = variants[vkey] = self.cell_segments(row.get(column.key, ""), cell_width, pre, post)
            segments.extend([Segment(seg.text, self._with_meta(seg.style or Style.null(), index, c)) for seg in cell])
        extend, _ = t._get_styles_to_render_cell(
            False, False, False, t.hover_row == (index or 0), cursor, show_cursor, show_hover, False, False
        )
        extend_style = base_style + extend + self._meta(index, 0, out_of_bounds=True)
        segments.append(Segment(" " * max(0, width - table_width), extend_style))
        if x1 == 0 and x2 >= width >= table_width:  # it fits: nothing to crop, the length is known
            return Strip(segments, width).simplify()
        return Strip(line_crop(segments, x1, x2, width)).adjust_cell_length(width, base_style).simplify()

    def _with_meta(self, style: Style, row: int, column: int) -> Style:
        """``style`` plus the (row, column) mouse meta, cached (Rich's own cache of style
        sums holds 1,024: a screen of rows after a sort is more than that)."""
        key = (style, row, column)
        out = self._styled.get(key)
        if out is None:
            if len(self._styled) > 50000:
                self._styled.clear()
            out = self._styled[key] = style + self._meta(row, column)
        return out

    def _meta(self, row: int, column: int, out_of_bounds: bool = False) -> Style:
        key = (row, column, out_of_bounds)
        style = self._metas.get(key)
        if style is None:
            if len(self._metas) > 20000:
                self._metas.clear()
            meta: dict[str, Any] = {"row": row, "column": column}
            if out_of_bounds:
                meta["out_of_bounds"] = True
            style = self._metas[key] = Style.from_meta(meta)
        return style

    def cell_segments(self, value: Any, width: int, pre: Style, post: Style) -> list[Segment]:
        """What ``DataTable._render_cell`` draws for a one-line cell (without the mouse
        meta): the text padded by ``cell_padding``, cropped or padded to ``width``,
        between ``pre`` and ``post`` styles. Strings are plain text, never markup."""
        t: Any = self
        if isinstance(value, Text):
            text, plain = value, value.plain
            if text.spans or text.justify not in (None, "default") or text.overflow not in (None, "fold"):
                return self._rich_cell(text, width, pre, post)
            style = t.app.console.get_style(text.style) if text.style else None
        else:
            pad = " " * t.cell_padding
            chosen = value
            if hasattr(value, "at"):  # a name with shorter forms (table_cells.Names): the table's level
                chosen = value.at(getattr(t, "name_level", 0))
                if cell_len(chosen) > width - 2 * len(pad):  # never cut: a shorter form if one fits
                    chosen = value.fit(max(0, width - 2 * len(pad)))
            text, plain, style = None, str(chosen), None
        if not plain.isprintable():  # control bytes, bidi overrides: shown as text (gauntlet_tui.text)
            plain = shown(plain)
        if "\n" in plain or "\t" in plain:
            return self._rich_cell(text or Text(plain), width, pre, post)
        pad = " " * t.cell_padding
        inner = max(0, width - 2 * len(pad))
        size = cell_len(plain)
        body, fill = (set_cell_size(plain, inner), "") if size >= inner else (plain, " " * (inner - size))
        outer = pre + post
        if style is None or not body:
            return [Segment(pad + body + fill + pad, outer)]
        return [Segment(pad, outer), Segment(body, pre + style + post), Segment(fill + pad, outer)]

    def _rich_cell(self, text: Text, width: int, pre: Style, post: Style) -> list[Segment]:
        t: Any = self
        options = t.app.console_options.update_dimensions(width, 1).update(no_wrap=True)
        lines = t.app.console.render_lines(
            Styled(Padding(text, (0, t.cell_padding)), pre_style=pre, post_style=post), options
        )
        return lines[0] if lines else [Segment(" " * width, pre)]
