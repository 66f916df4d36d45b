"""The rows of a fitted table drawn as rich draws them, without rich's layout of every cell.

rich lays out each cell of a `Table` on its own: it measures it, pads it, wraps it, crops it
(~60 µs a cell). Printing a big transcript's thousand resumes took longer than analysing it.
A fitted table (`render.fitted`) needs none of that: each cell is one line of text no wider
than its column. `drawn` gives such a table's segments, the very segments rich gives
(`tests/test_table_rows.py` holds the two the same on tables of every kind): rich still draws
the title, the header and the rules (the table without its rows, at the same widths), and
this draws the rows between them. A table this cannot draw exactly (a column that folds, a
cell rich would wrap or cut, a tab or a control character, a table laid out otherwise) is
left to rich whole: `drawn` gives None.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions
from rich.containers import Lines
from rich.segment import Segment
from rich.style import Style
from rich.table import Table
from rich.text import Text

_JUSTIFIED = frozenset({"left", "right", "center"})
_LAID_OUT = {"title", "title_justify", "title_style", "box", "pad_edge"}
"""The `Table` arguments of a table whose rows this draws (any other: rich draws it)."""


class Shape:
    """How one column's cells are drawn: width, padding, alignment and style."""

    __slots__ = ("inner", "justify", "left", "right", "style", "width")

    def __init__(self, inner: int, justify: str, style: Style, left: int, right: int) -> None:
        self.inner, self.justify, self.style = inner, justify, style
        self.width = inner + left + right
        """The column's width, padding included (as rich counts it)."""
        self.left = Segment(" " * left, style) if left else None
        self.right = Segment(" " * right, style) if right else None


def drawn(
    console: Console,
    options: ConsoleOptions,
    table: Table,
    laid_out: dict[str, object],
    rows: Sequence[Sequence[Text]],
) -> list[Segment] | None:
    """The segments rich draws for `table` (its columns, no rows of its own, made with the
    arguments `laid_out`) with these rows added, each cell at most its column's `min_width`
    wide; None when this cannot draw them exactly as rich would."""
    shapes = _shapes(console, table, laid_out)
    if shapes is None or not all(_drawable(row, shapes) for row in rows):
        return None
    edge = 2 + len(shapes) - 1  # (`Table._extra_width`: both edges, a rule between columns)
    width = sum(shape.width for shape in shapes)
    if width + edge > options.max_width:
        return None  # (rich would narrow the columns)
    head = list(console.render(table, options))
    bottom = Segment.line()
    if len(head) < 2 or head[-1] != bottom or head[-2].cell_length != width + edge:
        return None  # (not the bottom edge of the widths worked out here)
    body = _rows(console, options, table, shapes, rows)
    return [*head[:-2], *body, *head[-2:]]


def _shapes(console: Console, table: Table, laid_out: dict[str, object]) -> list[Shape] | None:
    """Each column's shape, or None when the table is not one whose rows this draws."""
    if set(laid_out) - _LAID_OUT or table.padding != (0, 1, 0, 1) or table.pad_edge:
        return None
    if table.box is None or not (table.show_edge and table.show_header) or table.show_footer:
        return None
    shapes = []
    last = len(table.columns) - 1
    for index, column in enumerate(table.columns):
        if not column.min_width or column.justify not in _JUSTIFIED or not column.no_wrap:
            return None  # (a column of no width: rich pads it otherwise)
        style = console.get_style(column.style or "")
        shapes.append(Shape(column.min_width, column.justify, style, index > 0, index < last))
    return shapes


def _drawable(row: Sequence[Text], shapes: Sequence[Shape]) -> bool:
    """Every cell is one line of printable text that fits its column, aligned by it (a cell
    of its own alignment, overflow or wrapping is laid out by rich: it may pad otherwise)."""
    return len(row) == len(shapes) and all(
        isinstance(cell, Text)
        and cell.justify is None
        and cell.overflow is None
        and cell.no_wrap is not False
        and cell.plain.isprintable()
        and cell_len(cell.plain) <= shape.inner
        for cell, shape in zip(row, shapes, strict=True)
    )


def _rows(
    console: Console,
    options: ConsoleOptions,
    table: Table,
    shapes: Sequence[Shape],
    rows: Sequence[Sequence[Text]],
) -> list[Segment]:
    """The rows' lines, as `Table._render` draws the rows after the header of a table with
    edges, no footer and no row styles."""
    get_style = console.get_style
    border = get_style(table.style or "") + get_style(table.border_style or "")
    safe = console.safe_box if table.safe_box is None else table.safe_box
    assert table.box is not None  # (`_shapes` saw to it)
    box = table.box.substitute(options, safe=safe)
    middle = _edges(box.mid_left, box.mid_right, box.mid_vertical, border)
    foot = _edges(box.foot_left, box.foot_right, box.foot_vertical, border)
    segments: list[Segment] = []
    add, extend = segments.append, segments.extend
    new_line = Segment.line()
    last = len(rows) - 1
    for index, row in enumerate(rows):
        left, right, divider = foot if index == last else middle
        add(left)
        for place, (cell, shape) in enumerate(zip(row, shapes, strict=True)):
            if place:
                add(divider)
            if shape.left is not None:
                add(shape.left)
            extend(_cell(console, cell, shape))
            if shape.right is not None:
                add(shape.right)
        add(right)
        add(new_line)
    return segments


def _edges(left: str, right: str, vertical: str, border: Style) -> tuple[Segment, ...]:
    """A row's edges and the rule between its cells (a blank rule takes the row's background:
    rows here have no style)."""
    divider = Segment(vertical, border)
    if not vertical.strip():
        divider = Segment(vertical, Style.null().background_style + border)
    return Segment(left, border), Segment(right, border), divider


def _cell(console: Console, cell: Text, shape: Shape) -> list[Segment]:
    """The segments of a cell's text, aligned in its column (without its padding)."""
    style = shape.style
    if not cell.spans:  # (most cells: one segment)
        text = _aligned(cell.plain, shape.inner, shape.justify)
        own = console.get_style(cell.style, default=Style.null()) if cell.style else None
        if not text:
            return []
        if own is None:
            return [Segment(text, style if style else None)]
        return [Segment(text, style + own if style else own)]
    line = cell.copy()
    Lines([line]).justify(console, shape.inner, justify=shape.justify)  # type: ignore[arg-type]
    rendered = Text("\n").join([line]).render(console, end="")
    cropped = Segment.split_and_crop_lines(
        Segment.apply_style(rendered, style), shape.inner, style=style, include_new_lines=False
    )
    return [segment for line_ in cropped for segment in line_]


def _aligned(plain: str, width: int, justify: str) -> str:
    """The text aligned in `width` cells, as rich aligns a line (right and centre: its trailing
    blanks first taken away)."""
    if justify == "left":
        return plain + " " * (width - cell_len(plain))
    plain = plain.rstrip()
    room = width - cell_len(plain)
    if justify == "right":
        return " " * room + plain
    return " " * (room // 2) + plain + " " * (room - room // 2)
