"""Putting file summaries into groups and adding each group up."""

from __future__ import annotations

import bisect
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import PurePath

from acptrace.judge.idle_timers import DEFAULT_IDLE_TIMEOUTS_MS, idle_verdicts
from acptrace.model.domain import Outcome, PeerInfo, ResumeRow, Role, Severity
from acptrace.report.stats import DIGITS, describe, log_edges
from acptrace.report.summaries import (
    CUT,
    MARKER_OWED,
    REPLAY_METRICS,
    UNKNOWN,
    FileSummary,
    Group,
    GroupBy,
    Metric,
    ResumeRef,
    RuleCount,
    When,
)
from acptrace.report.turn_groups import add_up_turns

SLOWEST_SHOWN = 10
"""Slowest replays listed per group."""
CUT_SHOWN = 50
"""Cut replays listed per group (all are counted)."""
LOCATIONS_SHOWN = 3
"""Locations listed per rule and group."""


def group_key(summary: FileSummary, by: GroupBy) -> str:
    """The name of the group a file belongs to."""
    match by:
        case GroupBy.AGENT:
            return _name(summary.agent)
        case GroupBy.AGENT_VERSION:
            if summary.agent is None or summary.agent.name is None:
                return UNKNOWN
            return f"{summary.agent.name} {summary.agent.version or UNKNOWN}"
        case GroupBy.CLIENT:
            return _name(summary.client)
        case GroupBy.FILE:
            return summary.path
        case GroupBy.DIRECTORY:
            return summary.path if summary.path == "-" else str(PurePath(summary.path).parent)


def _name(peer: PeerInfo | None) -> str:
    return peer.name if peer is not None and peer.name else UNKNOWN


def build_groups(
    summaries: Iterable[FileSummary],
    by: GroupBy,
    idle_timeouts_ms: Sequence[float] = DEFAULT_IDLE_TIMEOUTS_MS,
) -> tuple[Group, ...]:
    """One group per key, sorted by name with `unknown` last (idle timers judged for these)."""
    members: dict[str, list[FileSummary]] = defaultdict(list)
    for summary in summaries:
        members[group_key(summary, by)].append(summary)
    names = sorted(members, key=lambda name: (name == UNKNOWN, name))
    return tuple(build_group(name, members[name], idle_timeouts_ms) for name in names)


def build_group(
    name: str,
    summaries: Sequence[FileSummary],
    idle_timeouts_ms: Sequence[float] = DEFAULT_IDLE_TIMEOUTS_MS,
) -> Group:
    """Add up one group's files."""
    located = [
        (s.when(index), s.where, row) for index, s in enumerate(summaries) for row in s.resumes
    ]
    requested = [(when, path, row) for when, path, row in located if row.role is Role.REQUESTED]
    replaying = [(when, path, row) for when, path, row in requested if is_replaying(row)]
    rows = [row for _, _, row in replaying]
    children = [row for _, _, row in located if row.role is Role.CHILD]
    turn_samples, turns = add_up_turns(summaries)
    samples = {metric: tuple(_values(metric, rows)) for metric in REPLAY_METRICS} | turn_samples
    marker_outcomes = _by_outcome(row for row in rows if owes_marker(row))
    headline = choose_headline(sum(marker_outcomes.values()) > 0, samples)
    cut = sorted((item for item in replaying if item[2].outcome in CUT), key=_in_time)
    return Group(
        name=name,
        connections=len(summaries),
        issues=sum(s.issues for s in summaries),
        resumes=len(requested),
        replaying=len(replaying),
        outcomes=_by_outcome(row for _, _, row in requested),
        replay_outcomes=_by_outcome(rows),
        marker_outcomes=marker_outcomes,
        load_outcomes=_by_outcome(row for row in rows if is_load(row)),
        child_outcomes=_by_outcome(children),
        findings=_rule_counts(summaries),
        severities=_by_severity(summaries),
        metrics={metric: describe(values) for metric, values in samples.items()},
        samples=samples,
        headline=headline,
        slowest=_slowest(replaying, headline),
        cut=tuple(_ref(path, row) for _, path, row in cut[:CUT_SHOWN]),
        cut_total=len(cut),
        turns=turns,
        idle_timers=idle_verdicts((row for _, _, row in located), idle_timeouts_ms),
    )


def _in_time(item: tuple[When, str, ResumeRow]) -> tuple[When, int]:
    return item[0], item[2].request_line


def is_replaying(row: ResumeRow) -> bool:
    """A resume with `replayFrom`, or a `session/load` (which always replays); not a v1 resume
    whose `replayFrom` was no replay (`no_replay`: v1 has no cursor)."""
    return row.replaying and row.outcome is not Outcome.NO_REPLAY


def is_load(row: ResumeRow) -> bool:
    """A `session/load` (either version): it owes no marker."""
    return row.method == "session/load"


def owes_marker(row: ResumeRow) -> bool:
    """Whether a row owes a marker (rules.md §11): a v2 replaying `session/resume` or a child
    announced in one, neither `ambiguous` (overlapping) nor `refused` (nothing replayed). A v1
    resume opens no replay (`no_replay`) and a load owes none."""
    return (
        row.method == "session/resume"
        and row.replay_from is not None
        and row.outcome in MARKER_OWED
    )


def choose_headline(owed: bool, samples: Mapping[Metric, Sequence[float]]) -> Metric:
    """The latency a group leads with: marker → response, the figure the RFD's marker exists
    for, where a replay owes a marker and some replay has it; request → response otherwise
    (no row owes a marker, as for v1 Agents, or none sent one), so that the percentiles, the
    charts and the slowest list say something instead of a column of dashes."""
    if owed and samples[Metric.MARKER_TO_RESPONSE]:
        return Metric.MARKER_TO_RESPONSE
    return Metric.REQUEST_TO_RESPONSE


def metric_value(metric: Metric, row: ResumeRow) -> float | None:
    """One of `REPLAY_METRICS` for one row; throughput is replayed updates per second from the
    request to the marker, for rows with a marker, a positive request -> marker time and
    something replayed (a replay of nothing has no rate: as 0/s it would drag the percentiles
    and a throughput gate down for Agents that answer an empty history at once)."""
    match metric:
        case Metric.MARKER_TO_RESPONSE:
            return row.marker_to_response_ms
        case Metric.REQUEST_TO_MARKER:
            return row.request_to_marker_ms
        case Metric.REQUEST_TO_RESPONSE:
            return row.request_to_response_ms
        case Metric.THROUGHPUT:
            elapsed = row.request_to_marker_ms
            if row.marker_line is None or elapsed is None or elapsed <= 0:
                return None
            if row.replayed_updates == 0:
                return None
            return round(row.replayed_updates / (elapsed / 1000), DIGITS)
        case _:  # (the turn metrics: `acptrace.report.turn_groups`)
            raise ValueError(f"{metric.value} is not a metric of resumes")


def _values(metric: Metric, rows: Iterable[ResumeRow]) -> Iterator[float]:
    """The row's measured values (an estimate from a Zed dump's stderr times is left out)."""
    for row in rows:
        value = None if row.approximate else metric_value(metric, row)
        if value is not None:
            yield value


def _by_outcome(rows: Iterable[ResumeRow]) -> dict[Outcome, int]:
    counts = Counter(row.outcome for row in rows)
    return {outcome: counts[outcome] for outcome in Outcome}


def _by_severity(summaries: Sequence[FileSummary]) -> dict[Severity, int]:
    counts = Counter(f.severity for s in summaries for f in s.findings)
    return {severity: counts[severity] for severity in Severity}


def _rule_counts(summaries: Sequence[FileSummary]) -> tuple[RuleCount, ...]:
    """A count per rule and level (a rule of two levels, as CAP-UNADVERTISED, gets a row for
    each), the errors first, then the most frequent; each with the first places it was found
    at, in time order (connections by their start, lines in order within one)."""
    counts: Counter[tuple[str, Severity]] = Counter()
    first: dict[tuple[str, Severity], list[tuple[When, int, str]]] = defaultdict(list)
    for index, summary in enumerate(summaries):
        when = summary.when(index)
        for finding in summary.findings:
            key = (finding.rule, finding.severity)
            counts[key] += 1
            places = first[key]
            if len(places) < LOCATIONS_SHOWN or (when, finding.line) < places[-1][:2]:
                bisect.insort(places, (when, finding.line, summary.where))
                del places[LOCATIONS_SHOWN:]
    ordered = sorted(counts, key=lambda key: (-key[1].rank, -counts[key], key[0]))
    return tuple(
        RuleCount(*key, counts[key], tuple((where, line) for _, line, where in first[key]))
        for key in ordered
    )


def _slowest(rows: Sequence[tuple[When, str, ResumeRow]], metric: Metric) -> tuple[ResumeRef, ...]:
    """The rows with the longest value of the metric (measured, not estimated), slowest first."""
    timed = [
        (value, when, path, row)
        for when, path, row in rows
        if not row.approximate and (value := metric_value(metric, row)) is not None
    ]
    timed.sort(key=lambda item: (-item[0], item[1], item[3].request_line))
    return tuple(_ref(path, row) for _, _, path, row in timed[:SLOWEST_SHOWN])


def _ref(path: str, row: ResumeRow) -> ResumeRef:
    return ResumeRef(
        path=path,
        line=row.request_line,
        session_id=row.session_id,
        outcome=row.outcome,
        end=row.end,
        error_code=row.error_code,
        replayed_updates=row.replayed_updates,
        # (an estimate is not shown as a measured latency: `_values`)
        marker_to_response_ms=None if row.approximate else row.marker_to_response_ms,
        request_to_response_ms=None if row.approximate else row.request_to_response_ms,
    )


TOP = "./"
"""The name of the group of files in the shared folder itself (`--by directory`)."""


def shared_edges(groups: Sequence[Group], metric: Metric, bins: int) -> tuple[float, ...] | None:
    """Log-spaced histogram bin edges covering every group's positive samples of the metric,
    so that the groups' histograms compare (None when there are none)."""
    values = [v for g in groups for v in g.samples[metric] if v > 0]
    if not values:
        return None
    return log_edges(min(values), max(values), bins)
