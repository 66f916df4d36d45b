"""The turn sections of the terminal report: the latencies of turns, tool calls and permission
requests per group, bar charts of the first output and the turn duration, and the slowest of
each (docs/turns.md). Nothing is printed for groups without turns."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

from rich.console import Group as Lines
from rich.console import RenderableType
from rich.text import Text

from acptrace.render.fitted import Column, FittedTable
from acptrace.render.text import printable
from acptrace.report.numbers import ms_text, stat_text
from acptrace.report.stats import STATS
from acptrace.report.summaries import Group, Metric
from acptrace.report.terminal_parts import (
    RIGHT,
    bar_charts,
    fitted,
    group_column,
    group_name,
    place,
    place_column,
    with_legend,
)
from acptrace.report.turn_numbers import (
    NOT_COUNTED_NOTE,
    TURN_FEW_LEGEND,
    any_not_counted,
    few_in_turns,
    turn_groups,
    turn_lines,
)
from acptrace.report.turn_summaries import PermissionRef, ToolCallRef, TurnFigures, TurnRef

SLOWEST_SHOWN = 3
"""Slowest turns, tool calls and permission waits listed per group."""
CHARTED = (Metric.FIRST_OUTPUT, Metric.TURN_DURATION)
"""The turn latencies that get a bar chart."""


def turn_sections(groups: Sequence[Group]) -> Iterator[RenderableType]:
    """The turn tables and charts of the groups that have turns (none when no group has)."""
    shown = turn_groups(groups)
    if not shown:
        return
    yield _latencies(shown)
    if any_not_counted(shown):
        yield _not_counted(shown)
    for metric in CHARTED:
        yield from bar_charts(shown, (metric,), _every_group_by(metric))
    if any(g.turns.slowest_first_output for g in shown):
        yield _slowest_turns(shown)
    if any(g.turns.slowest_tool_calls for g in shown):
        yield _slowest_tool_calls(shown)
    if any(g.turns.longest_permission_waits for g in shown):
        yield _longest_waits(shown)


def _latencies(groups: Sequence[Group]) -> RenderableType:
    drops = {"count": 4, "min": 2, "max": 3, "mean": 1, "p99": 5, "p90": 6, "p50": 7}
    columns = [group_column(), Column("measure")]
    columns += [Column(stat, RIGHT, drop=drops[stat]) for stat in STATS]
    table = fitted(
        "Turns, tool calls and permission requests", columns, minor=3, legend="turn-latencies"
    )
    for group in groups:
        for index, line in enumerate(turn_lines(group)):
            name = group_name(group.name) if index == 0 else Text("")
            label = line.metric.label if line.kind is None else f"  {printable(line.kind)}"
            table.add_row(
                name,
                label,
                *(stat_text(line.metric, line.distribution, stat) for stat in STATS),
            )
    return with_legend(table, few_in_turns(groups), TURN_FEW_LEGEND)


def _not_counted(groups: Sequence[Group]) -> RenderableType:
    """Per group and measure, the rows without a value: a line per reason (a sentence per
    measure would not fit 60 columns)."""
    columns = [group_column(), Column("measure"), Column("count", RIGHT), Column("why")]
    table = fitted("Not counted in the turn latencies", columns, minor=0, legend="turn-not-counted")
    for group in groups:
        first = True
        for metric, counts in group.turns.left_out.items():
            reasons = [(reason, n) for reason, n in counts.items() if n]
            for index, (reason, count) in enumerate(reasons):
                table.add_row(
                    group_name(group.name) if first else Text(""),
                    metric.label if index == 0 else "",
                    str(count),
                    reason.words,
                )
                first = False
    return Lines(table, Text(NOT_COUNTED_NOTE, style="dim"))


def _every_group_by(metric: Metric) -> Callable[[Group], Metric]:
    """Every group charted by this metric (each metric's chart has the groups with most of
    it)."""
    return lambda _: metric


def _slowest_turns(groups: Sequence[Group]) -> FittedTable:
    columns = [
        Column("first output", RIGHT),
        Column("duration", RIGHT, drop=3),
        Column("end", drop=1),
        Column("tools", RIGHT, drop=2),
    ]
    title = f"Slowest turns (top {SLOWEST_SHOWN} per group, by first output)"
    return _listing(
        (title, "slowest-turns"), columns, groups, lambda f: f.slowest_first_output, _turn
    )


def _slowest_tool_calls(groups: Sequence[Group]) -> FittedTable:
    columns = [
        Column("kind", drop=3),
        Column("status", drop=2),
        Column("duration", RIGHT),
        Column("title", drop=1),
    ]
    title = f"Slowest tool calls (top {SLOWEST_SHOWN} per group)"
    return _listing(
        (title, "slowest-tool-calls"), columns, groups, lambda f: f.slowest_tool_calls, _call
    )


def _longest_waits(groups: Sequence[Group]) -> FittedTable:
    columns = [Column("outcome", drop=2), Column("option", drop=1), Column("wait", RIGHT)]
    title = f"Longest permission waits (top {SLOWEST_SHOWN} per group)"
    return _listing(
        (title, "longest-waits"), columns, groups, lambda f: f.longest_permission_waits, _wait
    )


_Ref = TypeVar("_Ref", TurnRef, ToolCallRef, PermissionRef)
Cells = list[Text | str]
"""A listed row's cells after its group and its `file:line`."""


def _listing(
    titled: tuple[str, str],
    columns: Sequence[Column],
    groups: Sequence[Group],
    listed: Callable[[TurnFigures], Sequence[_Ref]],
    cells: Callable[[_Ref], Cells],
) -> FittedTable:
    """A table (its title and legend `titled`) of the first `SLOWEST_SHOWN` rows `listed` of
    each group, named by group and place (the places are shortened before any column goes)."""
    title, legend = titled
    # (the least of the columns, `drop=1`, goes before the names are cut: they are cut one way
    # in every table, so the tightest table cuts them for all)
    table = fitted(title, [group_column(), place_column(), *columns], minor=1, legend=legend)
    for group in groups:
        for index, ref in enumerate(listed(group.turns)[:SLOWEST_SHOWN]):
            name = group_name(group.name) if index == 0 else Text("")
            table.add_row(name, place(ref.path, ref.line), *cells(ref))
    return table


def _turn(turn: TurnRef) -> Cells:
    times = [ms_text(turn.first_output_ms), ms_text(turn.duration_ms)]
    return [*times, turn.end.value, str(turn.tool_calls)]


def _call(call: ToolCallRef) -> Cells:
    return [
        Text(printable(call.kind or "—")),
        Text(printable(call.last_status or "—")),
        ms_text(call.duration_ms),
        Text(_short(printable(call.title or ""))),
    ]


def _wait(wait: PermissionRef) -> Cells:
    words = [Text(printable(wait.outcome or "—")), Text(printable(wait.option_kind or "—"))]
    return [*words, ms_text(wait.wait_ms)]


TITLE_CHARS = 40
"""Longer tool-call titles are shortened (`…`): a title may be a whole command line."""


def _short(text: str) -> str:
    return text if len(text) <= TITLE_CHARS else text[: TITLE_CHARS - 1] + "…"
