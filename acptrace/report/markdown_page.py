"""report.md: the report as a pull-request comment (GitHub-flavoured Markdown): an overview
of the replays per group, the comparison, the turn latencies (`turn_markdown`), and per group
the details folded.

Transcript text is untrusted and escaped everywhere (`markdown_parts.escape`).
"""

from __future__ import annotations

from collections.abc import Iterator

from acptrace.judge.idle_timers import timeout_text
from acptrace.model.domain import Outcome, Severity
from acptrace.model.version import __version__
from acptrace.render.text import printable
from acptrace.report.baseline import Comparison
from acptrace.report.markdown_parts import escape, marked, stat_cell
from acptrace.report.numbers import (
    FEW_LEGEND,
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
    verdict_text,
)
from acptrace.report.relative import relative_report
from acptrace.report.stats import STATS
from acptrace.report.summaries import CUT, REPLAY_METRICS, Group, Metric, Report
from acptrace.report.turn_markdown import group_turns, turn_overview
from acptrace.report.turn_numbers import turn_groups

SLOWEST_SHOWN = 5
"""Slowest replays listed per group."""
CUT_SHOWN = 10
"""Cut replays listed per group."""
GROUPS_SHOWN = 100
"""Groups in the overview table at most (`--by file` over 10,000 files would make a page of
megabytes, and a pull-request comment holds 65,536 characters); report.json has them all."""
DETAILS_SHOWN = 20
"""Groups whose details (latencies, findings, slowest replays) the page shows, at most."""
ERRORS_SHOWN = 50
"""Skipped files listed, at most."""


def render_markdown(report: Report, comparison: Comparison | None = None) -> bytes:
    """The whole comment."""
    return ("\n".join(_lines(report, comparison)) + "\n").encode()


def _lines(report: Report, comparison: Comparison | None) -> Iterator[str]:
    yield f"<!-- acptrace report (acptrace {__version__}) -->"  # how a later run knows it
    report, folder = relative_report(report)  # (the folder said once, in the title)
    yield from _title(report, comparison, folder)
    yield ""
    yield from _overview(report)
    if turn_groups(report.groups):
        yield ""
        yield from turn_overview(report.groups)
    if comparison is not None:
        yield ""
        yield from _comparison(comparison)
    for group in report.groups[:DETAILS_SHOWN]:
        yield ""
        yield from _details(group)
    yield from _left_out(len(report.groups) - DETAILS_SHOWN, "group", " in detail")
    if report.errors:
        yield ""
        yield f"**{count_text(len(report.errors), 'file')} skipped:**"
        yield ""
        for error in report.errors[:ERRORS_SHOWN]:
            yield f"- {escape(error.path)}: {escape(error.message)}"
        yield from _left_out(len(report.errors) - ERRORS_SHOWN, "skipped file")


def _left_out(count: int, noun: str, how: str = "") -> Iterator[str]:
    """The line that says how much a capped list left out (nothing when it left out none)."""
    if count > 0:
        yield ""
        more = count_text(count, f"more {noun}")
        yield f"… and {more} not shown{how} here (report.json has them all)."


def _title(report: Report, comparison: Comparison | None, folder: str) -> Iterator[str]:
    if comparison is None:
        yield "## acptrace latency report"
    elif failures := gate_failures(comparison):
        yield f"## ❌ acptrace: {', '.join(failures)}"
    else:
        yield "## ✅ acptrace: no regression beyond the limits"
    yield ""
    line = f"{count_text(report.files, 'transcript')}, {count_text(len(report.groups), 'group')}"
    where = f" in {escape(folder)}" if folder else ""
    yield f"{line} by `{report.group_by.value}`{where}."


def _overview(report: Report) -> Iterator[str]:
    common = common_headline(report.groups)
    latency = f"{common.label.replace(' ', '')} p50" if common else "latency | p50"
    yield (
        "| group | connections | resumes | complete | unmarked | cut | refused | ambiguous "
        f"| loaded | errors | warnings | {latency} | p90 | p99 | throughput p50 |"
    )
    yield "|---|" + "---:|" * (14 if common else 13) + ("" if common else "---|---:|")
    for group in report.groups[:GROUPS_SHOWN]:
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
            *(stat_cell(group.headline, headline, s) for s in ("p50", "p90", "p99")),
            stat_cell(Metric.THROUGHPUT, group.metrics[Metric.THROUGHPUT], "p50"),
        ]
        yield "| " + " | ".join(cells) + " |"
    yield from _left_out(len(report.groups) - GROUPS_SHOWN, "group")
    yield ""
    yield (
        "complete: of the replays that owe a marker (v2 resumes with replayFrom, neither refused "
        "nor ambiguous; — where none does) · unmarked: answered without a marker (RC-MISSING) "
        "· cut: truncated, failed or pending at the end · loaded: loads answered with success."
    )
    shown = [(g, m) for g in report.groups[:GROUPS_SHOWN] for m in (g.headline, Metric.THROUGHPUT)]
    if any(shows_few(g.metrics[m]) for g, m in shown):
        yield ""
        yield _FEW_LEGEND


_FEW_LEGEND = marked(FEW_LEGEND)


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


NO_RESUMES = "No resumes (session/resume, session/load): no replay latencies."
"""What a group without resumes has in place of its latency table (a row of dashes)."""


def _latencies(group: Group) -> Iterator[str]:
    """The group's replay latencies, or that it has no resumes to time."""
    yield ""
    if not group.resumes:
        yield NO_RESUMES
        return
    yield "| metric | " + " | ".join(STATS) + " |"
    yield "|---|" + "---:|" * len(STATS)
    for metric in measured(group):
        cells = [stat_cell(metric, group.metrics[metric], stat) for stat in STATS]
        yield f"| {metric.label} ({metric.unit}) | " + " | ".join(cells) + " |"
    if any(shows_few(group.metrics[metric]) for metric in REPLAY_METRICS):
        yield ""
        yield _FEW_LEGEND
    if len(measured(group)) < len(REPLAY_METRICS):
        yield ""
        yield UNMEASURED_NOTE


def _details(group: Group) -> Iterator[str]:
    yield f"#### {escape(group.name)}"
    yield ""
    turns = ", turns, tool calls and permission waits" if group.turns.any else ""
    yield f"<details><summary>Latencies, loads, findings, slowest and cut replays{turns}</summary>"
    yield from _latencies(group)
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
    yield from group_turns(group)
    yield ""
    yield "</details>"
