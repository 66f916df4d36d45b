"""The turns' and tool calls' lanes of the gutter, row by row: a turn from its prompt (┏)
through its first output (┣) to its end (┗), ┃ in between; a tool call from its first update
(╭) to its final status (╰), │ in between (─ when one row is both). Spans come in line order
and only those open are held."""

from __future__ import annotations

import heapq
from collections.abc import Iterator

from acptrace.model.turns import TurnRow
from acptrace.render.ci import same_id
from acptrace.render.entries import Entry
from acptrace.render.timeline.kinds import NOTIFICATION, REQUEST, RESPONSE
from acptrace.render.timeline.spans import OPEN, Span

START, OUTPUT, END = 1, 2, 4
"""What happens to a span at one of its lines (`_Open.stops`; bits: one row may be both where
a tool call starts and where it ends)."""
_MARKS = {
    False: {START: "┏", OUTPUT: "┣", END: "┗", START | END: "━"},
    True: {START: "╭", END: "╰", START | END: "─"},
}
"""The mark of a turn (False) or a tool call (True) at a row where it starts, shows its first
output or ends (`START | END`: both at once)."""
THROUGH = {False: "┃", True: "│"}
"""A turn's or a tool call's lane at a row in between."""


class _Open:
    """A span whose first line has been reached, and its lines still to come."""

    __slots__ = ("done", "span", "stops")

    def __init__(self, span: Span) -> None:
        self.span = span
        stops: list[tuple[float, int]] = [(span.start, START)]
        if span.row.end_line is not None:  # (else its lane just stops: `_within_turns`)
            stops.append((span.end, END))
        if span.output is not None:
            stops.append((span.output, OUTPUT))
        self.stops = sorted(stop for stop in stops if stop[0] != OPEN)
        """(line, what) still to be drawn, in line order."""
        self.done = False
        """Its end has been drawn."""

    @property
    def next_line(self) -> float:
        """The next line where it has something to draw, or after which it is over."""
        return self.stops[0][0] if self.stops else self.span.end + 1

    def marks_at(self, line: int, entry: Entry | None) -> int:
        """What it draws at this row (`START`, `OUTPUT`, `END`, or'ed; 0: nothing): the stops
        of its line that this entry is (a stop of a line no row showed is dropped)."""
        stops = self.stops
        while stops and stops[0][0] < line:
            del stops[0]
        drawn = 0
        while stops and stops[0][0] == line and self._is(stops[0][1], entry):
            drawn |= stops.pop(0)[1]
        if drawn & END:
            self.done = True
        return drawn

    def _is(self, what: int, entry: Entry | None) -> bool:
        """Whether the entry is where the span starts, shows its first output or ends."""
        if entry is None:  # (a finding's own row)
            return False
        span, kind, row = self.span, entry.kind, self.span.row
        if what == START:
            if isinstance(row, TurnRow):  # (its prompt)
                asked = entry.message
                return kind == REQUEST and asked is not None and same_id(asked.id, row.request_id)
            return kind == NOTIFICATION or kind == REQUEST  # (its first update, or the
            # permission request that created it)
        if what == END and span.ends_at_response:
            request = entry.request
            return kind == RESPONSE and request is not None and request.line == span.start
        return kind == NOTIFICATION


class SpanGutter:
    """The turns' lanes, then the tool calls', of each row, asked for in line order; what was
    marked at the last row asked (`marked`: its notes are said under it)."""

    def __init__(self, spans: Iterator[Span], turn_lanes: int, tool_lanes: int) -> None:
        self.spans = spans
        self.coming = next(spans, None)
        self.turn_lanes, self.width = turn_lanes, turn_lanes + tool_lanes
        self.free = (list(range(turn_lanes)), list(range(tool_lanes)))
        """The lanes free for a turn and for a tool call (heaps)."""
        self.open: list[_Open] = []
        blank = " " * self.width
        self.through = (blank, blank)
        """The gutter of a row where no span starts, marks or ends: each open span's lane."""
        self.next_line: float = OPEN if self.coming is None else self.coming.start
        """The first line where a span may start, draw a mark or end."""
        self.marked: list[tuple[Span, int]] = []
        """The spans marked at the last row asked for, and their marks (empty most often)."""

    def at(self, line: int, entry: Entry | None) -> tuple[str, str]:
        """The lanes at a row of this line, and under it."""
        if line < self.next_line:
            return self.through
        self._move(line)
        cells, under = list(self.through[0]), list(self.through[0])
        marked: list[tuple[Span, int]] = []
        for opened in self.open:
            drawn = opened.marks_at(line, entry)
            span = opened.span
            if not drawn:
                continue
            marked.append((span, drawn))
            if span.lane >= 0:
                at = span.lane + (self.turn_lanes if span.tool else 0)
                cells[at] = _MARKS[span.tool].get(drawn, _MARKS[span.tool][START])
                under[at] = " " if opened.done else THROUGH[span.tool]
        self.marked = marked
        if any(opened.done for opened in self.open):
            self.through = self._through()
        self.next_line = min((o.next_line for o in self.open), default=OPEN)
        if self.coming is not None:
            self.next_line = min(self.next_line, self.coming.start)
        return "".join(cells), "".join(under)

    def _move(self, line: int) -> None:
        """Close the spans over before this line, open those that start by it."""
        kept = []
        for opened in self.open:
            if opened.span.end < line:
                if opened.span.lane >= 0:
                    heapq.heappush(self.free[opened.span.tool], opened.span.lane)
            else:
                kept.append(opened)
        self.open = kept
        while self.coming is not None and self.coming.start <= line:
            span, self.coming = self.coming, next(self.spans, None)
            if span.end < line:
                continue  # (over before any row of it was shown)
            free = self.free[span.tool]
            span.lane = heapq.heappop(free) if free else -1
            self.open.append(_Open(span))
        self.through = self._through()

    def _through(self) -> tuple[str, str]:
        """Each open span's lane (blank once its end is drawn), at a row and under it."""
        cells = [" "] * self.width
        for opened in self.open:
            span = opened.span
            if span.lane >= 0 and not opened.done:
                cells[span.lane + (self.turn_lanes if span.tool else 0)] = THROUGH[span.tool]
        text = "".join(cells)
        return text, text
