"""Tables that fit the terminal without cutting a number or a word of a closed set.

A `FittedTable` is laid out when it is printed, for the width it gets. Every column keeps its
cells and its heading whole (numbers, outcomes, short ids); when the whole does not fit, columns
marked droppable go, in their order (the least read first), and one line under the table says
which went and how wide a terminal shows them; a column marked `idle_first` goes before all the
others when no row has a value in it (the marker latencies of a v1 connection). The columns
that cannot go are those that name a row (a line, a session, a group). A column of long names
(groups, paths) is shown whole when there is room; when there is not, it is shortened (down to
its `least` width) before any column goes, each name by its column's `shorten`, all of them
still told apart.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import msgspec
from rich import box
from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.segment import Segments
from rich.table import Table
from rich.text import Text

from acptrace.model.columns import legend_items
from acptrace.render.facts import Facts
from acptrace.render.table_rows import drawn

UNBOUNDED = 1_000_000
"""A width no table reaches: to measure what a table would take."""
ROOMY_NAME = 24
"""Names shortened to this many characters still read well: a minor column stays while the
names can make room by shortening no further (so that a wide terminal, or the 160 columns of a
pipe, shows every column, the names a little shorter)."""
NO_VALUE = frozenset({"", "—"})
"""What a cell holds when it has no value."""


class Column(msgspec.Struct):
    """One column: its heading, alignment and cells, and what it may give up."""

    heading: str
    justify: str = "left"
    style: str = ""
    drop: int | None = None
    """Dropped when the table does not fit, lowest first; None: never dropped."""
    shorten: Callable[[Sequence[str], int], list[str]] | None = None
    """Shortens the cells to at most a width each (names in the middle, paths by their
    folders); None: never shortened."""
    least: int = 12
    """The narrowest `shorten` may make the column."""
    idle_first: bool = False
    """Dropped before every other column when no cell has a value (each is empty or `—`):
    for a column whose dash only says it does not apply, not one whose dash is a verdict."""
    cells: list[Text] = msgspec.field(default_factory=list)

    def idle(self) -> bool:
        """Marked `idle_first`, and no cell has a value."""
        return self.idle_first and all(cell.plain in NO_VALUE for cell in self.cells)

    def need(self) -> int:
        """The narrowest this column can be without cutting a cell."""
        widest = max((cell.cell_len for cell in self.cells), default=0)
        return max(widest, Text(self.heading).cell_len)


class FittedTable:
    """A table laid out for the width it is printed at (see the module docstring)."""

    def __init__(
        self,
        columns: Sequence[Column],
        minor: int = 0,
        legend: str | None = None,
        settle: Callable[[Console, ConsoleOptions], None] | None = None,
        **table: Any,
    ) -> None:
        self.columns = list(columns)
        self.minor = minor
        """Columns whose `drop` is at most this go before long names are shortened; the others
        only when shortening the names is not enough."""
        self.legend = legend
        """The table's key in `acptrace.model.columns.TABLES`: the columns it shows that do not
        explain themselves are explained in a line under it; None: no legend."""
        self.settle = settle
        """Called with the console and its options before the table is laid out: tables that
        share their names' cuts settle them there, all at once (`report.relative.NameBook`)."""
        self.table = table
        self.shown = self.columns
        """The columns of the table last laid out (names shortened, columns left out)."""
        self.quick = True
        """Its rows drawn by `render.table_rows` where that draws them as rich would (False:
        by rich, cell by cell; a test compares the two)."""

    def add_row(self, *cells: Text | str) -> None:
        """Append one row (a cell per column, in order)."""
        for column, cell in zip(self.columns, cells, strict=True):
            column.cells.append(cell if isinstance(cell, Text) else Text(cell))

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        shown, kept, fold = self._fit(console, options)
        quick = None
        if self.quick and not fold:  # (the rows drawn without rich's layout of every cell)
            head = self._table(shown, rows=False)
            quick = drawn(console, options, head, self.table, _rows(shown))
        yield self._table(shown, fold) if quick is None else Segments(quick)
        items = legend_items(self.legend, (c.heading for c in kept)) if self.legend else []
        if items:
            yield Facts([Text(item, "dim") for item in items], Text(" · ", "dim"))
        if len(kept) < len(self.columns):
            unbounded = options.update(max_width=UNBOUNDED)
            full = Measurement.get(console, unbounded, self._table(self.columns)).maximum
            yield left_out_note([c for c in self.columns if c not in kept], options.max_width, full)
        elif items:
            yield Text("")  # (the blank line a table or the left-out note ends with)

    def layout(self, console: Console, options: ConsoleOptions) -> Table:
        """The rich table for the width it is printed at, measured by rich itself."""
        shown, _, fold = self._fit(console, options)
        return self._table(shown, fold)

    def _fit(
        self, console: Console, options: ConsoleOptions
    ) -> tuple[list[Column], list[Column], bool]:
        """The columns to show (long names shortened), the columns kept, and whether the long
        names fold."""
        if self.settle is not None:
            self.settle(console, options)
        kept = list(self.columns)
        droppable = sorted(
            (c for c in kept if c.drop is not None), key=lambda c: (not c.idle(), c.drop)
        )
        unbounded = options.update(max_width=UNBOUNDED)  # (a measure is cut to its width)
        while True:
            if surely_fits(kept, options.max_width):  # (measuring costs more than drawing)
                return kept, kept, False
            table = self._table(kept)
            over = Measurement.get(console, unbounded, table).maximum - options.max_width
            if over <= 0:
                return kept, kept, False
            minor = droppable and (droppable[0].idle() or (droppable[0].drop or 0) <= self.minor)
            shortened = shortened_columns(kept, over, floor=ROOMY_NAME if minor else 0)
            if shortened is not None:
                return shortened, kept, False
            if not droppable:  # (names as short as they can be told apart: they fold)
                return shortened_columns(kept, over, at_least=True) or kept, kept, True
            kept.remove(droppable.pop(0))

    def _table(self, columns: Sequence[Column], fold: bool = False, rows: bool = True) -> Table:
        """The rich table of these columns; with `fold`, the long names fold over lines where
        they are still too wide, so that no other cell is cut; without `rows`, its title, header
        and rules only."""
        self.shown = list(columns)
        table = Table(box=box.SIMPLE_HEAD, pad_edge=False, **self.table)
        for column in columns:
            folds = fold and column.shorten is not None
            table.add_column(
                column.heading,
                justify=column.justify,  # type: ignore[arg-type]
                style=column.style,
                min_width=column.least if folds else column.need(),
                no_wrap=not folds,
                overflow="fold" if folds else "ellipsis",
            )
        for row in _rows(columns) if rows else ():
            table.add_row(*row)
        return table


def shortened_columns(
    columns: Sequence[Column], over: int, *, at_least: bool = False, floor: int = 0
) -> list[Column] | None:
    """The columns with their long names shortened by `over` cells in all, the widest first;
    None when that cannot be done without going below their `least` widths, or `floor` (unless
    `at_least`: then as short as those allow)."""
    widths = {
        index: column.need() for index, column in enumerate(columns) if column.shorten is not None
    }
    least = {i: max(columns[i].least, floor, Text(columns[i].heading).cell_len) for i in widths}
    left = over
    while left > 0:
        open_ = [i for i in widths if widths[i] > least[i]]
        if not open_:
            break
        widest_ = max(open_, key=lambda i: widths[i])
        next_ = max((widths[i] for i in open_ if i != widest_), default=0)
        target = max(least[widest_], widths[widest_] - left, min(next_, widths[widest_] - 1))
        left -= widths[widest_] - target
        widths[widest_] = target
    result = list(columns)
    for index, width in widths.items():
        if width < columns[index].need():
            result[index] = shortened(columns[index], width)
    shrunk = sum(c.need() for c in columns) - sum(c.need() for c in result)
    return result if shrunk >= over or at_least else None


def shortened(column: Column, width: int) -> Column:
    """The column with every cell shortened to `width` by its `shorten`, wider if two names
    would then look alike (each cell keeps its style)."""
    assert column.shorten is not None
    names = sorted({cell.plain for cell in column.cells if cell.plain})
    while True:
        cuts = dict(zip(names, column.shorten(names, width), strict=True))
        if len(set(cuts.values())) == len(cuts) or width >= column.need():
            break
        width += 1
    cells = [Text(cuts.get(c.plain, c.plain), style=c.style, end="") for c in column.cells]
    return msgspec.structs.replace(column, cells=cells)


def left_out_note(columns: Sequence[Column], width: int, full: int) -> Text:
    """The line under a table that left these columns out at `width` (and a blank line, as
    under a table): which, and the width that shows them all (`full`)."""
    names = ", ".join(column.heading for column in columns)
    note = f"Left out at {width} columns: {names} (COLUMNS={full} shows all)"
    if cell_len(note) > width:  # (the hint on a line of its own, not cut after its `shows`)
        note = f"Left out at {width} columns: {names}\n(COLUMNS={full} shows all)"
    return Text(f"{note}\n", "dim")


def widest(columns: Sequence[Column]) -> int:
    """The most a table of these columns can take: their widths, a space of padding on each
    side of every cell and a rule between columns and at both edges (rich takes less, as
    `pad_edge=False` leaves the outer padding out)."""
    return sum(column.need() for column in columns) + 3 * len(columns) + 1


def surely_fits(columns: Sequence[Column], width: int) -> bool:
    """The columns fit in `width` whatever rich makes of them (`widest`)."""
    return widest(columns) <= width


def _rows(columns: Sequence[Column]) -> list[list[Text]]:
    """The cells of each row."""
    return [list(row) for row in zip(*(column.cells for column in columns), strict=True)]
