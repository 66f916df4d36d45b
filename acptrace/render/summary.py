"""The default terminal view of one analysis: connection, resumes, turns, findings, issues."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from itertools import groupby

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from acptrace.judge.idle_timers import DEFAULT_IDLE_TIMEOUTS_MS, idle_verdicts
from acptrace.model.domain import (
    Analysis,
    Connection,
    Finding,
    Outcome,
    PeerInfo,
    ProtocolSource,
    ResumeRow,
    Role,
    Severity,
)
from acptrace.render.facts import Facts
from acptrace.render.fitted import Column, FittedTable
from acptrace.render.idle_view import idle_table
from acptrace.render.latency import latency
from acptrace.render.text import inert, plural, printable, short_id
from acptrace.render.turns_view import TURNS_SHOWN, turns_section
from acptrace.render.wrapping import Wrapped

ISSUES_SHOWN = 10
"""Issues listed one by one before the rest are only counted."""
FINDINGS_SHOWN = 5
"""Findings of one rule listed one by one before the rest are only counted."""

OUTCOME_STYLE = {
    Outcome.COMPLETE: "green",
    Outcome.COMPLETE_FAILED: "yellow",
    Outcome.TRUNCATED: "red",
    Outcome.REFUSED: "yellow",
    Outcome.UNMARKED_SUCCESS: "red",
    Outcome.NO_REPLAY: "cyan",
    Outcome.LOADED: "green",
    Outcome.AMBIGUOUS: "magenta",
    Outcome.UNKNOWN: "dim",
}
APPROXIMATE_LEGEND = (
    "~ approximate: estimated from the Agent's stderr times (Zed dump), not measured"
)
"""Said under a resumes table with approximate latencies."""
SAME_STDERR_TIME_LEGEND = (
    "~0.0 ms: both ends came after the same stderr line; the time between them is unknown"
)
"""Said with `APPROXIMATE_LEGEND` where an approximate latency shown is 0 (docs/json-output.md:
its ends got the same estimated time)."""
SEVERITY_STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.NOTE: "cyan"}


def summary(
    analysis: Analysis, idle_timeouts_ms: Sequence[float] = DEFAULT_IDLE_TIMEOUTS_MS
) -> RenderableType:
    """Everything `acptrace analyze` shows for one file (or one connection of a file), idle
    timers judged for these timeouts."""
    return Group(*_sections(analysis, idle_timeouts_ms))


def summaries(
    analyses: Sequence[Analysis], idle_timeouts_ms: Sequence[float] = DEFAULT_IDLE_TIMEOUTS_MS
) -> Iterator[RenderableType]:
    """One section per analysis; the connections of a file that holds several come under a
    heading for that file, each in its own section."""
    for (path, several), grouped in groupby(
        analyses, key=lambda a: (a.source.path, a.source.connection is not None)
    ):
        group = list(grouped)
        if several:  # (a count never parted from its unit: `Facts` breaks between facts)
            named = inert(path, "bold underline")
            named.append(f"  {group[0].source.format}")
            yield Facts([named, plural(len(group), "connection")])
        yield from (summary(a, idle_timeouts_ms) for a in group)


def _sections(analysis: Analysis, idle_timeouts_ms: Sequence[float]) -> Iterator[RenderableType]:
    yield _header(analysis)
    if analysis.resumes:
        yield _resumes(analysis.resumes)
    else:  # (and the blank line every section ends with, as the table's own)
        yield from (Text("No resumes or loads.", "dim"), Text(""))
    approximate = _approximate_latencies(analysis)
    if any(row.approximate for row in analysis.resumes):
        yield from _approximate_legend(approximate)
    verdicts = idle_verdicts(analysis.resumes, idle_timeouts_ms)
    if verdicts and verdicts[0].replays:
        yield idle_table([(None, verdicts)])
    yield from turns_section(analysis.turns)
    if any(turn.approximate for turn in analysis.turns[:TURNS_SHOWN]) and not any(
        row.approximate for row in analysis.resumes
    ):
        yield from _approximate_legend(approximate)
    yield from _findings(analysis.findings)
    yield from _issues(analysis)
    yield _verdict(analysis)


def _approximate_latencies(analysis: Analysis) -> list[float | None]:
    """The approximate latencies the resumes and turns tables show."""
    shown = [
        (row.request_to_marker_ms, row.marker_to_response_ms, row.request_to_response_ms)
        for row in analysis.resumes
        if row.approximate
    ]
    shown += [
        (turn.first_output_ms, turn.duration_ms, turn.permission_wait_ms)
        for turn in analysis.turns[:TURNS_SHOWN]
        if turn.approximate
    ]
    return [value for values in shown for value in values]


def _approximate_legend(shown: list[float | None]) -> Iterator[Text]:
    """What `~` means, and what `~0.0 ms` does where one is shown; then the blank line every
    section ends with (the table's own came before it)."""
    yield Text(APPROXIMATE_LEGEND, "dim")
    if 0.0 in shown:
        yield Text(SAME_STDERR_TIME_LEGEND, "dim")
    yield Text("")


def _header(analysis: Analysis) -> Group:
    """The transcript and its counts, then the protocol and the peers; at narrow widths a line
    breaks between facts, never between a count and its unit."""
    source, connection = analysis.source, analysis.connection
    lines: list[RenderableType] = []
    if source.connection is not None:
        heading = Text("connection ")
        heading.append_text(inert(source.connection, "bold"))
        if source.requirements is not None:
            heading.append(f"  requirements {printable(', '.join(source.requirements)) or '—'}")
        if source.test_status is not None:
            heading.append(f"  test {printable(source.test_status)}")
        lines.append(heading)
    named = inert(source.path, "bold")
    link = f" (link {source.link})" if source.link else ""
    named.append(f"  {source.format}{link}")
    counts = [
        plural(source.lines, "line"),
        plural(source.messages, "message"),
        plural(len(analysis.issues), "issue"),
        f"end {source.connection_end}",
    ]
    lines.append(Facts([named, *counts], indent=2 if source.connection is not None else 0))
    peers = [Text("agent ").append_text(_peer(connection.agent))]
    peers.append(Text("client ").append_text(_peer(connection.client)))
    lines.append(Facts([_protocol(connection), *peers], "  "))
    return Group(*lines)


def _protocol(connection: Connection) -> str:
    """`ACP v2 (initialize)`; an inferred version says why and how to choose the other."""
    version, source = connection.protocol_version, connection.protocol_source
    if source is ProtocolSource.INFERRED:
        other = 1 if version >= 2 else 2
        why = (
            f"from {connection.protocol_reason}"
            if connection.protocol_shown and connection.protocol_reason
            else "no initialize seen"
        )
        return f"ACP v{version} (inferred: {why}; --protocol {other} for v{other})"
    return f"ACP v{version} ({source})"


def _peer(peer: PeerInfo | None) -> Text:
    if peer is None or peer.name is None:
        return Text("unknown", "dim")
    text = inert(peer.name, "bold")
    if peer.version:
        text.append_text(inert(f" {peer.version}"))
    return text


def _resumes(rows: tuple[ResumeRow, ...]) -> FittedTable:
    """The resume rows; at narrow widths the columns with no value in any row go first (the
    marker latencies of a v1 connection), then `kind` and the least read numbers (`max gap`,
    `held`), then `end`, `mk`, …: no number is ever cut. The line, the session and
    the outcome stay."""
    table = FittedTable(RESUME_COLUMNS(), legend="resumes", title="Resumes", title_justify="left")
    for row in rows:
        session = inert(("└ " if row.role is Role.CHILD else "") + short_id(row.session_id))
        table.add_row(
            str(row.request_line),
            session,
            inert(_method(row)),
            Text(row.outcome.value, OUTCOME_STYLE[row.outcome]),
            _end(row),
            str(row.marker_count),
            str(row.replayed_updates),
            str(row.held_updates),
            latency(row.request_to_marker_ms, row.approximate),
            latency(row.marker_to_response_ms, row.approximate),
            latency(row.request_to_response_ms, row.approximate),
            latency(row.max_replay_gap_ms, row.approximate),
        )
    return table


def RESUME_COLUMNS() -> list[Column]:
    """The columns of the resumes table, with what each gives up when space is short."""
    right = "right"
    return [
        Column("line", right),
        Column("session"),  # (short ids: never long)
        Column("kind", drop=1),
        Column("outcome"),
        Column("end", drop=4),  # (its error code tells a refused request from a cut replay)
        Column("mk", right, drop=5),
        Column("repl", right, drop=7),
        Column("held", right, drop=3),
        Column("→marker", right, drop=8, idle_first=True),
        Column("marker→resp", right, drop=9, idle_first=True),
        Column("total", right, drop=6),
        Column("max gap", right, drop=2),
    ]


def _method(row: ResumeRow) -> str:
    if row.role is Role.CHILD:
        return "child"
    if row.method == "session/resume":
        return "resume" if row.replay_from is not None else "no-replay"
    return row.method.removeprefix("session/")


def _end(row: ResumeRow) -> Text:
    text = row.end.value
    if row.error_code is not None:
        text += f" {row.error_code}"
    if row.cancelled:
        text += " (cancelled)"
    return Text(text)


def _findings(findings: tuple[Finding, ...]) -> Iterator[RenderableType]:
    """A table per severity, the first `FINDINGS_SHOWN` findings of each rule in it (in line
    order), and a line per rule that has more, saying how many and how to see them all."""
    counts = Counter((f.severity, f.rule) for f in findings)
    for severity in Severity:
        total = sum(n for (level, _), n in counts.items() if level is severity)
        if not total:
            continue
        shown: Counter[str] = Counter()
        group: list[Finding] = []
        for finding in findings:
            if finding.severity is severity and shown[finding.rule] < FINDINGS_SHOWN:
                shown[finding.rule] += 1
                group.append(finding)
        title = plural(total, severity.value)
        table = Table(
            title=title,
            title_justify="left",
            title_style=SEVERITY_STYLE[severity],
            box=box.SIMPLE_HEAD,
            pad_edge=False,
        )
        table.add_column("line", justify="right")
        table.add_column("rule", style=SEVERITY_STYLE[severity], no_wrap=True)
        table.add_column("message")  # (a long session id wraps at its hyphens: `Wrapped`)
        for finding in group:
            table.add_row(str(finding.line), finding.rule, Wrapped(inert(finding.message)))
        yield table
        for rule, shown_count in shown.items():
            if (more := counts[severity, rule] - shown_count) > 0:
                more_findings = f"{more:,} more {rule} finding{'' if more == 1 else 's'}"
                yield Text(f"… and {more_findings} (--format json lists all)")


def _issues(analysis: Analysis) -> Iterator[RenderableType]:
    issues = analysis.issues
    if not issues:
        return
    table = Table(
        title=plural(len(issues), "input issue"),
        title_justify="left",
        title_style="yellow",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
    )
    table.add_column("line", justify="right")
    table.add_column("kind", no_wrap=True)
    table.add_column("message")
    for issue in issues[:ISSUES_SHOWN]:
        table.add_row(str(issue.line), issue.kind, Wrapped(inert(issue.message)))
    yield table
    if len(issues) > ISSUES_SHOWN:
        yield Text(f"… and {len(issues) - ISSUES_SHOWN} more issues (--format json lists all)")


def _verdict(analysis: Analysis) -> Text:
    if not analysis.findings:
        return Text("No findings.", "green")
    severities = Counter(f.severity for f in analysis.findings)
    counts = ", ".join(plural(severities[s], s.value) for s in Severity if severities[s])
    return Text(f"Findings: {counts}.")
