"""The replay-window gutter: each window a block in its own lane (┌ at the resume request, ├ at
its marker, └ at its response, │ in between), one lane per overlapping window."""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass

from acptrace.model.domain import Message, MessageKind, ResumeRow
from acptrace.render.cells import Cell
from acptrace.render.ci import same_id
from acptrace.render.entries import Entry
from acptrace.render.timeline.kinds import NOTIFICATION, RESPONSE


@dataclass(frozen=True, slots=True)
class Window:
    """A replay window drawn in one gutter lane."""

    row: ResumeRow
    lane: int

    @property
    def end(self) -> float:
        """The last line of the window (infinite while it is open at the end)."""
        response = self.row.response_line
        return float("inf") if response is None else response


def windows_in_lanes(rows: Sequence[ResumeRow]) -> list[Window]:
    """The windows of these replaying requests, each in the lowest gutter lane free when its
    request was sent."""
    windows: list[Window] = []
    free: list[int] = []
    busy: list[tuple[float, int]] = []
    for row in sorted(rows, key=lambda r: r.request_line):
        while busy and busy[0][0] < row.request_line:
            heapq.heappush(free, heapq.heappop(busy)[1])
        lane = heapq.heappop(free) if free else len(busy)
        window = Window(row, lane)
        heapq.heappush(busy, (window.end, lane))
        windows.append(window)
    return windows


PLAIN_UPDATE = Entry(0, NOTIFICATION, "")
"""What the gutter asks of a plain update whose row was made without an entry (its kind; it
has no message, no request)."""


class Gutters:
    """The gutter of each line, asked for in line order: the windows open there, one per lane."""

    def __init__(self, windows: Sequence[Window]) -> None:
        self.waiting = sorted(windows, key=lambda w: w.row.request_line, reverse=True)
        self.open: list[Window] = []
        self.closing = float("inf")
        """The first line after which an open window is over (none is: infinity)."""
        self.width = max((w.lane + 1 for w in windows), default=0)
        self.cells: dict[str, Cell] = {}
        """Each gutter made so far (a handful: most rows have one of the same few)."""
        blank = Cell(" " * self.width, "blue")
        self.blank = (blank, blank)
        self.through = self.blank
        """The gutter of a row that is no window's request, marker or response: │ in each
        lane open (most rows), made again only when the windows open change."""
        self.markers: frozenset[int] = frozenset()
        """The marker lines of the windows open."""

    def at(self, line: int, entry: Entry | None) -> tuple[Cell, Cell]:
        """The gutter of a row at this line, and of the lines under it.

        ┌ at the resume request, ├ at its marker, └ at its response, │ in between.
        """
        waiting = self.waiting
        if (waiting and waiting[-1].row.request_line <= line) or line > self.closing:
            self._move(line)
        if not self.open:
            return self.blank
        if line not in self.markers and (
            entry is None or entry.message is None or entry.kind == NOTIFICATION
        ):  # (no window's request, marker or response: `_marks` says │ in every lane)
            return self.through
        cells, under = [" "] * self.width, [" "] * self.width
        for window in self.open:
            cells[window.lane], under[window.lane] = _marks(window.row, line, entry)
        return self._cell("".join(cells)), self._cell("".join(under))

    def _move(self, line: int) -> None:
        """Open the windows that start by this line, drop those that ended before it."""
        waiting = self.waiting
        while waiting and waiting[-1].row.request_line <= line:
            self.open.append(waiting.pop())
            self.closing = min(self.closing, self.open[-1].end)
        if line > self.closing:  # (windows end: the rest stay open)
            self.open = [w for w in self.open if w.end >= line]
            self.closing = min((w.end for w in self.open), default=float("inf"))
        self.markers = frozenset(w.row.marker_line for w in self.open if w.row.marker_line)
        through = [" "] * self.width
        for window in self.open:
            through[window.lane] = "│"
        cell = self._cell("".join(through))
        self.through = (cell, cell)

    def _cell(self, text: str) -> Cell:
        """The gutter cell of this text (made once)."""
        cell = self.cells.get(text)
        if cell is None:
            cell = self.cells[text] = Cell(text, "blue")
        return cell


def _marks(row: ResumeRow, line: int, entry: Entry | None) -> tuple[str, str]:
    """The window's mark in its lane at this line's row, and under it."""
    message = entry.message if entry is not None else None
    if entry is None or (message is None and entry.kind != NOTIFICATION):  # (event, issue)
        return "│", "│"
    if message is not None and is_request_of(message, row):
        return "┌", "│"
    if _is_response_of(entry, row):
        return "└", " "
    return ("├" if line == row.marker_line else "│"), "│"


def is_request_of(message: Message, row: ResumeRow) -> bool:
    """Whether the message is the request that opened this replay window."""
    return (
        message.kind is MessageKind.REQUEST
        and message.line == row.request_line
        and same_id(message.id, row.request_id)
    )


def _is_response_of(entry: Entry, row: ResumeRow) -> bool:
    """Whether the entry is the response that closed this replay window."""
    return (
        entry.kind == RESPONSE
        and entry.line == row.response_line
        and entry.request is not None
        and is_request_of(entry.request, row)
    )
