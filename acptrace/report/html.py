"""report.html: one self-contained page (inline CSS and SVG images, no script, no network).

A Content-Security-Policy meta tag forbids every fetch but `data:` images, so the page cannot
reach the network even by mistake. Every text from a transcript is escaped. Should matplotlib
(a dependency) be missing, the page says so and shows the tables alone.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from acptrace.judge.idle_timers import timeout_text
from acptrace.model.domain import Outcome, Severity
from acptrace.model.version import __version__
from acptrace.render.text import printable
from acptrace.report import charts
from acptrace.report.baseline import Comparison, Delta
from acptrace.report.groups import shared_edges
from acptrace.report.html_parts import (
    NARROW_SCREEN,
    Cell,
    escape,
    figure_html,
    group_cell,
    num,
    table_html,
)
from acptrace.report.numbers import (
    FEW_LEGEND,
    FEW_MARK,
    SHORT_LABELS,
    UNMEASURED_NOTE,
    change_text,
    common_headline,
    complete_text,
    count_text,
    measure_label,
    measure_text,
    measured,
    ms_text,
    rate_text,
    shows_few,
    stat_text,
    verdict_text,
)
from acptrace.report.relative import relative_report
from acptrace.report.stats import PERCENTILE_METHOD, STATS
from acptrace.report.summaries import (
    CUT,
    FEW_REPLAYS,
    REPLAY_METRICS,
    Group,
    Metric,
    Report,
    ResumeRef,
)
from acptrace.report.turn_html import METHOD as TURN_METHOD
from acptrace.report.turn_html import (
    Edges,
    group_turns,
    turn_chart_count,
    turn_edges,
    turn_overview,
)
from acptrace.report.turn_numbers import turn_groups

BINS = 24
"""Histogram bins, log-spaced and shared by every group so the charts compare."""
CHARTED_GROUPS = 50
"""Groups that get their own histogram (the others get tables only)."""
LINKED_GROUPS = 12
"""Up to this many groups, the navigation links each one; beyond, the overview table's group
column is the list of links (a line of 35 paths is a wall, not a navigation)."""

POLICY = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"
"""The page's Content-Security-Policy: nothing is fetched."""

NO_CHARTS = (
    "Charts need matplotlib, a dependency of acptrace that this installation lacks: "
    "<code>pip install --force-reinstall acptrace</code> brings it back. "
    "The tables hold the same numbers."
)

_CSS = """
:root { color-scheme: light; --line: #d9dde3; --muted: #5f6b7a; --bad: #b42318; --ok: #067647; }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 1240px; padding: 24px 32px 48px;
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial,
  sans-serif; color: #1d2939; background: #fff; }
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 19px; margin: 32px 0 8px; padding-top: 8px; border-top: 1px solid var(--line); }
h3 { font-size: 15px; margin: 20px 0 6px; }
p.meta, figcaption, .muted { color: var(--muted); }
nav a { margin-right: 12px; display: inline-block; }
td.name { min-width: 14em; max-width: 30em; overflow-wrap: break-word; position: relative;
  padding-left: 28px; }
td.name .swatch { position: absolute; left: 8px; top: 9px; }
.nowrap { white-space: nowrap; }
a.up { font-size: 13px; font-weight: normal; margin-left: 10px; }
.scroll { overflow-x: auto; margin: 6px 0 12px; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; font-size: 13px; }
td:first-child { min-width: 12em; }
th, td { padding: 4px 8px; border-bottom: 1px solid var(--line); text-align: left;
  vertical-align: top; }
th { background: #f5f7fa; font-weight: 600; }
td.num { text-align: right; white-space: nowrap; }
th.num { text-align: right; }
tr.bad td { color: var(--bad); font-weight: 600; }
code, .path { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  font-size: 12.5px; overflow-wrap: anywhere; }
figure { margin: 8px 0 16px; }
figure img { max-width: 100%; height: auto; }
.note { background: #fffaeb; border: 1px solid #fedf89; padding: 8px 12px; border-radius: 6px; }
.verdict { padding: 10px 14px; border-radius: 6px; font-weight: 600; margin: 12px 0; }
.verdict.pass { background: #ecfdf3; color: var(--ok); border: 1px solid #abefc6; }
.verdict.fail { background: #fef3f2; color: var(--bad); border: 1px solid #fecdca; }
.verdict.warn { background: #fffaeb; color: #93370d; border: 1px solid #fedf89; }
.swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px;
  margin-right: 6px; vertical-align: baseline; background: currentColor; }
.swatch.dashed, .swatch.dotted { background: none; width: 14px; height: 0; border-radius: 0;
  border-top: 3px dashed currentColor; }
.swatch.dotted { border-top-style: dotted; }
@media (max-width: $NARROW) {
  body { padding: 16px 12px 32px; }
  .scroll table, .scroll tbody, .scroll tr { display: block; }
  .scroll td { display: flow-root; }
  .scroll thead { display: none; }
  .scroll tr { padding: 6px 0; border-bottom: 1px solid var(--line); }
  .scroll td { min-width: 0; max-width: none; padding: 2px 0; border: 0; text-align: right;
    white-space: normal; }
  .scroll td::before { content: attr(data-label); float: left; margin-right: 12px;
    color: var(--muted); }
  .scroll td.name { text-align: left; font-weight: 600; padding-left: 18px; }
  .scroll td.name .swatch { left: 0; top: 7px; }
  .scroll td.name::before { content: none; }
}
""".replace("$NARROW", f"{NARROW_SCREEN}px")  # (a phone: html_parts)


def render_html(report: Report, comparison: Comparison | None = None) -> bytes:
    """The whole page."""
    body = "\n".join(_body(report, comparison))
    page = (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{POLICY}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<meta name="generator" content="acptrace {escape(__version__)}">\n'
        "<title>acptrace latency report</title>\n"
        f"<style>{_CSS}</style>\n</head>\n<body>\n{body}\n</body>\n</html>\n"
    )
    return page.encode()


def chart_count(report: Report) -> int:
    """How many charts `render_html` draws for the report (`charts.DRAWN` is told of each), on
    the conditions it draws them on: a progress display's total."""
    if not charts.available():
        return 0
    groups = report.groups
    ecdfs = sum(
        1
        for metric in REPLAY_METRICS
        if charts.ecdf_groups(groups, metric, [g for g in groups if g.headline is metric])
    )
    bars = 1 if any(g.resumes for g in groups) else 0
    charted = groups[:CHARTED_GROUPS]
    edges = {metric: shared_edges([g for g in charted if g.headline is metric], metric, BINS)
             for metric in REPLAY_METRICS}  # fmt: skip
    histograms = sum(1 for g in charted if edges[g.headline] is not None and g.samples[g.headline])
    return ecdfs + bars + histograms + turn_chart_count(groups, charted)


def _body(report: Report, comparison: Comparison | None) -> Iterator[str]:
    report, folder = relative_report(report)  # (the folder said once, in the header)
    names = [group.name for group in report.groups]
    yield "<header><h1>acptrace latency report</h1>"
    yield (
        f'<p class="meta">{escape(count_text(report.files, "transcript"))} analysed · '
        f"{escape(count_text(len(report.groups), 'group'))} by "
        f"<code>{escape(report.group_by)}</code>"
        + (f' in <span class="path">{escape(folder)}</span>' if folder else "")
        + (f" · {escape(count_text(len(report.errors), 'file'))} skipped" if report.errors else "")
        + f" · acptrace {escape(__version__)}</p>"
    )
    links = ['<a href="#overview">Overview</a>']
    if comparison is not None:
        links.append('<a href="#comparison">Comparison</a>')
    if len(names) <= LINKED_GROUPS:
        links += [f'<a href="#group-{i}">{escape(name)}</a>' for i, name in enumerate(names)]
    if turn_groups(report.groups):
        links.append('<a href="#turns">Turns</a>')
    if report.errors:
        links.append('<a href="#errors">Skipped files</a>')
    yield f"<nav>{' '.join(links)}</nav></header>"
    if comparison is not None:
        yield _verdict(comparison)
    yield from _overview(report, names)
    yield from turn_overview(report.groups, names)
    if comparison is not None:
        yield from _comparison(comparison)
    charted = report.groups[:CHARTED_GROUPS] if charts.available() else ()
    edges = {  # (bins shared by the groups of one headline latency, so that they compare)
        metric: shared_edges([g for g in charted if g.headline is metric], metric, BINS)
        for metric in REPLAY_METRICS
    }
    turn_bins = turn_edges(charted)
    for index, group in enumerate(report.groups):
        bins = edges[group.headline] if index < len(charted) else None
        turns = turn_bins if index < len(charted) else None
        yield from _group(index, group, names[index], (bins, turns), len(names) > LINKED_GROUPS)
    yield from _errors(report)
    yield _method()


def _overview(report: Report, names: Sequence[str]) -> Iterator[str]:
    yield '<section id="overview"><h2>Overview</h2>'
    common = common_headline(report.groups)
    head: list[Cell] = ["group"]
    head += [num(name) for name in ("conn.", "resumes", "complete", "unmarked", "cut")]
    head += [num(name) for name in ("refused", "ambig.", "loaded")]
    head += ["findings", *([] if common else ["latency"])]
    head += [num(name) for name in ("p50", "p90", "p99", "throughput")]
    rows: list[list[Cell]] = []
    for index, group in enumerate(report.groups):
        counts = group.replay_outcomes
        headline = group.metrics[group.headline]
        rows.append(
            [
                group_cell(index, names[index]),
                num(group.connections),
                num(group.resumes),
                num(complete_text(group)),
                num(counts[Outcome.UNMARKED_SUCCESS]),
                num(sum(counts[o] for o in CUT)),
                num(counts[Outcome.REFUSED]),
                num(counts[Outcome.AMBIGUOUS]),
                num(group.loaded),
                _severity_counts(group),
                *(
                    []
                    if common
                    else [escape(SHORT_LABELS.get(group.headline, group.headline.label))]
                ),
                *(num(stat_text(group.headline, headline, s)) for s in ("p50", "p90", "p99")),
                num(stat_text(Metric.THROUGHPUT, group.metrics[Metric.THROUGHPUT], "p50")),
            ]
        )
    named = (
        f"p50, p90, p99: {escape(common.label)}"
        if common
        else "p50, p90, p99: each group's headline latency (latency), marker → response where "
        "replays owe a marker and sent one, request → response elsewhere"
    )
    yield (
        '<p class="muted">Complete: the share of the replaying resumes that owe a marker (v2 '
        "resumes with <code>replayFrom</code>, neither refused nor ambiguous; — where none does, "
        "as with v1 Agents). The counts beside it add up to the replays: unmarked (answered "
        "without a marker: RC-MISSING), cut (truncated, failed or pending at the end), refused "
        "(an error before any update: nothing replayed), ambiguous (overlapping replays of one "
        "session), loaded (loads answered with success: a load owes no marker). "
        f"{named}; throughput: p50 of replayed updates per second.</p>"
    )
    yield table_html(head, rows)
    shown = [(g, m) for g in report.groups for m in (g.headline, Metric.THROUGHPUT)]
    if any(shows_few(g.metrics[m]) for g, m in shown):
        yield f'<p class="muted">{escape(FEW_LEGEND)}</p>'
    if not charts.available():
        yield f'<p class="note">{NO_CHARTS}</p>'
    else:
        yield from _overview_charts(report, names)
    yield "</section>"


def _overview_charts(report: Report, names: Sequence[str]) -> Iterator[str]:
    for metric in REPLAY_METRICS:  # (one chart per headline latency the groups have)
        alike = [(g, n) for g, n in zip(report.groups, names, strict=True) if g.headline is metric]
        if not alike:
            continue
        ecdf = charts.ecdf_chart(report.groups, metric, names, only=[g for g, _ in alike])
        if ecdf is None:
            continue
        figure = (
            "the RFD's headline figure"
            if metric is Metric.MARKER_TO_RESPONSE
            else "the headline of the groups where no replay owes a marker or none sent one"
        )
        yield figure_html(
            ecdf,
            f"ECDF of {metric.label} per group",
            f"{metric.label} ({figure}): share of replaying resumes that answered within a "
            f"time, per group (up to {charts.OVERLAY_GROUPS} groups).",
        )
    bars = charts.outcome_chart(report.groups, names)
    if bars is not None:
        yield figure_html(
            bars,
            "resumes by outcome per group",
            f"Resumes by outcome (up to {charts.BAR_GROUPS} groups, most resumes first).",
        )


def _group(
    index: int,
    group: Group,
    name: str,
    bins: tuple[tuple[float, ...] | None, Edges | None],
    back: bool,
) -> Iterator[str]:
    """A group's section; `bins`: the histogram bins of its headline and of its turn
    latencies (None: no histogram)."""
    headline = group.headline
    edges, turn_bins = bins
    up = '<a class="up" href="#overview">↑ overview</a>' if back else ""
    yield f'<section class="group" id="group-{index}"><h2>{escape(name)}{up}</h2>'
    yield (
        f'<p class="muted">{count_text(group.connections, "connection")} · '
        f"{count_text(group.resumes, 'resume')} ({group.replaying} replaying) · "
        f"{count_text(sum(c.count for c in group.findings), 'finding')} · "
        f"{count_text(group.issues, 'input issue')}"
        + (f" · {count_text(group.turns.turns, 'turn')}" if group.turns.turns else "")
        + "</p>"
    )
    if edges is not None and group.samples[headline]:
        svg = charts.histogram_chart(group, headline, edges, charts.group_colour(index))
        yield figure_html(
            svg,
            f"histogram of {headline.label} for {printable(name)}",
            f"{headline.label}: histogram over log-spaced bins shared by every group.",
        )
    yield "<h3>Latency and throughput</h3>"
    head: list[Cell] = ["metric", *(num(stat) for stat in STATS)]
    rows: list[list[Cell]] = [
        [
            escape(f"{metric.label} ({metric.unit})"),
            *(num(stat_text(metric, group.metrics[metric], s)) for s in STATS),
        ]
        for metric in measured(group)
    ]
    yield table_html(head, rows)
    if any(shows_few(group.metrics[metric]) for metric in REPLAY_METRICS):
        yield f'<p class="muted">{escape(FEW_LEGEND)}</p>'
    if len(measured(group)) < len(REPLAY_METRICS):
        yield f'<p class="muted">{escape(UNMEASURED_NOTE)}</p>'
    yield from _idle_timers(group)
    yield from _outcomes(group)
    yield from _loads(group)
    yield from _findings(group)
    yield from _resumes(
        f"Slowest replays ({headline.label})", group.slowest, len(group.slowest), "none timed"
    )
    yield from _resumes(
        "Cut replays (truncated, complete_failed, unknown)", group.cut, group.cut_total, "none"
    )
    yield from group_turns(index, group, name, turn_bins)
    yield "</section>"


def _idle_timers(group: Group) -> Iterator[str]:
    """What a Client guessing the end of a replay from silence would have cut, per timeout."""
    if not any(verdict.replays for verdict in group.idle_timers):
        return
    yield "<h3>Idle timers</h3>"
    yield (
        '<p class="muted">Replays a Client waiting for this much silence would have taken as '
        "complete before their last replayed update, and the updates it would have lost.</p>"
    )
    head: list[Cell] = [num("idle timer"), num("replays cut short"), num("updates lost")]
    rows: list[list[Cell]] = [
        [
            num(timeout_text(v.timeout_ms)),
            num(f"{v.cut_short} of {v.replays}"),
            num(f"{v.updates_lost:,}"),
        ]
        for v in group.idle_timers
    ]
    yield table_html(head, rows, [v.cut_short > 0 for v in group.idle_timers])


def _outcomes(group: Group) -> Iterator[str]:
    yield "<h3>Outcomes</h3>"
    rows: list[list[Cell]] = []
    for outcome in Outcome:
        count = group.outcomes[outcome]
        children = group.child_outcomes[outcome]
        if count or children:
            share = "" if outcome is Outcome.NO_REPLAY else rate_text(group.rate(outcome))
            colour = charts.OUTCOME_COLOURS[outcome]
            swatch = f'<span class="swatch" style="background:{colour}"></span>'
            rows.append([swatch + outcome.value, num(count), num(share), num(children)])
    if rows:
        yield (
            '<p class="muted">Share: of what owes the outcome. For <code>complete</code>, '
            "<code>complete_failed</code>, <code>truncated</code>, <code>unmarked_success</code> "
            "and <code>unknown</code>: of the replays that owe a marker (v2 resumes with "
            "<code>replayFrom</code>, neither refused nor ambiguous; — where none does); for "
            "<code>loaded</code>: of the loads; for <code>refused</code> and "
            "<code>ambiguous</code>: of every replaying resume.</p>"
        )
        head: list[Cell] = [
            "outcome",
            num("resumes"),
            num("share"),
            num("child sessions"),
        ]
        yield table_html(head, rows)
    else:
        yield '<p class="muted">No resumes.</p>'


def _loads(group: Group) -> Iterator[str]:
    """The group's loads on a line of their own: they owe no marker."""
    if not group.loads:
        return
    counts = group.load_outcomes
    yield (
        f"<p>Loads (<code>session/load</code>, no marker owed): {group.loads}: "
        f"{group.loaded} answered with success, {counts[Outcome.REFUSED]} refused, "
        f"{counts[Outcome.TRUNCATED]} truncated, {counts[Outcome.UNKNOWN]} unknown, "
        f"{counts[Outcome.AMBIGUOUS]} ambiguous.</p>"
    )


def _findings(group: Group) -> Iterator[str]:
    yield "<h3>Findings by rule</h3>"
    if not group.findings:
        yield '<p class="muted">No findings.</p>'
        return
    rows: list[list[Cell]] = [
        [
            f"<code>{escape(count.rule)}</code>",
            escape(count.severity),
            num(count.count),
            "<br>".join(f'<span class="path">{escape(p)}:{line}</span>' for p, line in count.first),
        ]
        for count in group.findings
    ]
    yield table_html(["rule", "level", num("count"), "first at"], rows)


def _resumes(title: str, refs: Sequence[ResumeRef], total: int, empty: str) -> Iterator[str]:
    yield f"<h3>{escape(title)}</h3>"
    if not refs:
        yield f'<p class="muted">{escape(empty.capitalize())}.</p>'
        return
    head: list[Cell] = ["file:line", "session", "outcome", "end"]
    head += [num("replayed"), num("marker→resp"), num("total")]
    rows: list[list[Cell]] = [
        [
            f'<span class="path">{escape(ref.path)}:{ref.line}</span>',
            f"<code>{escape(ref.session_id)}</code>",
            escape(ref.outcome),
            escape(ref.end if ref.error_code is None else f"{ref.end} {ref.error_code}"),
            num(ref.replayed_updates),
            num(ms_text(ref.marker_to_response_ms)),
            num(ms_text(ref.request_to_response_ms)),
        ]
        for ref in refs
    ]
    yield table_html(head, rows)
    if total > len(refs):
        yield f'<p class="muted">… and {total - len(refs)} more (report.json counts them).</p>'


def _verdict(comparison: Comparison) -> str:
    regressions = comparison.regressions
    limits = ", ".join(t.text for t in comparison.thresholds) or "none"
    against = f"against {escape(comparison.baseline)}"
    verdicts = []
    if regressions:
        text = f"{count_text(len(regressions), 'regression')} beyond the limits ({limits})"
        verdicts.append(f'<p class="verdict fail">✗ {escape(text)} {against}</p>')
    for limit in comparison.unchecked:  # (a gate that checks nothing fails: rules.md §11)
        note = comparison.unchecked_note(limit)
        verdicts.append(f'<p class="verdict fail">✗ {escape(note)} {against}</p>')
    if not verdicts:
        text = f"No regression beyond the limits ({limits})"
        verdicts.append(f'<p class="verdict pass">✓ {escape(text)} {against}</p>')
    return "\n".join(verdicts)


def _comparison(comparison: Comparison) -> Iterator[str]:
    yield f'<section id="comparison"><h2>Comparison with {escape(comparison.baseline)}</h2>'
    for title, names in (
        ("Groups the baseline does not have", comparison.only_new),
        ("Groups only the baseline has", comparison.only_baseline),
    ):
        if names:
            yield f'<p class="muted">{escape(title)}: {", ".join(escape(n) for n in names)}.</p>'
    head: list[Cell] = ["group", "measure", num("baseline"), num("new"), num("change")]
    head += ["limit", "verdict"]
    rows = [_delta_row(delta) for delta in comparison.deltas]
    yield table_html(head, rows, [delta.regressed for delta in comparison.deltas])
    yield "</section>"


def _delta_row(delta: Delta) -> list[Cell]:
    return [
        escape(delta.group),
        escape(measure_label(delta.measure)),
        num(measure_text(delta.measure, delta.old)),
        num(measure_text(delta.measure, delta.new)),
        num(change_text(delta)),
        escape("" if delta.threshold is None else delta.threshold.text),
        escape(verdict_text(delta)),
    ]


def _errors(report: Report) -> Iterator[str]:
    if not report.errors:
        return
    yield '<section id="errors"><h2>Skipped files</h2>'
    rows: list[list[Cell]] = [
        [f'<span class="path">{escape(e.path)}</span>', escape(e.message)] for e in report.errors
    ]
    yield table_html(["file", "why"], rows)
    yield "</section>"


def _method() -> str:
    return (
        '<footer><h2>How the numbers are made</h2><p class="muted">'
        "Latencies come from the replaying resumes (<code>replayFrom</code> given, or a v1 "
        "<code>session/load</code>) of the requested sessions, where the transcript has both "
        "ends; child sessions are counted apart. Each group leads with marker → response "
        "where its replays owe a marker and sent one, with request → response elsewhere. "
        "Percentiles interpolate linearly between the "
        f"nearest ranks (<code>{PERCENTILE_METHOD}</code>, numpy's default). Replay throughput "
        "is replayed updates ÷ (request → marker in seconds), for resumes with a marker. "
        "Marker shares are of the replays that owe a marker (v2 resumes with "
        "<code>replayFrom</code>, neither refused nor ambiguous); a <code>session/load</code> "
        "owes none and is counted apart. "
        f"Percentiles of fewer than {FEW_REPLAYS} values are marked {FEW_MARK}. "
        f"{escape(TURN_METHOD)}</p></footer>"
    )


def _severity_counts(group: Group) -> str:
    """The group's findings by level, as HTML: `1 error · 2 warnings`, never broken inside a
    count."""
    counts = group.severities
    if not any(counts.values()):
        return "0"
    shown = (count_text(counts[s], s.value) for s in Severity if counts[s])
    return " · ".join(f'<span class="nowrap">{escape(text)}</span>' for text in shown)
