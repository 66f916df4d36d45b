"""Rows of the timeline laid out in columns: line, time, direction, gutter, event and link, at
the console's width (a table without a table's cost); styled for a terminal, plain text for a
file or a pipe."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from operator import attrgetter

import msgspec
from rich.align import AlignMethod
from rich.console import Console, ConsoleOptions, RenderResult
from rich.segment import Segment
from rich.text import Text

from acptrace.render.cells import Cell
from acptrace.render.timeline.fitting import (
    ONE_CELL,
    cell_width,
    cropped,
    ellipsized,
    line_starts,
    unglued,
    unit_glued,
)
from acptrace.render.wrapping import wrapped

NONE = Cell()
"""An empty cell."""


class Row(msgspec.Struct, gc=False):
    """One row: fixed cells, then the event cell (cut to one line, or wrapped), then the link.
    A plain update's row is made when its line is read (`EntryRows.update_row`), its
    gutter set when its batch is written (not frozen for that)."""

    number: str
    """The line number shown ("" under a line)."""
    time: Cell
    direction: Cell
    gutter: Cell
    continuation: Cell
    """The gutter of the lines an event wraps onto."""
    event: Cell
    link: Cell
    wrap: bool
    line: int = 0
    """The input line of a row made ahead of its batch (`EntryRows.update_row`), as an entry's."""


@dataclass(frozen=True, slots=True)
class Widths:
    """The widths of the fixed columns: they only grow as the rows stream by."""

    line: int = 0
    """The line number."""
    time: int = 0
    """The relative time."""
    gutter: int = 0
    """The replay-window gutter (one cell per lane)."""

    def over(self, rows: Sequence[Row]) -> Widths:
        """These widths, widened to fit the rows."""
        # (len, not cell_len: these cells hold digits, arrows and box lines, one cell each;
        # each column's texts taken in C, not by a generator over the rows)
        return Widths(
            max(map(len, map(_LINE, rows)), default=self.line),
            max(map(len, map(_TIME, rows)), default=self.time),
            max(map(len, map(_GUTTER, rows)), default=self.gutter),
        ).widest(self)

    def widest(self, other: Widths) -> Widths:
        """The wider of two widths, column by column."""
        return Widths(
            max(self.line, other.line),
            max(self.time, other.time),
            max(self.gutter, other.gutter),
        )


_LINE, _TIME = attrgetter("number"), attrgetter("time.plain")
_GUTTER = attrgetter("gutter.plain")
"""The texts of a row's fixed columns (`Widths.over`)."""


class Rows:
    """Rows laid out in columns at the console's width (a table without a table's cost)."""

    def __init__(self, rows: list[Row], widths: Widths) -> None:
        self.rows, self.widths = rows, widths

    def plain_text(self, width: int) -> str:
        """The rows as rich prints them without colour on a console `width` wide (each line cut
        to the width, without spaces at its end; no rows: one empty line), with no console:
        what a file or a pipe gets (a rich print per batch costs more than the rows)."""
        lines = self._plain(self._event_width(width), width)
        return "\n".join([line.rstrip(" ") for line in lines]) + "\n"

    def _event_width(self, max_width: int) -> int:
        """The event cell's width in a row without a link (most rows: updates, notes,
        findings): to the end of the line. A row with a link gives it what the link leaves
        (`_beside`): links are right-aligned at the end of the line."""
        widths = self.widths
        fixed = widths.line + widths.time + 1 + widths.gutter + 4
        return max(_EVENT_CELLS, max_width - fixed)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        widths = self.widths
        width_open = self._event_width(options.max_width)
        if console.no_color or console.color_system is None:
            joined = "\n".join(self._plain(width_open))
            yield Segment(joined)  # (one segment: rich's styling per span costs more than the rest)
            yield Segment.line()
            return
        for row in self.rows:
            width = _beside(row.link, width_open)
            for first, event in self._events(row, width, width_open):
                text = Text.assemble(
                    row.number.rjust(widths.line) if first else " " * widths.line,
                    " ",
                    _aligned(row.time if first else NONE, widths.time, "right"),
                    " ",
                    _aligned(row.direction if first else NONE, 1, "left"),
                    " ",
                    _aligned(row.gutter if first else row.continuation, widths.gutter, "left"),
                    " ",
                )
                text.append_text(event)
                if first and row.link:
                    text.append(" " * (width - event.cell_len + 1))
                    text.append_text(row.link.text())
                yield from text.render(console)
                yield Segment.line()

    def _plain(self, width_open: int, crop: int | None = None) -> Iterator[str]:
        """The lines as plain text (the same characters as the styled ones), the event
        `width_open` wide without a link; each line cut to `crop` cells, as a console cuts it,
        when given."""
        widths = self.widths
        line_width, time_width, gutter_width = widths.line, widths.time, widths.gutter
        one_cell = ONE_CELL.match
        for row in self.rows:
            fixed = (
                f"{row.number.rjust(line_width)} {row.time.plain.rjust(time_width)} "
                f"{row.direction.plain.ljust(1)} {row.gutter.plain.ljust(gutter_width)} "
            )
            if not row.wrap and not row.link.plain:  # (most rows: one line, no link, no
                # generator; the link's text asked, not its `len`: a Python call a row)
                event = row.event.plain
                if crop is not None and one_cell(event):  # (`fixed`: one cell a character,
                    # as `Widths.over` counts it) a cell a character: its length is its width
                    cut = (
                        event
                        if len(event) <= width_open
                        else ellipsized(event, width_open, row.event.whole)
                    )
                    yield (fixed + cut)[:crop]
                    continue
                line = fixed + ellipsized(event, width_open, row.event.whole)
                yield line if crop is None else cropped(line, crop)
                continue
            width = _beside(row.link, width_open)
            for first, event in self._plain_events(row, width, width_open):
                if not first:
                    fixed = (
                        f"{' ' * (line_width + time_width + 4)}"
                        f"{row.continuation.plain.ljust(gutter_width)} "
                    )
                link = ""
                if first and row.link:
                    link = " " * (width - cell_width(event) + 1) + row.link.plain
                line = fixed + event + link
                yield line if crop is None else cropped(line, crop)

    @staticmethod
    def _plain_events(row: Row, width: int, rest: int) -> Iterator[tuple[bool, str]]:
        """`_events` as plain text (cut or wrapped without a rich Text where it can be)."""
        if not row.wrap:
            yield True, ellipsized(row.event.plain, width, row.event.whole)
            return
        plain = row.event.plain
        if _fits(plain, width):  # (most notes: one line)
            yield True, plain
            return
        lines = _wrapped_plain(plain, width, rest)
        if lines is None:
            lines = [line.plain for line in _wrapped(row.event.text(), width, rest)]
        for index, line in enumerate(lines):
            yield index == 0, line

    @staticmethod
    def _events(row: Row, width: int, rest: int) -> Iterator[tuple[bool, Text]]:
        """The event cell's lines (one, cut, unless the row wraps), each with whether it is
        the row's first: the first `width` cells wide, the others (under a link, which only
        the first line has) `rest`."""
        if not row.wrap:
            cut = row.event.text()
            cut.plain = ellipsized(cut.plain, width, row.event.whole)  # (as `Text.truncate`)
            lines = [cut]
        elif _fits(row.event.plain, width):
            lines = [row.event.text()]  # (wrapped in one line as it is)
        else:
            lines = _wrapped(row.event.text(), width, rest)
        for index, event in enumerate(lines):
            yield index == 0, event


def _wrapped(text: Text, width: int, rest: int) -> list[Text]:
    """A wrapped event's lines, the others hung under its text (`_hang`), a number never
    parted from its unit (`unit_glued`), words kept whole (`render.wrapping`)."""
    hang = _hang_within(text.plain, width)
    glued = unit_glued(text[hang:])
    lines = [unglued(line) for line in wrapped(glued, width - hang, rest - hang)]
    for line in lines:
        line.rstrip()  # (a glue where a line was folded is a space again)
    return [(text[:hang] if i == 0 else Text(" " * hang)) + line for i, line in enumerate(lines)]


def _wrapped_plain(plain: str, width: int, rest: int) -> list[str] | None:
    """`_wrapped` of plain text, without a rich Text (None: characters only rich measures,
    `line_starts`)."""
    hang = _hang_within(plain, width)
    body = plain[hang:]
    starts = line_starts(body, width - hang, rest - hang)
    if starts is None:
        return None
    ends = zip([0, *starts], [*starts, len(body)], strict=True)
    pieces = [body[a:b].rstrip() for a, b in ends]
    return [(plain[:hang] if i == 0 else " " * hang) + piece for i, piece in enumerate(pieces)]


def _fits(plain: str, width: int) -> bool:
    """Text that rich would wrap into one line as it is: one line no wider than `width` (rich's
    wrapping costs about a million instructions a note, and most notes fit)."""
    return cell_width(plain) <= width and "\n" not in plain


def _hang_within(plain: str, width: int) -> int:
    """`_hang`, unless it takes more than half the width (then none)."""
    hang = _hang(plain)
    return 0 if hang > width // 2 else hang


def _hang(plain: str) -> int:
    """How far a wrapped event's other lines are indented: past its first line's indent and a
    finding's mark (`▲ `), so that the text's left edge stays straight."""
    indent = len(plain) - len(plain.lstrip(" "))
    return indent + 2 if plain.startswith("▲ ", indent) else indent


_EVENT_CELLS = 16
"""The narrowest an event cell gets, however narrow the console (a line is cut at its end)."""


def _beside(link: Cell, width_open: int) -> int:
    """The event cell's width in a row with this link (one cell a character: arrows, digits)
    after it, one space between them; `width_open` without one."""
    if not link.plain:
        return width_open
    return max(_EVENT_CELLS, width_open - len(link.plain) - 1)


def _aligned(cell: Cell, width: int, align: AlignMethod) -> Text:
    """The cell as a rich `Text`, padded to `width` cells as `align` says."""
    copy = cell.text()
    copy.align(align, width)
    return copy
