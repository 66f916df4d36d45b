"""Adding up a group's turns, tool calls and permission requests (docs/turns.md): the values of
each of `TURN_METRICS`, what each left out and why, tool calls by kind, and the slowest.

A value is left out, never guessed: a turn that a replay of its session overlapped (its
updates may be history), a row whose times are estimates, a prompt the Agent refused before
any update (no turn ran), and a latency the recording lacks (an end, an output, the times)
each count under their reason (`LeftOut`), so that what a statistic is of can be said beside
it.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import fields
from typing import Generic, TypeVar

from acptrace.model.turns import PermissionRow, ToolCallRow, TurnEnd, TurnRow
from acptrace.report.stats import Distribution, describe
from acptrace.report.summaries import FileSummary, Metric, When
from acptrace.report.turn_summaries import (
    LEFT_OUT,
    NO_KIND,
    LeftOut,
    PermissionRef,
    ToolCallRef,
    TurnFigures,
    TurnRef,
)

SLOWEST_SHOWN = 10
"""Slowest turns, tool calls and permission waits kept per group (report.json lists them)."""

_Row = TypeVar("_Row", TurnRow, ToolCallRow, PermissionRow)
Judged = float | LeftOut
"""A row's value of a metric, or why it has none."""


def first_output(row: TurnRow) -> Judged:
    """Prompt -> first output of a turn, or why it has none (a finished turn with a duration and
    no first output showed no words; one without a duration has no times)."""
    if (judged := _counted(row, row.first_output_ms)) is not None:
        return judged
    if not row.end.finished:
        return LeftOut.UNFINISHED
    return LeftOut.NO_OUTPUT if row.duration_ms is not None else LeftOut.UNTIMED


def turn_duration(row: TurnRow) -> Judged:
    """Prompt -> end of a turn, or why it has none."""
    if (judged := _counted(row, row.duration_ms)) is not None:
        return judged
    return LeftOut.UNTIMED if row.end.finished else LeftOut.UNFINISHED


def _counted(row: TurnRow, value: float | None) -> Judged | None:
    """Why a turn is left out whatever its value (history, estimated times, a prompt refused
    before any update), else its value; None when it has none."""
    if row.during_replay:
        return LeftOut.DURING_REPLAY
    if row.approximate:
        return LeftOut.APPROXIMATE
    if row.end is TurnEnd.ERROR and not row.updates:
        return LeftOut.REJECTED
    return value


def tool_call_duration(row: ToolCallRow) -> Judged:
    """First update -> final status of a tool call, or why it has none."""
    return _until_line(row.approximate, row.duration_ms, row.end_line)


def permission_wait(row: PermissionRow) -> Judged:
    """Request -> answer of a permission request, or why it has none."""
    return _until_line(row.approximate, row.wait_ms, row.response_line)


def _until_line(approximate: bool, value: float | None, end_line: int | None) -> Judged:
    """A latency up to a line of the recording, or why it has none: no such line (unfinished),
    or the line without times."""
    if approximate:
        return LeftOut.APPROXIMATE
    if value is not None:
        return value
    return LeftOut.UNFINISHED if end_line is None else LeftOut.UNTIMED


_Placed = tuple[When, str, _Row]
"""A row with where its connection stands in time and its path (`FileSummary.where`)."""


class _Measured(Generic[_Row]):
    """One metric over a group's rows: the values, the rows left out by reason, and the timed
    rows slowest first."""

    def __init__(
        self, metric: Metric, rows: Sequence[_Placed[_Row]], judge: Callable[[_Row], Judged]
    ) -> None:
        self.left_out = dict.fromkeys(LEFT_OUT[metric], 0)
        timed: list[tuple[float, When, str, _Row]] = []
        for when, where, row in rows:
            value = judge(row)
            if isinstance(value, LeftOut):
                self.left_out[value] += 1
            else:
                timed.append((value, when, where, row))
        self.values = tuple(value for value, *_ in timed)
        timed.sort(key=lambda item: (-item[0], item[1], _line(item[3])))
        self.slowest: list[tuple[str, _Row]] = [
            (where, row) for _, _, where, row in timed[:SLOWEST_SHOWN]
        ]
        self.timed: list[tuple[float, _Row]] = [(value, row) for value, _, _, row in timed]


def add_up_turns(
    summaries: Sequence[FileSummary],
) -> tuple[dict[Metric, tuple[float, ...]], TurnFigures]:
    """The values of each of `TURN_METRICS` over the group's files, and the rest of what the
    report says of their turns, tool calls and permission requests."""
    placed = [(s.when(index), s.where, s) for index, s in enumerate(summaries)]
    turns = [(when, where, row) for when, where, s in placed for row in s.turns]
    calls = [(when, where, row) for when, where, s in placed for row in s.tool_calls]
    asked = [(when, where, row) for when, where, s in placed for row in s.permissions]
    output = _Measured(Metric.FIRST_OUTPUT, turns, first_output)
    duration = _Measured(Metric.TURN_DURATION, turns, turn_duration)
    tools = _Measured(Metric.TOOL_CALL_DURATION, calls, tool_call_duration)
    waits = _Measured(Metric.PERMISSION_WAIT, asked, permission_wait)
    measured: dict[Metric, _Measured[TurnRow] | _Measured[ToolCallRow] | _Measured[PermissionRow]]
    measured = {
        Metric.FIRST_OUTPUT: output,
        Metric.TURN_DURATION: duration,
        Metric.TOOL_CALL_DURATION: tools,
        Metric.PERMISSION_WAIT: waits,
    }
    figures = TurnFigures(
        turns=len(turns),
        tool_calls=len(calls),
        permission_requests=len(asked),
        left_out={metric: m.left_out for metric, m in measured.items()},
        kinds=_kinds([row for _, _, row in calls], tools),
        slowest_first_output=tuple(_listed(TurnRef, *placed) for placed in output.slowest),
        longest_turns=tuple(_listed(TurnRef, *placed) for placed in duration.slowest),
        slowest_tool_calls=tuple(_listed(ToolCallRef, *placed) for placed in tools.slowest),
        longest_permission_waits=tuple(_listed(PermissionRef, *placed) for placed in waits.slowest),
    )
    return {metric: m.values for metric, m in measured.items()}, figures


def _kinds(calls: Sequence[ToolCallRow], tools: _Measured[ToolCallRow]) -> dict[str, Distribution]:
    """Tool-call durations by kind: every kind seen, those with most timed calls first."""
    values: dict[str, list[float]] = defaultdict(list)
    for value, row in tools.timed:
        values[row.kind or NO_KIND].append(value)
    seen = Counter(row.kind or NO_KIND for row in calls)
    order = sorted(seen, key=lambda kind: (-len(values[kind]), -seen[kind], kind))
    return {kind: describe(values[kind]) for kind in order}


def _line(row: TurnRow | ToolCallRow | PermissionRow) -> int:
    return row.first_line if isinstance(row, ToolCallRow) else row.request_line


_RefType = TypeVar("_RefType", TurnRef, ToolCallRef, PermissionRef)


def _listed(
    kind: type[_RefType], where: str, row: TurnRow | ToolCallRow | PermissionRow
) -> _RefType:
    """A row listed among the slowest, pointed at by `where` and its line: every other field
    of the reference is the row's of that name (a listed row is neither history nor
    estimated, so its latencies are as measured)."""
    same = {f.name: getattr(row, f.name) for f in fields(kind) if f.name not in ("path", "line")}
    return kind(path=where, line=_line(row), **same)
