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
from acptrace.model.excerpt import file_name
from acptrace.model.turns import PermissionRow, ToolCallRow, TurnRow
from acptrace.report.metrics import REPLAY_METRICS as REPLAY_METRICS
from acptrace.report.metrics import TURN_METRICS as TURN_METRICS
from acptrace.report.metrics import Metric as Metric
from acptrace.report.stats import Distribution
from acptrace.report.turn_summaries import TurnFigures


class GroupBy(StrEnum):
    """What puts files into one group."""

    AGENT = "agent"
    AGENT_VERSION = "agent-version"
    CLIENT = "client"
    FILE = "file"
    DIRECTORY = "directory"


FEW_REPLAYS = 20
"""Percentiles of fewer values than this are marked as such in every output: with so few, one
more replay moves a p90 or a p99 a lot."""


def few_samples(distribution: Distribution) -> bool:
    """Whether the distribution's percentiles come from fewer than `FEW_REPLAYS` values."""
    return distribution.count < FEW_REPLAYS


UNKNOWN = "unknown"
"""The group of a file whose `initialize` does not name what the grouping asks for."""

CUT = (Outcome.TRUNCATED, Outcome.COMPLETE_FAILED, Outcome.UNKNOWN)
"""Outcomes of a replay cut short: an error or the connection's end before it was whole
(`complete_failed`: after its marker), or a request still pending where the file stops. The
other replays that did not end certified have counts of their own: `unmarked_success` (all of
it, no marker: RC-MISSING), `refused` (nothing replayed) and `ambiguous` (overlapping)."""

MARKER_OWED = (
    Outcome.COMPLETE,
    Outcome.COMPLETE_FAILED,
    Outcome.TRUNCATED,
    Outcome.UNMARKED_SUCCESS,
    Outcome.UNKNOWN,
)
"""The outcomes of a replay that owes a marker (rules.md §11): the shares of these are of such
replays only (`Group.rate`)."""

LOAD_OUTCOMES = (
    Outcome.LOADED,
    Outcome.REFUSED,
    Outcome.TRUNCATED,
    Outcome.UNKNOWN,
    Outcome.AMBIGUOUS,
)
"""The outcomes of a `session/load` (which owes no marker): answered with success, refused,
cut, pending at the end, overlapping another replay."""


When = tuple[bool, int, int]
"""Where a connection stands in time among a group's: (no time, its start, its place in the
input), so that the connections with a time come first, earliest first, and the others in
input order."""


@dataclass(frozen=True, slots=True)
class FileSummary:
    """What a worker sends back for one transcript: small, picklable, no transcript text kept."""

    path: str
    """The path as given, as every output names a file (`file_name`, whatever was given)."""
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
    turns: tuple[TurnRow, ...] = ()
    """Every turn (`session/prompt`)."""
    tool_calls: tuple[ToolCallRow, ...] = ()
    """Every tool call seen in a turn."""
    permissions: tuple[PermissionRow, ...] = ()
    """Every permission request."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "path", file_name(self.path))

    @property
    def where(self) -> str:
        """The path, and the connection where the file holds several (for references)."""
        return connection_name(self.path, self.connection)

    def when(self, index: int) -> When:
        """Where it stands in time among a group's, `index` being its place in the input."""
        started = self.started_us
        return (started is None, started or 0, index)


@dataclass(frozen=True, slots=True)
class FileError:
    """A file that could not be analysed; the report goes on without it."""

    path: str
    """The path as given, as every output names a file (`file_name`, whatever was given): a
    name that is not UTF-8 is written into report.json like any other."""
    message: str
    """Why, in one line."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "path", file_name(self.path))


@dataclass(frozen=True, slots=True)
class ResumeRef:
    """One resume, pointed at by file and line, for the lists of slowest and cut replays."""

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
    """Of those, the replaying ones (`replayFrom` given, or a `session/load`)."""
    outcomes: dict[Outcome, int]
    """Requested rows by outcome, every outcome present (0 when none)."""
    replay_outcomes: dict[Outcome, int]
    """Replaying requested rows by outcome."""
    marker_outcomes: dict[Outcome, int]
    """The replaying requested rows that owe a marker (`owes_marker`: v2 replaying resumes,
    neither `ambiguous` nor `refused`) by outcome: what the marker shares are of (`rate`)."""
    load_outcomes: dict[Outcome, int]
    """Requested `session/load` rows by outcome (no marker owed: counted on their own line)."""
    child_outcomes: dict[Outcome, int]
    """Rows for announced child sessions by outcome."""
    findings: tuple[RuleCount, ...]
    """Findings by rule ID, errors first, then the most frequent."""
    severities: dict[Severity, int]
    """Findings by level."""
    metrics: dict[Metric, Distribution]
    """The distribution of each metric: of `REPLAY_METRICS` over the replaying requested rows
    that have it, of `TURN_METRICS` over the turns, tool calls and permission requests that
    have it (`TurnFigures.left_out` counts the others)."""
    samples: dict[Metric, tuple[float, ...]]
    """The values behind each distribution (for charts; not written to report.json)."""
    headline: Metric
    """The latency the group is summed up by: marker → response where a replay owes a marker
    and some replay has that latency; request → response otherwise (v1 Agents, loads only, v2
    Agents that send no marker), so that its percentiles, charts and slowest list have values."""
    slowest: tuple[ResumeRef, ...]
    """The replaying resumes with the longest `headline` latency, slowest first."""
    cut: tuple[ResumeRef, ...]
    """The first replaying resumes (in time order) with an outcome in `CUT`."""
    cut_total: int
    """How many there are in all."""
    turns: TurnFigures
    """Its turns, tool calls and permission requests: counts, what the statistics left out,
    tool calls by kind, the slowest (their distributions are in `metrics`)."""
    idle_timers: tuple[IdleVerdict, ...] = ()
    """For each idle timeout judged, the replays (requested and children) it would have cut."""

    @property
    def incomplete(self) -> tuple[ResumeRef, ...]:
        """`cut`, by the name report.json gives it (`incomplete`)."""
        return self.cut

    @property
    def incomplete_total(self) -> int:
        """`cut_total`, by the name report.json gives it."""
        return self.cut_total

    @property
    def loads(self) -> int:
        """Requested `session/load` rows (they owe no marker)."""
        return sum(self.load_outcomes.values())

    @property
    def loaded(self) -> int:
        """Loads answered with success (outcome `loaded`)."""
        return self.load_outcomes[Outcome.LOADED]

    @property
    def expecting_marker(self) -> int:
        """Replaying resumes that owe a marker (`marker_outcomes`); 0 for v1 Agents."""
        return sum(self.marker_outcomes.values())

    @property
    def owes_marker(self) -> bool:
        """Whether any replay of the group owes a marker (else no marker share applies)."""
        return self.expecting_marker > 0

    def rate(self, outcome: Outcome) -> float | None:
        """The share of an outcome among what owes it (rules.md §11): of the replays that owe
        a marker for the outcomes of such replays (`MARKER_OWED`); of the loads for `loaded`;
        of every replay for `refused` and `ambiguous`. None when there are none (and for
        `no_replay`, which is no replay)."""
        match outcome:
            case Outcome.LOADED:
                count, whole = self.loaded, self.loads
            case Outcome.REFUSED | Outcome.AMBIGUOUS:
                count, whole = self.replay_outcomes[outcome], self.replaying
            case Outcome.NO_REPLAY:
                return None
            case _:
                count, whole = self.marker_outcomes[outcome], self.expecting_marker
        return count / whole if whole else None


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
