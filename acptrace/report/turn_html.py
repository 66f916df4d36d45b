"""The turn sections of report.html: an overview of the turn latencies per group with their
ECDFs, and in each group's section histograms of its first output and turn duration, its table
of turn latencies and the slowest turns, tool calls and permission waits (docs/turns.md).
Nothing is written for groups without turns."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from acptrace.render.text import printable
from acptrace.report import charts
from acptrace.report.groups import shared_edges
from acptrace.report.html_parts import Cell, escape, figure_html, group_cell, num, table_html
from acptrace.report.numbers import ms_text, stat_text
from acptrace.report.stats import STATS
from acptrace.report.summaries import FEW_REPLAYS, Group, Metric
from acptrace.report.turn_numbers import turn_groups, turn_lines, turn_notes
from acptrace.report.turn_summaries import PermissionRef, ToolCallRef, TurnRef

BINS = 24
"""Histogram bins, log-spaced and shared by every group so the charts compare."""
CHARTED = (Metric.FIRST_OUTPUT, Metric.TURN_DURATION)
"""The turn latencies charted: what the user waits for, and how long a turn takes."""
OVERVIEW_STATS = ("p50", "p90", "p99")
"""The percentiles the overview shows of each turn latency."""
SLOWEST_SHOWN = 10
"""Slowest turns, tool calls and permission waits listed per group."""

Edges = dict[Metric, tuple[float, ...] | None]
"""The histogram bins of each charted metric, shared by the groups charted."""


def turn_overview(groups: Sequence[Group], names: Sequence[str]) -> Iterator[str]:
    """The turn latencies of every group with turns, and their ECDFs (`names`: the groups'
    names as the page shows them)."""
    shown = [(index, g) for index, g in enumerate(groups) if g.turns.any]
    if not shown:
        return
    yield '<section id="turns"><h2>Turns, tool calls and permission requests</h2>'
    yield (
        '<p class="muted">Per group: p50, p90 and p99 of the first output (prompt to the first '
        "message or thought the user sees) and of the turn duration (prompt to its end: the "
        "v1 response, the v2 <code>idle</code>), with the p90 of tool-call durations and "
        "permission waits; the group sections have every statistic and the slowest of each. "
        "Turns a replay of their session overlapped, estimated times and latencies the "
        "recording lacks are not counted (each group says how many).</p>"
    )
    head: list[Cell] = ["group", num("turns")]
    head += [num(f"first output {s}") for s in OVERVIEW_STATS]
    head += [num(f"turn {s}") for s in OVERVIEW_STATS]
    head += [num("tool calls"), num("tool call p90"), num("permission requests")]
    head += [num("wait p90")]
    rows: list[list[Cell]] = []
    for index, group in shown:
        metrics, figures = group.metrics, group.turns
        rows.append(
            [
                group_cell(index, names[index]),
                num(figures.turns),
                *(num(stat_text(m, metrics[m], s)) for m in CHARTED for s in OVERVIEW_STATS),
                num(figures.tool_calls),
                num(_p90(group, Metric.TOOL_CALL_DURATION)),
                num(figures.permission_requests),
                num(_p90(group, Metric.PERMISSION_WAIT)),
            ]
        )
    yield table_html(head, rows)
    yield from _notes([g for _, g in shown])
    if charts.available():
        yield from _ecdfs(groups, names)
    yield "</section>"


def _p90(group: Group, metric: Metric) -> str:
    return stat_text(metric, group.metrics[metric], "p90")


def _ecdfs(groups: Sequence[Group], names: Sequence[str]) -> Iterator[str]:
    for metric in CHARTED:
        svg = charts.ecdf_chart(groups, metric, names, only=turn_groups(groups))
        if svg is not None:
            yield figure_html(
                svg,
                f"ECDF of {metric.label} per group",
                f"{metric.label}: share of turns within a time, per group (up to "
                f"{charts.OVERLAY_GROUPS} groups; turns not counted are left out).",
            )


def turn_chart_count(groups: Sequence[Group], charted: Sequence[Group]) -> int:
    """The charts `turn_overview` and `group_turns` draw (`charted`: the groups that get
    histograms), on the conditions they draw them on."""
    with_turns = turn_groups(groups)
    if not with_turns:
        return 0
    ecdfs = sum(1 for metric in CHARTED if charts.ecdf_groups(groups, metric, with_turns))
    edges = turn_edges(charted)
    histograms = sum(
        1
        for group in charted
        if group.turns.any
        for metric in CHARTED
        if edges[metric] is not None and group.samples[metric]
    )
    return ecdfs + histograms


def turn_edges(charted: Sequence[Group]) -> Edges:
    """Histogram bins of each charted turn latency, shared by these groups."""
    return {metric: shared_edges(charted, metric, BINS) for metric in CHARTED}


def group_turns(index: int, group: Group, name: str, edges: Edges | None) -> Iterator[str]:
    """A group's turn section (none without turns); `edges` None: no histograms."""
    if not group.turns.any:
        return
    yield "<h3>Turns, tool calls and permission requests</h3>"
    for metric in CHARTED:
        bins = None if edges is None else edges[metric]
        if bins is not None and group.samples[metric]:
            colour = charts.group_colour(index)
            yield figure_html(
                charts.histogram_chart(group, metric, bins, colour),
                f"histogram of {metric.label} for {printable(name)}",
                f"{metric.label}: histogram over log-spaced bins shared by every group.",
            )
    head: list[Cell] = ["measure", *(num(stat) for stat in STATS), "not counted"]
    rows: list[list[Cell]] = [
        [
            escape(line.label),
            *(num(stat_text(line.metric, line.distribution, s)) for s in STATS),
            escape(line.why_not_counted),
        ]
        for line in turn_lines(group)
    ]
    yield table_html(head, rows)
    yield from _notes([group])
    figures = group.turns
    yield from _listing("Slowest first output", _TURN_HEAD, _turns(figures.slowest_first_output))
    yield from _listing("Longest turns", _TURN_HEAD, _turns(figures.longest_turns))
    yield from _listing("Slowest tool calls", _CALL_HEAD, _calls(figures.slowest_tool_calls))
    yield from _listing(
        "Longest permission waits", _WAIT_HEAD, _waits(figures.longest_permission_waits)
    )


def _notes(groups: Sequence[Group]) -> Iterator[str]:
    for note in turn_notes(groups):
        yield f'<p class="muted">{escape(note)}</p>'


def _listing(title: str, head: Sequence[Cell], rows: Sequence[list[Cell]]) -> Iterator[str]:
    """A table of the slowest rows of a kind under its heading (nothing when there are none)."""
    if rows:
        yield f"<h4>{escape(title)}</h4>"
        yield table_html(head, rows[:SLOWEST_SHOWN])


def _place(path: str, line: int) -> str:
    return f'<span class="path">{escape(path)}:{line}</span>'


def _code(text: str | None) -> str:
    return f"<code>{escape(text or '—')}</code>"


_TURN_HEAD: list[Cell] = ["file:line", "session", num("first output"), num("duration"), "end"]
_TURN_HEAD += ["stop reason", num("tool calls")]
_CALL_HEAD: list[Cell] = ["file:line", "tool call", "kind", "title", "status", num("duration")]
_WAIT_HEAD: list[Cell] = ["file:line", "tool call", "outcome", "option", num("wait")]


def _turns(refs: Sequence[TurnRef]) -> list[list[Cell]]:
    return [
        [
            _place(ref.path, ref.line),
            _code(ref.session_id),
            num(ms_text(ref.first_output_ms)),
            num(ms_text(ref.duration_ms)),
            escape(ref.end),
            escape(ref.stop_reason or "—"),
            num(ref.tool_calls),
        ]
        for ref in refs
    ]


def _calls(refs: Sequence[ToolCallRef]) -> list[list[Cell]]:
    words = [[ref.kind, ref.title, ref.last_status] for ref in refs]
    return [
        [
            _place(ref.path, ref.line),
            _code(ref.tool_call_id),
            *(escape(word or "—") for word in said),
            num(ms_text(ref.duration_ms)),
        ]
        for ref, said in zip(refs, words, strict=True)
    ]


def _waits(refs: Sequence[PermissionRef]) -> list[list[Cell]]:
    return [
        [
            _place(ref.path, ref.line),
            _code(ref.tool_call_id),
            escape(ref.outcome or "—"),
            escape(ref.option_kind or "—"),
            num(ms_text(ref.wait_ms)),
        ]
        for ref in refs
    ]


METHOD = (
    "Turn latencies (docs/turns.md) come from every turn, tool call and permission request "
    "but the turns a replay of their session overlapped (their updates may be history), rows "
    "whose times are estimates, and latencies the recording lacks (an unfinished turn, a tool "
    "call never finished, a permission request never answered, a turn without output, a "
    "transcript without times): each group counts those it left out and why. Permission "
    "waits are per request. "
    f"Their percentiles of fewer than {FEW_REPLAYS} values are marked too."
)
"""What the page's method note says of the turn latencies."""
