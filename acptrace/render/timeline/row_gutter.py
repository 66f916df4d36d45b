"""The whole gutter of a row: the replay windows' lanes (blue), then the turns' (green) and the
tool calls' (yellow), joined in one cell."""

from __future__ import annotations

from acptrace.render.cells import Cell
from acptrace.render.entries import Entry
from acptrace.render.timeline.gutters import Gutters
from acptrace.render.timeline.span_gutter import SpanGutter

GutterCells = tuple[Cell, Cell]
"""The gutter of a row, and of the lines under it."""


class RowGutter:
    """The gutter of each row, asked for in line order (`Gutters.at`, with the spans' lanes)."""

    def __init__(self, windows: Gutters, spans: SpanGutter) -> None:
        self.windows, self.spans = windows, spans
        self.last: tuple[GutterCells, tuple[str, str], GutterCells] | None = None
        """The last two sides asked for, and their join (most rows: the same as the row's
        before, found without joining them again)."""
        self.cells: dict[tuple[str, str], Cell] = {}
        """Each joined cell made so far (a handful)."""

    def at(self, line: int, entry: Entry | None) -> GutterCells:
        """The gutter of a row at this line, and of the lines under it."""
        windows = self.windows.at(line, entry)
        spans = self.spans.at(line, entry)
        last = self.last
        if last is not None and last[0] is windows and last[1] is spans:
            return last[2]
        joined = (self._cell(windows[0], spans[0]), self._cell(windows[1], spans[1]))
        self.last = (windows, spans, joined)
        return joined

    def _cell(self, windows: Cell, spans: str) -> Cell:
        """The windows' cell, then the spans' lanes (made once for each pair)."""
        key = (windows.plain, spans)
        cell = self.cells.get(key)
        if cell is None:
            turns = self.spans.turn_lanes
            cell = self.cells[key] = Cell.joined(
                (windows.plain, "blue"), (spans[:turns], "green"), (spans[turns:], "yellow")
            )
        return cell
