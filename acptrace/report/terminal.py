"""The report on a terminal: tables that fit the width without cutting a number, a small bar
chart of the headline latency per group, the turn sections (`turn_terminal`), the comparison.

Every table is a `FittedTable`: group names and paths are shown whole when there is room, else
shortened (names in the middle, paths by their leading folders, all still told apart); when the
terminal is narrower still the least read columns go, and a line says which. A number is never
wrapped or cut.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from rich.console import Group as Lines
from rich.console import RenderableType
from rich.text import Text

from acptrace.model.domain import Outcome, Severity
from acptrace.render.fitted import Column, FittedTable
from acptrace.render.idle_view import idle_table
from acptrace.render.summary import OUTCOME_STYLE, SEVERITY_STYLE
from acptrace.render.text import cut_names, printable
from acptrace.report.baseline import Comparison
from acptrace.report.numbers import (
    SHORT_LABELS,
    UNMEASURED_NOTE,
    change_parts,
    common_headline,
    complete_text,
    count_text,
    gate_failures,
    measure_label,
    measure_text,
    measured,
    ms_text,
    shows_few,
    stat_text,
    verdict_text,
)
from acptrace.report.relative import BOOK, NameBook, group_places, relative_report
from acptrace.report.stats import STATS
from acptrace.report.summaries import CUT, REPLAY_METRICS, Group, Report, ResumeRef
from acptrace.report.terminal_parts import (
    NAME_CHARS,
    RIGHT,
    bar_charts,
    fitted,
    group_column,
    group_name,
    place,
    place_column,
    with_legend,
)
from acptrace.report.turn_terminal import turn_sections

SLOWEST_SHOWN = 3
"""Slowest replays listed per group."""
CUT_SHOWN = 5
"""Cut replays listed per group."""


def terminal_report(
    report: Report, comparison: Comparison | None = None
) -> tuple[RenderableType, ...]:
    """Every table, in order (print them with a blank line between)."""
    return tuple(_sections(report, comparison))


def _sections(report: Report, comparison: Comparison | None) -> Iterator[RenderableType]:
    report, folder = relative_report(report)
    places = [path for group in report.groups for path in group_places(group)]
    BOOK.set(NameBook([group.name for group in report.groups], places))
    yield _header(report, folder)
    if not report.groups:
        return
    yield with_legend(_groups(report.groups), _few_in_overview(report.groups))
    if any(g.loads for g in report.groups):
        yield _loads(report.groups)
    yield from bar_charts(report.groups, REPLAY_METRICS, lambda group: group.headline)
    latencies = with_legend(_latencies(report.groups), _few_in_latencies(report.groups))
    if any(len(measured(g)) < len(REPLAY_METRICS) for g in report.groups):
        latencies = Lines(latencies, Text(UNMEASURED_NOTE, style="dim"))
    yield latencies
    if any(v.replays for g in report.groups for v in g.idle_timers):
        yield _idle_timers(report.groups)
    if any(g.findings for g in report.groups):
        yield _findings(report.groups)
    if any(g.slowest for g in report.groups):
        yield _slowest(report.groups)
    if any(g.cut for g in report.groups):
        yield _cut(report.groups)
    yield from turn_sections(report.groups)
    if comparison is not None:
        yield Lines(_comparison(comparison), _verdict(comparison))


def _header(report: Report, folder: str) -> Text:
    """What was read and how it is grouped; the folder every path is relative to."""
    text = Text(f"{count_text(report.files, 'transcript')} · ")
    text.append(f"{count_text(len(report.groups), 'group')} by {report.group_by.value}")
    if report.errors:
        text.append(f" · {count_text(len(report.errors), 'file')} skipped", style="red")
    if folder:
        text.append(f"\npaths relative to {printable(folder)}")
    return text


def _idle_timers(groups: Sequence[Group]) -> FittedTable:
    """The idle-timer table, its group names cut as in the report's other tables."""
    column = group_column()
    assert column.shorten is not None
    table = idle_table(
        [(printable(g.name), g.idle_timers) for g in groups], column.shorten, column.least
    )
    book = BOOK.get()
    return table if book is None else book.register(table)


def _few_in_overview(groups: Sequence[Group]) -> bool:
    return any(shows_few(g.metrics[g.headline]) for g in groups)


def _few_in_latencies(groups: Sequence[Group]) -> bool:
    return any(shows_few(g.metrics[m]) for g in groups for m in REPLAY_METRICS)


def _groups(groups: Sequence[Group]) -> FittedTable:
    """Resumes by outcome and the headline percentiles: the complete share is of the replays
    that owe a marker; the counts beside it add up to the replays (the legend says so)."""
    loads = any(g.loads for g in groups)
    common = common_headline(groups)
    columns = [  # (at 80 columns: resumes, complete, cut, errors, p50, p90; the loads below)
        group_column(),
        Column("conn", RIGHT, drop=1),
        Column("resumes", RIGHT, drop=8),
        Column("complete", RIGHT, drop=13, idle_first=True),
        Column("unmarked", RIGHT, drop=5),
        Column("cut", RIGHT, drop=10),
        Column("refused", RIGHT, drop=4),
        Column("ambig", RIGHT, drop=3),
        *([Column("loaded", RIGHT, drop=6)] if loads else []),
        Column("errors", RIGHT, drop=9),
        Column("warn", RIGHT, drop=2),
        *([] if common else [Column("latency")]),
        *(Column(stat, RIGHT, drop=drop) for stat, drop in (("p50", 14), ("p90", 11), ("p99", 7))),
    ]
    named = f": {common.label}" if common else " of each group's latency"
    table = fitted(f"Resumes by group (p50, p90, p99{named})", columns, minor=7, legend="groups")
    for group in groups:
        counts = group.replay_outcomes
        cut = sum(counts[o] for o in CUT)
        table.add_row(
            group_name(group.name),
            str(group.connections),
            str(group.resumes),
            complete_text(group),
            _count(counts[Outcome.UNMARKED_SUCCESS], OUTCOME_STYLE[Outcome.UNMARKED_SUCCESS]),
            _count(cut, OUTCOME_STYLE[Outcome.TRUNCATED]),
            _count(counts[Outcome.REFUSED], OUTCOME_STYLE[Outcome.REFUSED]),
            _count(counts[Outcome.AMBIGUOUS], OUTCOME_STYLE[Outcome.AMBIGUOUS]),
            *([_count(group.loaded, OUTCOME_STYLE[Outcome.LOADED])] if loads else []),
            _count(group.severities[Severity.ERROR], SEVERITY_STYLE[Severity.ERROR]),
            _count(group.severities[Severity.WARNING], SEVERITY_STYLE[Severity.WARNING]),
            *([] if common else [SHORT_LABELS.get(group.headline, group.headline.label)]),
            *(
                stat_text(group.headline, group.metrics[group.headline], s)
                for s in PERCENTILE_STATS
            ),
        )
    return table


PERCENTILE_STATS = ("p50", "p90", "p99")
"""The percentiles the overview shows."""


def _loads(groups: Sequence[Group]) -> FittedTable:
    """The loads of each group that has any, by how they ended (`loaded`: answered with
    success): they owe no marker, so they are counted here rather than in a marker share."""
    shown = (Outcome.LOADED, Outcome.REFUSED, Outcome.TRUNCATED, Outcome.UNKNOWN)
    columns = [
        group_column(),
        Column("loads", RIGHT),
        *(
            Column(o.value, RIGHT, drop=drop)
            for o, drop in zip(shown, (None, 4, 2, 1), strict=True)
        ),
        Column("ambig", RIGHT, drop=3),
    ]
    table = fitted("Loads (session/load: no marker owed)", columns, minor=2, legend="loads")
    for group in groups:
        if not group.loads:
            continue
        counts = group.load_outcomes
        table.add_row(
            group_name(group.name),
            str(group.loads),
            *(_count(counts[o], OUTCOME_STYLE[o]) for o in (*shown, Outcome.AMBIGUOUS)),
        )
    return table


def _count(count: int, style: str) -> Text:
    return Text(str(count), style=style if count else "dim")


def _latencies(groups: Sequence[Group]) -> FittedTable:
    drops = {"count": 4, "min": 2, "max": 3, "mean": 1, "p99": 5, "p90": 6, "p50": 7}
    columns = [group_column(), Column("metric")]
    columns += [Column(stat, RIGHT, drop=drops.get(stat)) for stat in STATS]
    table = fitted("Latency and throughput", columns, minor=4, legend="latencies")
    for group in groups:
        for index, metric in enumerate(measured(group)):
            distribution = group.metrics[metric]
            name = group_name(group.name) if index == 0 else Text("")
            table.add_row(
                name, metric.label, *(stat_text(metric, distribution, stat) for stat in STATS)
            )
    return table


def _findings(groups: Sequence[Group]) -> FittedTable:
    columns = [
        group_column(),
        Column("rule"),
        Column("level", drop=2),
        Column("count", RIGHT, drop=3),
        place_column("first at", drop=1),
    ]
    table = fitted("Findings by rule", columns, minor=2, legend="findings")
    for group in groups:
        for index, count in enumerate(group.findings):
            path, line = count.first[0]
            table.add_row(
                group_name(group.name) if index == 0 else Text(""),
                Text(printable(count.rule)),
                Text(count.severity.value, style=SEVERITY_STYLE[count.severity]),
                str(count.count),
                place(path, line),
            )
    return table


def _slowest(groups: Sequence[Group]) -> FittedTable:
    columns = [
        group_column(),
        place_column(),
        Column("outcome", drop=1),
        Column("replayed", RIGHT, drop=2),
        Column("marker→resp", RIGHT, drop=4, idle_first=True),
        Column("total", RIGHT, drop=3),
    ]
    common = common_headline(groups)
    by = common.label if common else "each group's headline latency"
    title = f"Slowest replays (top {SLOWEST_SHOWN} per group, by {by})"
    table = fitted(
        title, columns, minor=0, legend="slowest"
    )  # (paths shortened before a column goes)
    for group in groups:
        for index, ref in enumerate(group.slowest[:SLOWEST_SHOWN]):
            table.add_row(
                group_name(group.name) if index == 0 else Text(""),
                place(ref.path, ref.line),
                _outcome(ref),
                str(ref.replayed_updates),
                ms_text(ref.marker_to_response_ms),
                ms_text(ref.request_to_response_ms),
            )
    return table


def _outcome(ref: ResumeRef) -> Text:
    return Text(ref.outcome.value, style=OUTCOME_STYLE[ref.outcome])


CUT_TITLE = "Cut replays (truncated, complete_failed, unknown)"
"""The title of the table of cut replays (the other uncertified ones have counts of their own in
the overview)."""


def _cut(groups: Sequence[Group]) -> FittedTable:
    columns = [
        group_column(),
        place_column(),
        Column("outcome"),
        Column("end", drop=1),
        Column("replayed", RIGHT, drop=2),
        Column("total", RIGHT, drop=3),
    ]
    table = fitted(
        CUT_TITLE, columns, minor=0, legend="cut"
    )  # (paths shortened before a column goes)
    for group in groups:
        for index, ref in enumerate(group.cut[:CUT_SHOWN]):
            end = ref.end.value if ref.error_code is None else f"{ref.end.value} {ref.error_code}"
            table.add_row(
                group_name(group.name) if index == 0 else Text(""),
                place(ref.path, ref.line),
                _outcome(ref),
                end,
                str(ref.replayed_updates),
                ms_text(ref.request_to_response_ms),
            )
        more = group.cut_total - min(len(group.cut), CUT_SHOWN)
        if more:
            table.add_row(Text(f"… and {more} more", style="dim"), "", "", "", "", "")
    return table


def _comparison(comparison: Comparison) -> FittedTable:
    """Per group a line with its name, then a line per measure."""
    columns = [
        Column("measure", shorten=_cut_group_rows, least=NAME_CHARS),
        Column("baseline", RIGHT, drop=3),
        Column("new", RIGHT, drop=5),
        Column("change", RIGHT, drop=6),
        Column("in %", RIGHT, drop=2),
        Column("limit", drop=1),
        Column("verdict"),
    ]
    title = Text("Compared with ").append(printable(comparison.baseline))
    table = FittedTable(columns, minor=3, legend="comparison", title=title, title_justify="left")
    previous = None
    for delta in comparison.deltas:
        if delta.group != previous:
            name = Text(printable(delta.group), style="bold")
            table.add_row(name, *[""] * (len(columns) - 1))
            previous = delta.group
        style = "bold red" if delta.regressed else ""
        change, relative = change_parts(delta)
        cells = [
            f"  {measure_label(delta.measure)}",
            measure_text(delta.measure, delta.old),
            measure_text(delta.measure, delta.new),
            change,
            relative,
            "" if delta.threshold is None else delta.threshold.text,
        ]
        table.add_row(
            *(Text(cell, style=style) for cell in cells),
            Text(verdict_text(delta), style=style or "green"),
        )
    return table


def _cut_group_rows(cells: Sequence[str], width: int) -> list[str]:
    """The comparison's first column shortened: its group names (`cut_names`), never the
    measures under them (indented)."""
    names = [cell for cell in cells if not cell.startswith(" ")]
    cut = dict(zip(names, cut_names(names, width), strict=True))
    return [cut.get(cell, cell) for cell in cells]


def _verdict(comparison: Comparison) -> Text:
    notes = []
    if comparison.only_new:
        notes.append(f"not in the baseline: {', '.join(comparison.only_new)}")
    if comparison.only_baseline:
        notes.append(f"only in the baseline: {', '.join(comparison.only_baseline)}")
    text = Text()
    for note in notes:
        text.append(printable(note), style="dim").append("\n")
    for limit in comparison.unchecked:  # (a gate that checks nothing fails: rules.md §11)
        note = printable(comparison.unchecked_note(limit))
        text.append(f"{note}.", style="bold red").append("\n")
    failures = gate_failures(comparison)
    if comparison.regressions:  # (`1 regression beyond the limits.`)
        failures[0] += " beyond the limits"
    if failures:
        return text.append(f"{', '.join(failures)}.", style="bold red")
    if comparison.thresholds:
        return text.append("No regression beyond the limits.", style="green")
    return text.append("No limits given (--max-regression): deltas only.", style="dim")
