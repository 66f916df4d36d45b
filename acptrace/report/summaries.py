"""What a latency report is made of: per-file summaries from the workers, groups, the report."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from acptrace.judge.idle_timers import IdleVerdict
from acptrace.model.domain import (
    Finding,
    Outcome,
    PeerInfo,
    ResumeRow,
    Severity,
    WindowEnd,
    connection_name,
)
from acptrace.report.stats import Distribution


class GroupBy(StrEnum):
    """What puts files into one group."""

    AGENT = "agent"
    AGENT_VERSION = "agent-version"
    CLIENT = "client"
    FILE = "file"
    DIRECTORY = "directory"


class Metric(StrEnum):
    """A per-resume number whose distribution a group reports."""

    MARKER_TO_RESPONSE = "marker_to_response_ms"
    REQUEST_TO_MARKER = "request_to_marker_ms"
    REQUEST_TO_RESPONSE = "request_to_response_ms"
    THROUGHPUT = "replay_updates_per_s"

    @property
    def label(self) -> str:
        """A short human name."""
        match self:
            case Metric.MARKER_TO_RESPONSE:
                return "marker → response"
            case Metric.REQUEST_TO_MARKER:
                return "request → marker"
            case Metric.REQUEST_TO_RESPONSE:
                return "request → response"
            case Metric.THROUGHPUT:
                return "replay throughput"

    @property
    def unit(self) -> str:
        """`ms` or `updates/s`."""
        return "updates/s" if self is Metric.THROUGHPUT else "ms"

    @property
    def higher_is_worse(self) -> bool:
        """Latencies regress upwards, throughput downwards."""
        return self is not Metric.THROUGHPUT


FEW_REPLAYS = 20
"""Percentiles of fewer values than this are marked as such in every output: with so few, one
more replay moves a p90 or a p99 a lot."""


def few_samples(distribution: Distribution) -> bool:
    """Whether the distribution's percentiles come from fewer than `FEW_REPLAYS` values."""
    return distribution.count < FEW_REPLAYS


UNKNOWN = "unknown"
"""The group of a file whose `initialize` does not name what the grouping asks for."""

INCOMPLETE = (
    Outcome.TRUNCATED,
    Outcome.COMPLETE_FAILED,
    Outcome.UNMARKED_SUCCESS,
    Outcome.AMBIGUOUS,
    Outcome.UNKNOWN,
)
"""Outcomes of a replaying resume that did not end with a certified, successful replay."""


@dataclass(frozen=True, slots=True)
class FileSummary:
    """What a worker sends back for one transcript: small, picklable, no transcript text kept."""

    path: str
    """The path as given."""
    agent: PeerInfo | None
    """The Agent's `initialize` result."""
    client: PeerInfo | None
    """The Client's `initialize` request."""
    resumes: tuple[ResumeRow, ...]
    """Every outcome row."""
    findings: tuple[Finding, ...]
    """Every finding."""
    issues: int
    """How many input issues the file had."""
    connection: str | None = None
    """In a file that holds several connections, the one summarised (each is summarised on its
    own, like a file); None for a file of one connection."""
    started_us: int | None = None
    """The wall-clock time of the connection's first request that has one (microseconds since
    the epoch, as the `requests` table holds it): what orders places in time (`first at`)."""

    @property
    def where(self) -> str:
        """The path, and the connection where the file holds several (for references)."""
        return connection_name(self.path, self.connection)


@dataclass(frozen=True, slots=True)
class FileError:
    """A file that could not be analysed; the report goes on without it."""

    path: str
    """The path as given."""
    message: str
    """Why, in one line."""


@dataclass(frozen=True, slots=True)
class ResumeRef:
    """One resume, pointed at by file and line, for the slowest and incomplete lists."""

    path: str
    """The transcript."""
    line: int
    """The line of the request."""
    session_id: str
    """The session the row judges."""
    outcome: Outcome
    """The outcome class."""
    end: WindowEnd
    """How the window closed."""
    error_code: int | None
    """The error response's code."""
    replayed_updates: int
    """Updates before the marker."""
    marker_to_response_ms: float | None
    """Marker -> response."""
    request_to_response_ms: float | None
    """Request -> response."""


@dataclass(frozen=True, slots=True)
class RuleCount:
    """How often one rule fired at one level in a group, and where first."""

    rule: str
    """The rule ID."""
    severity: Severity
    """The level of these findings (a rule reported at two levels has a count for each)."""
    count: int
    """How many findings."""
    first: tuple[tuple[str, int], ...]
    """(path, line) of the first few findings."""


@dataclass(frozen=True, slots=True)
class Group:
    """Everything reported for one group of transcripts."""

    name: str
    """The group's key (an agent name, a path, …; `unknown` when the transcript does not say)."""
    connections: int
    """Transcripts (one connection each)."""
    issues: int
    """Input issues over all its transcripts."""
    resumes: int
    """Rows for requested sessions (children are counted apart)."""
    replaying: int
    """Of those, the replaying ones (`replayFrom` given, or a v1 `session/load`)."""
    outcomes: dict[Outcome, int]
    """Requested rows by outcome, every outcome present (0 when none)."""
    replay_outcomes: dict[Outcome, int]
    """Replaying requested rows by outcome: what the rates are shares of (`rate`)."""
    child_outcomes: dict[Outcome, int]
    """Rows for announced child sessions by outcome."""
    findings: tuple[RuleCount, ...]
    """Findings by rule ID, most frequent first."""
    severities: dict[Severity, int]
    """Findings by level."""
    metrics: dict[Metric, Distribution]
    """The distribution of each metric over the replaying requested rows that have it."""
    samples: dict[Metric, tuple[float, ...]]
    """The values behind each distribution (for charts; not written to report.json)."""
    slowest: tuple[ResumeRef, ...]
    """The replaying resumes with the longest marker -> response, slowest first."""
    incomplete: tuple[ResumeRef, ...]
    """The first replaying resumes with an outcome in `INCOMPLETE`, in file and line order."""
    incomplete_total: int
    """How many there are in all."""
    idle_timers: tuple[IdleVerdict, ...] = ()
    """For each idle timeout judged, the replays (requested and children) it would have cut."""

    @property
    def loaded(self) -> int:
        """Replaying resumes that were v1 loads (`loaded`: no marker expected)."""
        return self.replay_outcomes[Outcome.LOADED]

    @property
    def expecting_marker(self) -> int:
        """Replaying resumes that should end with a marker: all but the v1 loads."""
        return self.replaying - self.loaded

    def rate(self, outcome: Outcome) -> float | None:
        """The share of this outcome among the replays that expect a marker (a v1 load is no
        marker missing), or for `loaded` among every replay; None when there are none."""
        whole = self.replaying if outcome is Outcome.LOADED else self.expecting_marker
        if not whole:
            return None
        return self.replay_outcomes[outcome] / whole


@dataclass(frozen=True, slots=True)
class Report:
    """A latency report over many transcripts."""

    group_by: GroupBy
    """How files were grouped."""
    groups: tuple[Group, ...]
    """The groups, by name (`unknown` last)."""
    files: int
    """Transcript files analysed (a file that holds several connections counts once)."""
    errors: tuple[FileError, ...]
    """Files that could not be analysed."""
