"""Turns and tool calls as the timeline draws them: spans of lines, from the prompt (or a tool
call's first update) to the line that ended it, met in line order one at a time, and how many
gutter lanes they need, worked out in one sweep that holds only the spans open at once."""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Iterator

from acptrace.model.json_id import JsonId
from acptrace.model.turns import ToolCallRow, TurnEnd, TurnRow

TOOL_LANES = 3
"""The most lanes tool calls get: a tool call that finds them all taken (many at once, or
many never finished in a turn the recording does not end) has none, and its note still says
everything."""
OPEN = float("inf")
"""The end of a span the recording does not end: it runs to the last row."""


class Span:
    """A turn or a tool call in the gutter: its lines, and its lane once it is open."""

    __slots__ = ("end", "lane", "output", "row", "start", "tool")

    def __init__(self, row: TurnRow | ToolCallRow) -> None:
        self.row = row
        self.tool = isinstance(row, ToolCallRow)
        if isinstance(row, ToolCallRow):
            self.start, self.output = row.first_line, None
        else:
            self.start, self.output = row.request_line, row.first_output_line
        self.end: float = OPEN if row.end_line is None else row.end_line
        """The line that ended it (`OPEN`: none did), or the last line of its lane (a tool call
        never finished: its turn's end, `_within_turns`)."""
        self.lane = -1
        """Its lane among the turns' or the tool calls' (-1: none, or not open yet)."""

    @property
    def ends_at_response(self) -> bool:
        """A turn ended by its prompt's response (v1, or an error), not by an update."""
        return isinstance(self.row, TurnRow) and self.row.end in (TurnEnd.RESPONSE, TurnEnd.ERROR)


Shown = Callable[[str], bool]
"""Whether the view shows the spans of this session."""


def spans_in_order(
    turns: Iterable[TurnRow], tool_calls: Iterable[ToolCallRow], shown: Shown | None
) -> Iterator[Span]:
    """The spans of the rows (each in line order, as the analysis holds them) by the line they
    start at, a turn before a tool call of the same line; only those of sessions `shown`."""
    made = heapq.merge(
        map(Span, turns), map(Span, tool_calls), key=lambda span: (span.start, span.tool)
    )
    return _within_turns(made if shown is None else filter(_shown_by(shown), made))


def _shown_by(shown: Shown) -> Callable[[Span], bool]:
    return lambda span: shown(span.row.session_id)


def _within_turns(spans: Iterator[Span]) -> Iterator[Span]:
    """The spans, a tool call that never reached a final status drawn to the end of its turn
    when the turn ended (not to the last row: its lane is free again for the tool calls of
    the turns after)."""
    ends: dict[tuple[str, type, JsonId], float] = {}
    for span in spans:
        row = span.row
        if isinstance(row, TurnRow):
            ends[(row.session_id, type(row.request_id), row.request_id)] = span.end
        elif row.end_line is None:
            turn = (row.session_id, type(row.turn_request_id), row.turn_request_id)
            span.end = max(ends.get(turn, OPEN), span.start)
        yield span


def lanes_needed(spans: Iterable[Span]) -> tuple[int, int]:
    """How many lanes the turns and the tool calls need (the most open at once, a span's lane
    free again after its last line; tool calls at most `TOOL_LANES`)."""
    ends: tuple[list[float], list[float]] = ([], [])
    most = [0, 0]
    for span in spans:
        busy = ends[span.tool]
        while busy and busy[0] < span.start:
            heapq.heappop(busy)
        heapq.heappush(busy, span.end)
        most[span.tool] = max(most[span.tool], len(busy))
    return most[0], min(most[1], TOOL_LANES)
