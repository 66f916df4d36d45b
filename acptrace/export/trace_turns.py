"""Turns, tool calls and permission waits as events of the Chrome Trace Event export
(`acptrace.export.trace_event`): a slice for each, on its session's track, from the line that
started it to the line that ended it (to the end of the transcript when the recording lacks
that line; a tool call never finished: to its turn's end), and an instant where a turn's first
output came.

They nest as the work did: a turn holds its prompt's request (v2: the prompt is acknowledged at
once, the turn runs on to `idle`) and the tool calls of the turn, a tool call the permission
request about it and its wait. Their arguments are the rows of `analyze --format json`
(docs/turns.md): the export draws the analysis' measures, it does not make its own.

The export knows the time of a line only once the transcript is read: it asks for the lines
(`lines_asked`) and is given their moments back in the same order (`turn_events`).
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

import msgspec

from acptrace.model.domain import Analysis
from acptrace.model.json_id import JsonId
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
    for _, *lines in _placed(analysis):
        yield from (line for line in lines if line is not None)


def turn_events(
    analysis: Analysis, path: str, moments: Iterator[int], last: int
) -> Iterator[Placed]:
    """The events of the analysis' turns, tool calls and permission waits, given the moments of
    `lines_asked` in its order; `last`: the moment of the transcript's last record."""
    for row, _, ended, output in _placed(analysis):
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


def _placed(analysis: Analysis) -> Iterator[tuple[Row, int, int | None, int | None]]:
    """Each row with the line that started its work, the line that ended it (None: the
    recording lacks it), and a turn's first output's. A tool call that never reached a final
    status ends with its turn, when the turn ended: it nests in the turn, and does not run on
    to the end of the transcript (its `end_line` and `duration_ms` still say it never ended)."""
    turn_ends: dict[tuple[str, type, JsonId], int | None] = {}
    turns: Iterable[TurnRow | ToolCallRow] = analysis.turns
    tool_calls: Iterable[TurnRow | ToolCallRow] = analysis.tool_calls
    for row in heapq.merge(turns, tool_calls, key=_first_line):  # (in line order)
        if isinstance(row, TurnRow):
            turn_ends[(row.session_id, type(row.request_id), row.request_id)] = row.end_line
            yield row, row.request_line, row.end_line, row.first_output_line
        else:
            turn = (row.session_id, type(row.turn_request_id), row.turn_request_id)
            ended = row.end_line if row.end_line is not None else turn_ends.get(turn)
            yield row, row.first_line, ended, None
    for permission in analysis.permissions:
        yield permission, permission.request_line, permission.response_line, None


def _first_line(row: TurnRow | ToolCallRow) -> int:
    return row.request_line if isinstance(row, TurnRow) else row.first_line


def _name(row: Row) -> str:
    """`turn`, `tool call KIND` (by kind: a flame graph sums each kind), `permission wait`."""
    if isinstance(row, TurnRow):
        return "turn"
    if isinstance(row, ToolCallRow):
        return "tool call" if row.kind is None else f"tool call {row.kind}"
    return "permission wait"
