"""Turns, tool calls and permission waits as events of the Chrome Trace Event export
(`acptrace.export.trace_event`): a slice for each, on its session's track, from the line that
started it to the line that ended it (to the end of the transcript when the recording lacks
that line), and an instant where a turn's first output came.

They nest as the work did: a turn holds its prompt's request (v2: the prompt is acknowledged at
once, the turn runs on to `idle`) and the tool calls of the turn, a tool call the permission
request about it and its wait. Their arguments are the rows of `analyze --format json`
(docs/turns.md): the export draws the analysis' measures, it does not make its own.

The export knows the time of a line only once the transcript is read: it asks for the lines
(`lines_asked`) and is given their moments back in the same order (`turn_events`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import chain
from typing import Any, NamedTuple

import msgspec

from acptrace.model.domain import Analysis
from acptrace.model.turns import PermissionRow, ToolCallRow, TurnRow

Row = TurnRow | ToolCallRow | PermissionRow


class Placed(NamedTuple):
    """An event of a turn, a tool call or a permission wait, between two moments."""

    session_id: str
    start: int
    """The moment it starts at (`_Timeline.moment`)."""
    end: int
    """The moment it ends at (an instant: its start)."""
    name: str
    cat: str
    args: dict[str, Any]
    instant: bool = False


def lines_asked(analysis: Analysis) -> Iterator[int]:
    """The lines whose moments `turn_events` takes, in the order it takes them."""
    for row in _rows(analysis):
        yield from (line for line in _lines(row) if line is not None)


def turn_events(
    analysis: Analysis, path: str, moments: Iterator[int], last: int
) -> Iterator[Placed]:
    """The events of the analysis' turns, tool calls and permission waits, given the moments of
    `lines_asked` in its order; `last`: the moment of the transcript's last record."""
    for row in _rows(analysis):
        _, ended, output = _lines(row)
        start = next(moments)
        end = next(moments) if ended is not None else last
        args = {"file": path, **msgspec.structs.asdict(row)}
        yield Placed(row.session_id, start, end, _name(row), _CATEGORY[type(row)], args)
        if output is not None:
            assert isinstance(row, TurnRow)
            at = next(moments)
            told = {"file": path, "line": output, "request_line": row.request_line}
            told["first_output_ms"] = row.first_output_ms
            yield Placed(row.session_id, at, at, "first output", "turn", told, instant=True)


_CATEGORY: dict[type[Row], str] = {
    TurnRow: "turn",
    ToolCallRow: "tool_call",
    PermissionRow: "permission",
}
"""The `cat` of each kind of row's slice (what a query in Perfetto picks them by)."""


def _rows(analysis: Analysis) -> Iterable[Row]:
    return chain(analysis.turns, analysis.tool_calls, analysis.permissions)


def _lines(row: Row) -> tuple[int, int | None, int | None]:
    """The line that started the row's work, the one that ended it (None: the recording lacks
    it), and a turn's first output's."""
    if isinstance(row, TurnRow):
        return row.request_line, row.end_line, row.first_output_line
    if isinstance(row, ToolCallRow):
        return row.first_line, row.end_line, None
    return row.request_line, row.response_line, None


def _name(row: Row) -> str:
    """`turn`, `tool call KIND` (by kind: a flame graph sums each kind), `permission wait`."""
    if isinstance(row, TurnRow):
        return "turn"
    if isinstance(row, ToolCallRow):
        return "tool call" if row.kind is None else f"tool call {row.kind}"
    return "permission wait"
