"""report.md: the report as a pull-request comment (GitHub-flavoured Markdown).

Transcript text (group names, paths, rule IDs) is untrusted: every Markdown punctuation character
is escaped, `@` mentions are broken and line breaks flattened, so it cannot add links, images,
HTML, mentions or table cells to the comment.
"""

from __future__ import annotations

from collections.abc import Iterator

from acptrace.judge.idle_timers import timeout_text
from acptrace.model.domain import Outcome, Severity
from acptrace.model.version import __version__
from acptrace.render.markdown_text import literal
from acptrace.render.text import printable
from acptrace.report.baseline import Comparison
from acptrace.report.numbers import (
    FEW_LEGEND,
    FEW_MARK,
    SHORT_LABELS,
    UNMEASURED_NOTE,
    change_text,
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
from acptrace.report.stats import STATS, Distribution
from acptrace.report.summaries import CUT, Group, Metric, Report

TEXT_CHARS = 120
"""Longer untrusted text is shortened (`…`)."""
SLOWEST_SHOWN = 5
"""Slowest replays listed per group."""
CUT_SHOWN = 10
"""Cut replays listed per group."""


def escape(value: object) -> str:
    """Untrusted text as literal Markdown, safe inside a table cell."""
    text = printable(value)
    if len(text) > TEXT_CHARS:
        text = text[: TEXT_CHARS - 1] + "…"
    return literal(text)


def render_markdown(report: Report, comparison: Comparison | None = None) -> bytes:
    """The whole comment."""
    return ("\n".join(_lines(report, comparison)) + "\n").encode()


def _lines(report: Report, comparison: Comparison | None) -> Iterator[str]:
    yield f"<!-- acptrace report (acptrace {__version__}) -->"  # how a later run knows it
    yield from _title(report, comparison)
    yield ""
    yield from _overview(report)
    if comparison is not None:
        yield ""
        yield from _comparison(comparison)
    for group in report.groups:
        yield ""
        yield from _details(group)
    if report.errors:
        yield ""
        yield f"**{count_text(len(report.errors), 'file')} skipped:**"
        yield ""
        for error in report.errors:
            yield f"- {escape(error.path)}: {escape(error.message)}"


def _title(report: Report, comparison: Comparison | None) -> Iterator[str]:
    if comparison is None:
        yield "## acptrace latency report"
    elif failures := gate_failures(comparison):
        yield f"## ❌ acptrace: {', '.join(failures)}"
    else:
        yield "## ✅ acptrace: no regression beyond the limits"
    yield ""
    line = f"{count_text(report.files, 'transcript')}, {count_text(len(report.groups), 'group')}"
    yield f"{line} by `{report.group_by.value}`."


def _overview(report: Report) -> Iterator[str]:
    common = common_headline(report.groups)
    latency = f"{common.label.replace(' ', '')} p50" if common else "latency | p50"
    yield (
        "| group | connections | resumes | complete | unmarked | cut | refused | ambiguous "
        f"| loaded | errors | warnings | {latency} | p90 | p99 | throughput p50 |"
    )
    yield "|---|" + "---:|" * (14 if common else 13) + ("" if common else "---|---:|")
    for group in report.groups:
        counts = group.replay_outcomes
        headline = group.metrics[group.headline]
        cells = [
            escape(group.name),
            str(group.connections),
            str(group.resumes),
            complete_text(group),
            str(counts[Outcome.UNMARKED_SUCCESS]),
            str(sum(counts[o] for o in CUT)),
            str(counts[Outcome.REFUSED]),
            str(counts[Outcome.AMBIGUOUS]),
            str(group.loaded),
            str(group.severities[Severity.ERROR]),
            str(group.severities[Severity.WARNING]),
            *([] if common else [SHORT_LABELS.get(group.headline, group.headline.label)]),
            *(_stat(group.headline, headline, s) for s in ("p50", "p90", "p99")),
            _stat(Metric.THROUGHPUT, group.metrics[Metric.THROUGHPUT], "p50"),
        ]
        yield "| " + " | ".join(cells) + " |"
    yield ""
    yield (
        "complete: of the replays that owe a marker (v2 resumes with replayFrom, neither refused "
        "nor ambiguous; — where none does) · unmarked: answered without a marker (RC-MISSING) "
        "· cut: truncated, failed or pending at the end · loaded: loads answered with success."
    )
    shown = [(g, m) for g in report.groups for m in (g.headline, Metric.THROUGHPUT)]
    if any(shows_few(g.metrics[m]) for g, m in shown):
        yield ""
        yield _FEW_LEGEND


_FEW_LEGEND = FEW_LEGEND.replace(FEW_MARK, "\\" + FEW_MARK, 1)


def _stat(metric: Metric, distribution: Distribution, stat: str) -> str:
    """A statistic as a cell: the few-samples mark escaped so it shows as itself."""
    return stat_text(metric, distribution, stat).replace(FEW_MARK, "\\" + FEW_MARK)


def _comparison(comparison: Comparison) -> Iterator[str]:
    yield f"### Compared with {escape(comparison.baseline)}"
    yield ""
    for title, names in (
        ("Not in the baseline", comparison.only_new),
        ("Only in the baseline", comparison.only_baseline),
    ):
        if names:
            yield f"{title}: {', '.join(escape(n) for n in names)}."
            yield ""
    for limit in comparison.unchecked:  # (a limit parsed is measure names and numbers only)
        yield f"❌ {printable(comparison.unchecked_note(limit))}."
        yield ""
    yield "| group | measure | baseline | new | change | limit | verdict |"
    yield "|---|---|---:|---:|---:|---|---|"
    for delta in comparison.deltas:
        verdict = verdict_text(delta)
        mark = "❌ " if delta.regressed else "✅ " if verdict == "ok" else ""
        cells = [
            escape(delta.group),
            measure_label(delta.measure),
            measure_text(delta.measure, delta.old),
            measure_text(delta.measure, delta.new),
            change_text(delta),
            escape(delta.threshold.text) if delta.threshold is not None else "",
            f"{mark}{verdict}",
        ]
        yield "| " + " | ".join(cells) + " |"


def _details(group: Group) -> Iterator[str]:
    yield f"#### {escape(group.name)}"
    yield ""
    yield "<details><summary>Latencies, loads, findings, slowest and cut replays</summary>"
    yield ""
    yield "| metric | " + " | ".join(STATS) + " |"
    yield "|---|" + "---:|" * len(STATS)
    for metric in measured(group):
        cells = [_stat(metric, group.metrics[metric], stat) for stat in STATS]
        yield f"| {metric.label} ({metric.unit}) | " + " | ".join(cells) + " |"
    if any(shows_few(group.metrics[metric]) for metric in Metric):
        yield ""
        yield _FEW_LEGEND
    if len(measured(group)) < len(Metric):
        yield ""
        yield UNMEASURED_NOTE
    if any(verdict.replays for verdict in group.idle_timers):
        yield ""
        yield "| idle timer | replays cut short | updates lost |"
        yield "|---:|---:|---:|"
        for verdict in group.idle_timers:
            yield (
                f"| {timeout_text(verdict.timeout_ms)} | {verdict.cut_short} of "
                f"{verdict.replays} | {verdict.updates_lost:,} |"
            )
    if group.findings:
        yield ""
        yield "| rule | level | count | first at |"
        yield "|---|---|---:|---|"
        for count in group.findings:
            path, line = count.first[0]
            yield (
                f"| {escape(count.rule)} | {count.severity.value} | {count.count} "
                f"| {escape(path)}:{line} |"
            )
    if group.loads:
        counts = group.load_outcomes
        yield ""
        yield (
            f"Loads (session/load, no marker owed): {group.loads}: {group.loaded} answered with "
            f"success, {counts[Outcome.REFUSED]} refused, {counts[Outcome.TRUNCATED]} "
            f"truncated, {counts[Outcome.UNKNOWN]} unknown, {counts[Outcome.AMBIGUOUS]} ambiguous."
        )
    refs = [("slowest", ref) for ref in group.slowest[:SLOWEST_SHOWN]]
    refs += [("cut", ref) for ref in group.cut[:CUT_SHOWN]]
    if refs:
        yield ""
        yield f"Slowest by {group.headline.label}."
        yield ""
        yield "| list | file:line | outcome | marker→response | total |"
        yield "|---|---|---|---:|---:|"
        for kind, ref in refs:
            yield (
                f"| {kind} | {escape(ref.path)}:{ref.line} | {ref.outcome.value} "
                f"| {ms_text(ref.marker_to_response_ms)} | {ms_text(ref.request_to_response_ms)} |"
            )
    yield ""
    yield "</details>"
