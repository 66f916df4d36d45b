"""The turn sections of report.md: an overview of the turn latencies per group after the
replays', and in each group's folded details its table of turn latencies (with what each did
not count and why) and the slowest turns, tool calls and permission waits (docs/turns.md).
Nothing is written for groups without turns."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from acptrace.report.markdown_parts import escape, marked, row, stat_cell
from acptrace.report.numbers import ms_text
from acptrace.report.stats import STATS
from acptrace.report.summaries import Group, Metric
from acptrace.report.turn_numbers import turn_groups, turn_lines, turn_notes
from acptrace.report.turn_summaries import PermissionRef, ToolCallRef, TurnRef

SLOWEST_SHOWN = 5
"""Slowest turns, tool calls and permission waits listed per group."""
OVERVIEW_STATS = ("p50", "p90", "p99")
"""The percentiles the overview shows of the first output and the turn duration."""
CHARTED = (Metric.FIRST_OUTPUT, Metric.TURN_DURATION)
"""The turn latencies the overview shows in full."""


def turn_overview(groups: Sequence[Group]) -> Iterator[str]:
    """The turn latencies of every group with turns (nothing when none has)."""
    shown = turn_groups(groups)
    if not shown:
        return
    yield "### Turns, tool calls and permission requests"
    yield ""
    head = ["group", "turns"]
    head += [f"{m.label} {s}" for m in CHARTED for s in OVERVIEW_STATS]
    head += ["tool calls", "tool call p90", "permission requests", "wait p90"]
    yield row(head)
    yield "|---|" + "---:|" * (len(head) - 1)
    for group in shown:
        figures = group.turns
        yield row(
            [
                escape(group.name),
                str(figures.turns),
                *(stat_cell(m, group.metrics[m], s) for m in CHARTED for s in OVERVIEW_STATS),
                str(figures.tool_calls),
                stat_cell(
                    Metric.TOOL_CALL_DURATION, group.metrics[Metric.TOOL_CALL_DURATION], "p90"
                ),
                str(figures.permission_requests),
                stat_cell(Metric.PERMISSION_WAIT, group.metrics[Metric.PERMISSION_WAIT], "p90"),
            ]
        )
    yield ""
    yield (
        "first output: prompt → the first message or thought the user sees · turn duration: "
        "prompt → its end (the v1 response, the v2 idle) · each group's details have every "
        "statistic, what was not counted and the slowest."
    )
    yield from _notes(shown)


def _p90(group: Group, metric: Metric) -> str:
    return stat_cell(metric, group.metrics[metric], "p90")


def group_turns(group: Group) -> Iterator[str]:
    """A group's turn latencies and slowest rows, for its details (nothing without turns)."""
    if not group.turns.any:
        return
    lines = turn_lines(group)
    yield ""
    yield "| turn latency | " + " | ".join(STATS) + " | not counted |"
    yield "|---|" + "---:|" * len(STATS) + "---|"
    for line in lines:
        cells = [stat_cell(line.metric, line.distribution, stat) for stat in STATS]
        yield row([escape(line.label), *cells, line.why_not_counted])
    yield from _notes([group])
    yield from _slowest(group)


def _notes(groups: Sequence[Group]) -> Iterator[str]:
    for note in turn_notes(groups):
        yield ""
        yield marked(note)


def _slowest(group: Group) -> Iterator[str]:
    figures = group.turns
    turns = [
        [ms_text(t.first_output_ms), ms_text(t.duration_ms), t.end.value, str(t.tool_calls)]
        for t in figures.slowest_first_output
    ]
    head = "| slowest first output | first output | duration | end | tool calls |"
    yield from _listing(head, "---:|---:|---|---:|", figures.slowest_first_output, turns)
    calls = [
        [*(escape(w or "—") for w in (c.kind, c.title, c.last_status)), ms_text(c.duration_ms)]
        for c in figures.slowest_tool_calls
    ]
    head = "| slowest tool call | kind | title | status | duration |"
    yield from _listing(head, "---|---|---|---:|", figures.slowest_tool_calls, calls)
    waits = [
        [escape(w.outcome or "—"), escape(w.option_kind or "—"), ms_text(w.wait_ms)]
        for w in figures.longest_permission_waits
    ]
    head = "| longest permission wait | outcome | option | wait |"
    yield from _listing(head, "---|---|---:|", figures.longest_permission_waits, waits)


Listed = TurnRef | ToolCallRef | PermissionRef
"""A row listed among the slowest of its kind."""


def _listing(
    head: str, align: str, refs: Sequence[Listed], cells: list[list[str]]
) -> Iterator[str]:
    """The first `SLOWEST_SHOWN` of a kind, each named by `file:line` (nothing without any)."""
    if not refs:
        return
    yield ""
    yield head
    yield f"|---|{align}"
    for ref, after in list(zip(refs, cells, strict=True))[:SLOWEST_SHOWN]:
        yield row([f"{escape(ref.path)}:{ref.line}", *after])
