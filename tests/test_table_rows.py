"""A fitted table's rows drawn without rich's layout of every cell (`render.table_rows`) come
out as the very segments rich draws, on tables of every kind, in colour and plain."""

from __future__ import annotations

import io

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console, OverflowMethod
from rich.segment import Segment
from rich.style import Style
from rich.text import Text

from acptrace.render.fitted import Column, FittedTable, _rows
from acptrace.render.table_rows import drawn
from acptrace.render.text import cut_names

STYLES = ["", "dim", "bold red", "cyan on black", "italic"]
WORDS = st.text(alphabet="ab  1.→é漢─…\u0301", max_size=14)
"""Cell text: narrow, wide and combining characters, blanks inside and at the ends."""


@st.composite
def cells(draw: st.DrawFn) -> Text:
    plain = draw(st.one_of(WORDS, st.sampled_from(["—", "", " ", "1.29 s"])))
    if draw(st.integers(0, 39)) == 0:  # (now and then a cell rich would wrap or expand)
        plain = draw(st.sampled_from(["a\tb", "two\nlines"]))
    overflows: list[OverflowMethod | None] = [None, None, None, "ignore", "crop", "ellipsis"]
    overflow = draw(st.sampled_from(overflows))
    no_wrap = draw(st.sampled_from([None, None, None, False, True]))
    text = Text(plain, style=draw(st.sampled_from(STYLES)), overflow=overflow, no_wrap=no_wrap)
    for _ in range(draw(st.integers(0, 2))):  # (styled stretches, as `inert` and ids have)
        start = draw(st.integers(0, len(plain)))
        text.stylize(draw(st.sampled_from(STYLES[1:])), start, draw(st.integers(start, 16)))
    return text


@st.composite
def tables(draw: st.DrawFn) -> FittedTable:
    count = draw(st.integers(1, 6))
    columns = [
        Column(
            draw(st.sampled_from(["line", "session", "→marker", "outcome", "max gap", "é", ""])),
            draw(st.sampled_from(["left", "right", "center"])),
            style=draw(st.sampled_from(STYLES)),
            drop=index or None,
            shorten=cut_names if index == 1 and draw(st.booleans()) else None,
        )
        for index in range(count)
    ]
    table = FittedTable(
        columns, title=draw(st.sampled_from([None, "Resumes"])), title_justify="left"
    )
    for _ in range(draw(st.integers(1, 5))):
        table.add_row(*(draw(cells()) for _ in columns))
    return table


def _drawn(table: FittedTable, width: int, colour: bool, quick: bool) -> tuple[list[Segment], str]:
    out = io.StringIO()
    console = Console(
        file=out, width=width, force_terminal=colour, color_system="truecolor" if colour else None
    )
    table.quick = quick
    segments = list(console.render(table, console.options))
    console.print(table)
    return segments, out.getvalue()


@settings(max_examples=300, deadline=None)
@given(tables(), st.sampled_from([24, 40, 60, 80, 120]), st.booleans())
def test_rows_drawn_quickly_are_the_segments_rich_draws(
    table: FittedTable, width: int, colour: bool
) -> None:
    assert _drawn(table, width, colour, quick=True) == _drawn(table, width, colour, quick=False)


def _resumes() -> FittedTable:
    table = FittedTable(
        [Column("line", "right", style="dim"), Column("outcome"), Column("total", "right")],
        title="Resumes",
        title_justify="left",
    )
    table.add_row("5", Text("complete", "green"), "1.29 s")
    table.add_row("442", Text("truncated", "bold red"), Text("—"))
    return table


def test_a_table_of_one_line_cells_is_drawn_here() -> None:
    """The quick drawing is taken for the tables it is for (the comparison above is not
    comparing rich with itself)."""
    table = _resumes()
    console = Console(width=80, force_terminal=True, color_system="truecolor")
    head = table._table(table.columns, rows=False)
    segments = drawn(console, console.options, head, table.table, _rows(table.columns))
    assert segments is not None
    assert Segment("complete ", Style.parse("green")) in segments  # (padded to "truncated")
    assert "".join(s.text for s in segments).splitlines()[5] == "  442   truncated        — "


def test_a_cell_rich_would_wrap_or_expand_is_left_to_rich() -> None:
    console = Console(width=80)
    for plain in ("a\tb", "two\nlines", "\x1b[31m"):
        table = _resumes()
        table.add_row("9", Text(plain), "1 s")
        head = table._table(table.columns, rows=False)
        assert drawn(console, console.options, head, table.table, _rows(table.columns)) is None


def test_a_table_wider_than_the_terminal_is_left_to_rich() -> None:
    table = _resumes()
    console = Console(width=10)
    head = table._table(table.columns, rows=False)
    assert drawn(console, console.options, head, table.table, _rows(table.columns)) is None
