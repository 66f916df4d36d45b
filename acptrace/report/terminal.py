"""The report on a terminal: rich tables, a small histogram per group, the comparison."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from rich.console import Group as Lines
from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from acptrace.model.domain import Outcome, Severity
from acptrace.render.idle_view import idle_table
from acptrace.render.summary import OUTCOME_STYLE, SEVERITY_STYLE
from acptrace.render.text import inert
from acptrace.report.baseline import Comparison
from acptrace.report.groups import shared_edges
from acptrace.report.numbers import (
    change_text,
    count_text,
    measure_label,
    measure_text,
    metric_text,
    ms_text,
    share_text,
    verdict_text,
)
from acptrace.report.stats import STATS, histogram
from acptrace.report.summaries import INCOMPLETE, Group, Metric, Report

HEADLINE = Metric.MARKER_TO_RESPONSE
"""The metric of the histogram column."""
SPARK_BINS = 24
"""Bins of the histogram column."""
SPARKS = " ▁▂▃▄▅▆▇█"
"""The bars, empty to full."""
SLOWEST_SHOWN = 3
"""Slowest resumes listed per group."""
INCOMPLETE_SHOWN = 5
"""Truncated and failed resumes listed per group."""


def terminal_report(
    report: Report, comparison: Comparison | None = None
) -> tuple[RenderableType, ...]:
    """Every table, in order (print them with a blank line between)."""
    return tuple(_sections(report, comparison))


def _sections(report: Report, comparison: Comparison | None) -> Iterator[RenderableType]:
    yield _header(report)
    if not report.groups:
        return
    yield _groups(report.groups)
    histograms = _histograms(report.groups)
    if histograms is not None:
        yield histograms
    yield _latencies(report.groups)
    if any(v.replays for g in report.groups for v in g.idle_timers):
        yield idle_table([(g.name, g.idle_timers) for g in report.groups])
    if any(g.findings for g in report.groups):
        yield _findings(report.groups)
    if any(g.slowest for g in report.groups):
        yield _slowest(report.groups)
    if any(g.incomplete for g in report.groups):
        yield _incomplete(report.groups)
    if comparison is not None:
        yield Lines(_comparison(comparison), _verdict(comparison))


def _header(report: Report) -> Text:
    text = Text(f"{count_text(report.files, 'transcript')} · ")
    text.append(f"{count_text(len(report.groups), 'group')} by {report.group_by.value}")
    if report.errors:
        text.append(f" · {count_text(len(report.errors), 'file')} skipped", style="red")
    return text


def _table(title: str) -> Table:
    return Table(title=title, title_justify="left", box=None, header_style="bold", pad_edge=False)


def _groups(groups: Sequence[Group]) -> Table:
    table = _table(f"Resumes by group (p50, p90, p99: {HEADLINE.label})")
    table.add_column("group", no_wrap=True)
    for name in ("conn", "resumes", "complete", "trunc", "other", "errors", "warn"):
        table.add_column(name, justify="right", no_wrap=True)
    for name in ("p50", "p90", "p99"):
        table.add_column(name, justify="right")
    for group in groups:
        other = sum(group.replay_outcomes[o] for o in INCOMPLETE if o is not Outcome.TRUNCATED)
        headline = group.metrics[HEADLINE]
        table.add_row(
            inert(group.name),
            str(group.connections),
            str(group.resumes),
            share_text(group.replay_outcomes[Outcome.COMPLETE], group.rate(Outcome.COMPLETE)),
            _count(group.replay_outcomes[Outcome.TRUNCATED], OUTCOME_STYLE[Outcome.TRUNCATED]),
            _count(other, "yellow"),
            _count(group.severities[Severity.ERROR], SEVERITY_STYLE[Severity.ERROR]),
            _count(group.severities[Severity.WARNING], SEVERITY_STYLE[Severity.WARNING]),
            ms_text(headline.p50),
            ms_text(headline.p90),
            ms_text(headline.p99),
        )
    return table


def _histograms(groups: Sequence[Group]) -> Table | None:
    """One line of bars per group over log-spaced bins shared by every group."""
    edges = shared_edges(groups, HEADLINE, SPARK_BINS)
    if edges is None:
        return None
    table = _table(f"{HEADLINE.label} histogram (log scale)")
    table.add_column("group", no_wrap=True)
    table.add_column("count", justify="right")
    table.add_column(ms_text(edges[0]), justify="right", no_wrap=True)
    table.add_column("histogram", no_wrap=True)
    table.add_column(ms_text(edges[-1]), no_wrap=True)
    for group in groups:
        spark = _spark(group, edges)
        if spark:
            count = str(len([v for v in group.samples[HEADLINE] if v > 0]))
            table.add_row(inert(group.name), count, "", Text(spark, style="cyan"), "")
    return table


def _count(count: int, style: str) -> Text:
    return Text(str(count), style=style if count else "dim")


def _spark(group: Group, edges: tuple[float, ...] | None) -> str:
    """The group's histogram of the headline metric as one line of bars."""
    values = [v for v in group.samples[HEADLINE] if v > 0]
    if edges is None or not values:
        return ""
    counts = histogram(values, edges)
    top = max(counts)
    steps = len(SPARKS) - 1
    return "".join(SPARKS[-(-count * steps // top)] for count in counts)


def _latencies(groups: Sequence[Group]) -> Table:
    table = _table("Latency and throughput")
    table.add_column("group")
    table.add_column("metric")
    for stat in STATS:
        table.add_column(stat, justify="right")
    for group in groups:
        for index, metric in enumerate(Metric):
            distribution = group.metrics[metric]
            cells = [str(distribution.count)]
            cells += [metric_text(metric, distribution.stat(stat)) for stat in STATS[1:]]
            name = inert(group.name) if index == 0 else Text("")
            table.add_row(name, metric.label, *cells)
    return table


def _findings(groups: Sequence[Group]) -> Table:
    table = _table("Findings by rule")
    for name in ("group", "rule", "level", "count", "first at"):
        table.add_column(name, justify="right" if name == "count" else "left")
    for group in groups:
        for index, count in enumerate(group.findings):
            path, line = count.first[0]
            table.add_row(
                inert(group.name) if index == 0 else Text(""),
                inert(count.rule),
                Text(count.severity.value, style=SEVERITY_STYLE[count.severity]),
                str(count.count),
                inert(f"{path}:{line}"),
            )
    return table


def _slowest(groups: Sequence[Group]) -> Table:
    table = _table(f"Slowest resumes ({HEADLINE.label}, top {SLOWEST_SHOWN} per group)")
    for name in ("group", "file:line", "outcome", "replayed", "marker→resp", "total"):
        table.add_column(
            name, justify="right" if name in {"replayed", "marker→resp", "total"} else "left"
        )
    for group in groups:
        for index, ref in enumerate(group.slowest[:SLOWEST_SHOWN]):
            table.add_row(
                inert(group.name) if index == 0 else Text(""),
                inert(f"{ref.path}:{ref.line}"),
                Text(ref.outcome.value, style=OUTCOME_STYLE[ref.outcome]),
                str(ref.replayed_updates),
                ms_text(ref.marker_to_response_ms),
                ms_text(ref.request_to_response_ms),
            )
    return table


def _incomplete(groups: Sequence[Group]) -> Table:
    table = _table("Truncated and failed resumes")
    for name in ("group", "file:line", "outcome", "end", "replayed", "total"):
        table.add_column(name, justify="right" if name in {"replayed", "total"} else "left")
    for group in groups:
        for index, ref in enumerate(group.incomplete[:INCOMPLETE_SHOWN]):
            end = ref.end.value if ref.error_code is None else f"{ref.end.value} {ref.error_code}"
            table.add_row(
                inert(group.name) if index == 0 else Text(""),
                inert(f"{ref.path}:{ref.line}"),
                Text(ref.outcome.value, style=OUTCOME_STYLE[ref.outcome]),
                end,
                str(ref.replayed_updates),
                ms_text(ref.request_to_response_ms),
            )
        more = group.incomplete_total - min(len(group.incomplete), INCOMPLETE_SHOWN)
        if more:
            table.add_row(Text(""), Text(f"… and {more} more", style="dim"))
    return table


def _comparison(comparison: Comparison) -> Table:
    table = _table(f"Compared with {comparison.baseline}")
    table.title = Text("Compared with ").append(inert(comparison.baseline))
    for name in ("group", "measure", "baseline", "new", "change", "limit", "verdict"):
        table.add_column(name, justify="right" if name in {"baseline", "new", "change"} else "left")
    previous = None
    for delta in comparison.deltas:
        style = "bold red" if delta.regressed else ""
        table.add_row(
            inert(delta.group) if delta.group != previous else Text(""),
            measure_label(delta.measure),
            measure_text(delta.measure, delta.old),
            measure_text(delta.measure, delta.new),
            change_text(delta),
            "" if delta.threshold is None else delta.threshold.text,
            Text(verdict_text(delta), style=style or "green"),
            style=style,
        )
        previous = delta.group
    return table


def _verdict(comparison: Comparison) -> Text:
    notes = []
    if comparison.only_new:
        notes.append(f"not in the baseline: {', '.join(comparison.only_new)}")
    if comparison.only_baseline:
        notes.append(f"only in the baseline: {', '.join(comparison.only_baseline)}")
    text = Text()
    for note in notes:
        text.append(inert(note, style="dim")).append("\n")
    regressions = comparison.regressions
    if regressions:
        return text.append(
            f"{count_text(len(regressions), 'regression')} beyond the limits.", style="bold red"
        )
    if comparison.thresholds:
        return text.append("No regression beyond the limits.", style="green")
    return text.append("No limits given (--max-regression): deltas only.", style="dim")
