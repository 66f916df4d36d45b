"""Domain objects shared by every stage: closed sets as enums, the records a library user meets
and the per-message ones as frozen msgspec Structs (`msgspec.structs.replace` copies one).

Times are integer nanoseconds inside (`ts_ns` wall clock since the Unix epoch, `mono_ns` a
monotonic clock with an arbitrary origin); latencies become float milliseconds only at the edges.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

import msgspec

from acptrace.model.json_id import JsonId as JsonId  # (re-exported: most modules take it from here)
from acptrace.model.tags import MESSAGE_TAGS, SNAPSHOT_TAG, USER_MESSAGE_TAGS
from acptrace.model.turns import Activity, PermissionRow, ToolCallRow, TurnRow, Watch

INT64 = range(-(2**63), 2**63)
"""The integers an id may be (SCHEMA `RequestId`: int64) and a nanosecond count (`mono_ns`)."""


class Direction(StrEnum):
    """Which way a message travelled."""

    C2A = "c2a"
    A2C = "a2c"
    UNKNOWN = "unknown"

    def opposite(self) -> Direction:
        """The direction an answer to a message travelling this way takes."""
        if self is C2A:
            return A2C
        return C2A if self is A2C else UNKNOWN_DIRECTION


class MessageKind(StrEnum):
    """The JSON-RPC shape of one message."""

    REQUEST = "request"
    NOTIFICATION = "notification"
    RESPONSE = "response"


C2A, A2C, UNKNOWN_DIRECTION = Direction.C2A, Direction.A2C, Direction.UNKNOWN
REQUEST, NOTIFICATION, RESPONSE = (
    MessageKind.REQUEST, MessageKind.NOTIFICATION, MessageKind.RESPONSE
)  # fmt: skip
"""The members of `Direction` and `MessageKind`, for the code every message goes through: on
Python 3.11 a member read off its Enum class (`Direction.C2A`) goes through the hook of
`EnumType.__getattr__`, ~850 instructions, where a module's name costs a dictionary look-up."""


class Severity(StrEnum):
    """How bad a finding is, from the spec's MUST / SHOULD / fact levels."""

    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"

    @property
    def rank(self) -> int:
        """Higher is worse; used by `--fail-on` and sorting."""
        return _SEVERITY_RANK[self]

    def demoted(self) -> Severity:
        """One level down (error -> warning -> note); a note stays a note."""
        match self:
            case Severity.ERROR:
                return Severity.WARNING
            case Severity.WARNING | Severity.NOTE:
                return Severity.NOTE


_SEVERITY_RANK = {Severity.NOTE: 1, Severity.WARNING: 2, Severity.ERROR: 3}


class Outcome(StrEnum):
    """The outcome class of one replay (outcomes.md)."""

    COMPLETE = "complete"
    COMPLETE_FAILED = "complete_failed"
    TRUNCATED = "truncated"
    REFUSED = "refused"
    UNMARKED_SUCCESS = "unmarked_success"
    NO_REPLAY = "no_replay"
    LOADED = "loaded"
    AMBIGUOUS = "ambiguous"
    UNKNOWN = "unknown"


class WindowEnd(StrEnum):
    """How a replay window closed."""

    SUCCESS = "success"
    ERROR = "error"
    DISCONNECT = "disconnect"
    TRACE_END = "trace_end"


class ConnectionEnd(StrEnum):
    """Whether the transcript records the end of the connection."""

    RECORDED = "recorded"
    ASSUMED = "assumed"
    UNKNOWN = "unknown"


class ProtocolSource(StrEnum):
    """Where the protocol version used for the rules came from."""

    INITIALIZE = "initialize"
    """The latest success response to `initialize`."""
    INITIALIZE_REQUEST = "initialize_request"
    """The `initialize` request, when no success response carries a version."""
    INFERRED = "inferred"
    OPTION = "option"


class Role(StrEnum):
    """Whether an outcome row is for the session the request named or an announced child."""

    REQUESTED = "requested"
    CHILD = "child"


class IssueKind(StrEnum):
    """What is wrong with the input (not a protocol finding): the stable names of `Issue.kind`."""

    NOT_JSON = "not_json"
    TOO_DEEP = "too_deep"
    NOT_UTF8 = "not_utf8"
    TRUNCATED_LINE = "truncated_line"
    NOT_JSONRPC = "not_jsonrpc"
    UNKNOWN_ENVELOPE = "unknown_envelope"
    UNKNOWN_DIRECTION = "unknown_direction"
    TIME_WENT_BACK = "time_went_back"
    LINE_TOO_LONG = "line_too_long"
    BAD_TIMESTAMP = "bad_timestamp"
    MIXED_FORMAT = "mixed_format"
    CRLF = "crlf"
    RECORDING_GAP = "recording_gap"
    AFTER_CLOSE = "after_close"
    REPEATED_MESSAGES = "repeated_messages"
    FRAMES_DROPPED = "frames_dropped"
    TRUNCATED_PAYLOAD = "truncated_payload"
    UNKNOWN_PROTOCOL_VERSION = "unknown_protocol_version"
    LONE_SURROGATE = "lone_surrogate"


class Issue(msgspec.Struct, frozen=True, gc=False):
    """An input problem that is not a protocol finding (a line that is not JSON, …)."""

    line: int
    """1-based line number in the input."""
    kind: IssueKind
    """Stable machine name: `not_json`, `not_utf8`, `truncated_line`, …"""
    message: str
    """One human sentence, with a short excerpt where that helps."""


class Finding(msgspec.Struct, frozen=True, gc=False):
    """One violation of a rule from the catalogue, at one line of the transcript."""

    rule: str
    """The stable rule ID, e.g. `RC-MISSING`."""
    severity: Severity
    """The level after any demotion."""
    line: int
    """The line that shows the violation."""
    message: str
    """What happened, in one sentence (says why when the level was demoted)."""
    session_id: str | None = None
    """The session the finding concerns, when there is one."""
    request_id: JsonId = None
    """The id of the request the finding concerns (the resume, the unanswered request…)."""


class Message(msgspec.Struct, frozen=True, gc=False):
    """One JSON-RPC message, reduced to what the analysis needs.

    A msgspec Struct rather than a dataclass: one is made per message, and a Struct is made
    twenty times faster than a frozen dataclass.
    """

    line: int
    """Input line (a batch shares its line between its members)."""
    direction: Direction
    """Which way it travelled (UNKNOWN until inferred, for formats without a direction)."""
    kind: MessageKind
    """Request, notification or response."""
    id: JsonId = None
    """JSON-RPC id (requests and responses)."""
    method: str | None = None
    """Method name (requests and notifications)."""
    session_id: str | None = None
    """`params.sessionId` when it is a string."""
    update_tag: str | None = None
    """`params.update.sessionUpdate` of a `session/update`."""
    update_session_id: str | None = None
    """`params.update.sessionId`: the child a `subagent_update` announces."""
    replay_from: Any = None
    """`params.replayFrom` of a `session/resume` (None when absent or null)."""
    cancel_target: JsonId = None
    """`params.requestId` of a `$/cancel_request`."""
    is_error: bool = False
    """A response carrying `error`."""
    error_code: int | None = None
    """`error.code` of an error response."""
    result_session_ids: tuple[str, ...] = ()
    """Session IDs a result names (`result.sessionId`, `result.sessions[].sessionId`)."""
    peer: PeerInfo | None = None
    """Name, version and protocol version an `initialize` request or result announces."""
    in_batch: bool = False
    """Whether it came inside a batch array (array order is taken as the order)."""
    message_id: str | None = None
    """An update's `messageId`, when it is a string (message updates carry one on v2)."""
    capabilities: frozenset[str] | None = None
    """What an `initialize` result advertises (`acptrace.decode.capabilities` names them), or
    what a `subagent_update` sets for its child (empty: cleared); None: it says nothing."""
    ts_ns: int | None = None
    """Wall clock, nanoseconds since the Unix epoch."""
    mono_ns: int | None = None
    """Monotonic clock, nanoseconds."""
    approximate: bool = False
    """`ts_ns` is an estimate, not a measurement (a Zed dump's last timed stderr line)."""
    replay_from_given: bool = False
    """A `session/resume` with a `replayFrom` member, `null` included (v2 evidence, §7)."""
    shaped_for: int | None = None
    """For an `initialize` result: the version its members are shaped for (2: `capabilities`
    or `info`; 1: `agentCapabilities` or `agentInfo`; None: neither, or both)."""
    activity: Activity | None = None
    """What it says of a turn's work: a tool or state update's members, a permission request's
    tool call and options, a permission or v1 prompt response's answer (None: nothing)."""


class Tally(msgspec.Struct, frozen=True, gc=False):
    """Messages of one kind among several (a run's, a window's, a session's): how many, and
    where the first was."""

    first_line: int
    """The first one's line."""
    count: int
    """How many."""

    def plus(self, more: Tally | None) -> Tally:
        """This tally and `more` (later ones) together."""
        if more is None:
            return self
        return Tally(self.first_line, self.count + more.count)

    @staticmethod
    def of(line: int, found: bool) -> Tally | None:
        """One message at `line` when `found`, else none."""
        return Tally(line, 1) if found else None


def add_tally(tally: Tally | None, more: Tally | None) -> Tally | None:
    """Two tallies (either may be none) together, `tally`'s first."""
    if tally is None:
        return more
    return tally.plus(more)


class UpdateRun(msgspec.Struct, frozen=True, gc=False):
    """Plain `session/update`s for one session on consecutive lines, taken together.

    Most lines of a big transcript are such runs (a replay, a streamed answer). Following a
    run needs its first update, how many there were and the few never-history ones among
    them, not a `Message` for each; the analysis treats it as those messages one by one.
    Markers and `subagent_update`s never join a run.
    """

    first: Message
    """The first update (lines `first.line` to `first.line + count - 1`)."""
    count: int
    """How many updates, the first included."""
    snapshot: bool = False
    """A `state_update` was among them."""
    live: tuple[tuple[int, str], ...] = ()
    """(line, tag) of each never-history update, by the tag policy of the analysis."""
    pauses: tuple[tuple[int, int], ...] = ()
    """(line, gap_ns) of each update that came after a longer silence since the update before
    it than any before it in the run (`Stamp.ns_until`); the last is the run's largest inner gap.
    Measured only where the run was read for them (`watched`: `Watch.PAUSES`), else empty."""
    last: Stamp | None = None
    """The last update's line and times (None: the run is its first update)."""
    lines: tuple[bytes, ...] = ()
    """Its lines, when a view that shows payloads reads it (`Execution.payloads`): each is
    read into its message only for the view, the analysis follows the run as one."""
    plain: tuple[Any, ...] = ()
    """With its lines: each line as the run loop decoded it (a `decode.shapes.PlainLine`, None
    for the first and any other it did not decode), so that a view does not decode it again."""
    canonical: bool = False
    """With its lines (or sampled lines): each is a canonical record (its message is `msg`),
    not a bare message."""
    users: Tally | None = None
    """Its `user_message` and `user_message_chunk` updates (RC-REPLAY-WITHOUT-CURSOR)."""
    unidentified: Tally | None = None
    """Its message updates without a string `messageId` (LC-NO-MESSAGE-ID)."""
    evidence: tuple[tuple[int, str], ...] = ()
    """(line, tag) of the first update of each tag only one protocol version has (rules.md §7's
    inference); a run of one leaves it to its message."""
    activity: tuple[tuple[Stamp, Activity], ...] = ()
    """Where and what each of its tool and state updates says (after the first), when it was
    read for them (`watched`); a run of one leaves it to its message."""
    first_output: Stamp | None = None
    """Where and when its first `agent_message`/`agent_thought` update (or chunk) was, when it
    was read for it (`watched`) and that update is not its first."""
    sampled: tuple[tuple[int, str | None, bytes], ...] = ()
    """(line, its tag, the line) of the updates the schema check reads (rules.md §12), when the
    analysis checks it: the run's first, and any that is the first of its tag on the
    connection (or, under `--schema full`, every update, its tag then None: not read yet)."""
    watched: int = Watch.EVERYTHING
    """What the run was read for (`Watch`): without `ACTIVITY` its tool and state updates
    after the first were only counted, without `FIRST_OUTPUT` its outputs, without `PAUSES` its
    silences were not measured; with `LINES` their activity is still in `deferred`."""
    deferred: tuple[tuple[int, bytes], ...] = ()
    """(line, the line) of its tool and state updates after the first whose activity is not
    read yet, when it was read ahead of the analysis (`watched`: `Watch.LINES`): the analysis
    reads it where it wants it (`acptrace.decode.runs.settled`)."""

    @staticmethod
    def single(message: Message, live: tuple[tuple[int, str], ...] = ()) -> UpdateRun:
        """One update that joined no run, as a run of one."""
        tag = message.update_tag
        is_message = tag in MESSAGE_TAGS
        return UpdateRun(
            message,
            1,
            tag == SNAPSHOT_TAG,
            live,
            users=Tally.of(message.line, tag in USER_MESSAGE_TAGS),
            unidentified=Tally.of(message.line, is_message and message.message_id is None),
        )

    @property
    def end(self) -> Stamp:
        """Where and when the run's last update came."""
        return self.last if self.last is not None else Stamp.of(self.first)


class PeerInfo(msgspec.Struct, frozen=True, gc=False):
    """What one side says about itself in `initialize`."""

    name: str | None = None
    """`info.name` (v2) or `clientInfo`/`agentInfo.name` (v1)."""
    version: str | None = None
    """The implementation's version string."""
    protocol_version: int | None = None
    """`protocolVersion`."""


class Stamp(msgspec.Struct, frozen=True, gc=False):
    """Where and when something happened in the transcript (made per update: a Struct)."""

    line: int
    """Input line."""
    ts_ns: int | None = None
    """Wall clock, when the format has one."""
    mono_ns: int | None = None
    """Monotonic clock, when the format has one."""
    approximate: bool = False
    """The times are estimates, not measurements (`Message.approximate`)."""

    def ms_until(self, later: Stamp | None) -> float | None:
        """Milliseconds from this stamp to `later`, rounded to the microsecond and never
        negative (`ns_until`; rules.md §9): a latency, as every view and table gives it."""
        if later is None:
            return None
        ns = self.ns_until(later)
        return None if ns is None else ns_ms(ns)

    def ms_to(self, ts_ns: int | None, mono_ns: int | None) -> float | None:
        """Milliseconds from this stamp to a later one with these times (`ms_until`)."""
        if self.mono_ns is not None and mono_ns is not None:
            return (mono_ns - self.mono_ns) / 1e6
        if self.ts_ns is not None and ts_ns is not None:
            return (ts_ns - self.ts_ns) / 1e6
        return None

    def ns_until(self, later: Stamp) -> int | None:
        """Nanoseconds from this stamp to `later`, never negative: monotonic when both have it,
        else wall; a negative difference is taken on the other clock when both ends have it
        and it is not negative there, else None (outcomes.md)."""
        if self.mono_ns is not None and later.mono_ns is not None:
            mono = later.mono_ns - self.mono_ns
            if mono >= 0:
                return mono
        if self.ts_ns is not None and later.ts_ns is not None:
            wall = later.ts_ns - self.ts_ns
            if wall >= 0:
                return wall
        return None

    @staticmethod
    def of(message: Message) -> Stamp:
        """The stamp of a message."""
        return Stamp(message.line, message.ts_ns, message.mono_ns, message.approximate)


_EXACT_NS = 2**53
"""Below it, `ns / 1e6` is within a millionth of a millisecond of its true value."""


def ns_ms(ns: int) -> float:
    """Nanoseconds (not negative) as milliseconds rounded to the microsecond: the float
    `round(ns / 1e6, 3)` gives, taken in integers (`round` of a float writes it out in decimal:
    thrice the instructions). The two agree but at a tie, which `round` settles by the float's
    binary value: `ns / 1e6` is off its true value by less than half its last place (below
    `_EXACT_NS`), a nanosecond's millionth of a millisecond is more than that, so only an exact
    half microsecond can round apart; it, and any larger count, goes to `round`."""
    if ns % 1000 == 500 or ns >= _EXACT_NS:
        return round(ns / 1e6, 3)
    return ((ns + 500) // 1000) / 1000


class ResumeRow(msgspec.Struct, frozen=True, gc=False):
    """The outcome of one replaying request (or non-replaying resume), or of one announced child."""

    request_id: JsonId
    """The id of the `session/resume` / `session/load` request."""
    session_id: str
    """The session the row judges (the requested session or the child)."""
    role: Role
    """`requested` or `child`."""
    parent_session_id: str | None
    """For a child: the session whose `subagent_update` announced it."""
    method: str
    """`session/resume` or `session/load`."""
    replay_from: Any
    """The request's `replayFrom` cursor as sent (None when absent)."""
    outcome: Outcome
    """The outcome class."""
    end: WindowEnd
    """How the window closed."""
    error_code: int | None
    """The error response's code, when it was an error."""
    cancelled: bool
    """The Client cancelled the request with `$/cancel_request`."""
    marker_count: int
    """Markers for the row's session in the window."""
    replayed_updates: int
    """Updates for the session before the marker."""
    held_updates: int
    """Updates for the session after the marker, before the response."""
    request_line: int
    """Line of the request."""
    marker_line: int | None
    """Line of the first marker."""
    response_line: int | None
    """Line of the response."""
    request_to_first_update_ms: float | None
    """Request -> first update for the session in the window."""
    request_to_marker_ms: float | None
    """Request -> marker."""
    marker_to_response_ms: float | None
    """Marker -> response: the RFD's headline figure."""
    request_to_response_ms: float | None
    """Request -> response."""
    announce_line: int | None = None
    """For a child: the line of its announcement."""
    max_replay_gap_ms: float | None = None
    """The longest silence between consecutive messages of the replay for the session: the
    request (a child's announcement), its updates, then the marker (the response when there is
    none); None without a replay, without times, or with approximate ones (the estimated times
    of messages between two timed stderr lines are equal: a silence there is unknown, not 0)."""
    replay_pauses: tuple[ReplayPause, ...] = ()
    """Each silence in the replay longer than every one before it (the last is
    `max_replay_gap_ms`): what an idle timer would have cut there; empty when the times are
    approximate."""
    approximate: bool = False
    """A latency of the row comes from an approximate time (`Stamp.approximate`): an estimate,
    never a measurement."""

    @property
    def replaying(self) -> bool:
        """A resume with `replayFrom`, or a `session/load` (which always replays)."""
        return self.replay_from is not None or self.method == "session/load"


class ReplayPause(msgspec.Struct, frozen=True, gc=False):
    """A silence in a replay longer than every one before it (idle-timer verdicts)."""

    gap_ms: float
    """How long it lasted."""
    updates_after: int
    """Replayed updates still to come after it: lost to a timer that fired in it."""


class SessionInfo(msgspec.Struct, frozen=True, gc=False):
    """What the transcript shows of one session."""

    session_id: str
    """The session ID."""
    parent_session_id: str | None
    """The session whose `subagent_update` announced it, for a child."""
    first_line: int
    """The first line that names it."""
    named_by: str
    """How it first became known: `session/new`, `session/resume`, `subagent_update`, …"""
    updates: int
    """`session/update` notifications for it."""
    resumes: int
    """`session/resume` / `session/load` requests for it."""
    prompts: int
    """`session/prompt` requests for it."""
    active_at_end: bool
    """Whether it was active when the transcript ended."""
    closed_line: int | None
    """The line of the last successful `session/close` response."""


class Connection(msgspec.Struct, frozen=True, gc=False):
    """Who talked, in which protocol version."""

    protocol_version: int
    """The version the rules were applied for."""
    protocol_source: ProtocolSource
    """Where that version came from."""
    agent: PeerInfo | None
    """The Agent's `initialize` result."""
    client: PeerInfo | None
    """The Client's `initialize` request."""
    protocol_reason: str | None = None
    """What showed the version (the `initialize` line, or the evidence of an inference)."""
    protocol_shown: bool = True
    """Something showed the version; False: inferred as v2 for want of any evidence (rules
    that judge what only v2 requires, LC-NO-MESSAGE-ID, are then not judged)."""


def connection_name(path: str, connection: str | None) -> str:
    """What one analysed connection is called: its path, and its connection in a file that
    holds several (`report.json [test_x.py::test_y]`)."""
    return path if connection is None else f"{path} [{connection}]"


class Source(msgspec.Struct, frozen=True, gc=False):
    """What was read."""

    path: str
    """The path as given (`-` for stdin)."""
    format: str
    """The input format that was used."""
    lines: int
    """Every line of the input, blank ones and a final line without newline included."""
    messages: int
    """JSON-RPC messages (a batch counts each member)."""
    events: int
    """Recorder events (`meta`, `stderr`)."""
    connection_end: ConnectionEnd
    """Whether the end of the connection is recorded."""
    link: str | None = None
    """For multi-hop traces: which link was analysed (`Proxy(0)<->Agent`)."""
    connection: str | None = None
    """In a file that holds several connections, the one analysed (an acp-tck test's `nodeid`,
    an acp-inspector-trace connection number); None for a file of one connection."""
    requirements: tuple[str, ...] | None = None
    """For an acp-tck test: the ids of the requirements it is listed under."""
    test_status: str | None = None
    """For an acp-tck test: its status in the report (`FAIL`, `PASS`, …)."""


class Analysis(msgspec.Struct, frozen=True, gc=False):
    """Everything acptrace learned from one transcript."""

    source: Source
    """What was read."""
    connection: Connection
    """Who talked, in which version."""
    resumes: tuple[ResumeRow, ...]
    """One row per replaying request, per non-replaying resume and per announced child."""
    findings: tuple[Finding, ...]
    """Rule violations, in line order."""
    issues: tuple[Issue, ...]
    """Input problems, in line order."""
    sessions: tuple[SessionInfo, ...] = ()
    """Every session the transcript names, in order of first appearance."""
    turns: tuple[TurnRow, ...] = ()
    """One row per `session/prompt`, in line order (docs/turns.md)."""
    tool_calls: tuple[ToolCallRow, ...] = ()
    """One row per tool call seen in a turn, in order of first appearance."""
    permissions: tuple[PermissionRow, ...] = ()
    """One row per `session/request_permission`, in line order."""

    def worst_severity(self) -> Severity | None:
        """The most severe finding's level, or None without findings."""
        return max((f.severity for f in self.findings), key=lambda s: s.rank, default=None)

    @property
    def looks_like_transcript(self) -> bool:
        """Whether some line of the input is a message, a recorder event or at least JSON-RPC
        gone wrong (a finding): False for an empty or blank file, a binary one (an image, an
        archive), JSON of another kind. Commands refuse such a file (docs/library.md)."""
        return bool(self.source.messages or self.source.events or self.findings)

    def not_a_transcript(self, quoting: bool = True) -> str | None:
        """Why the input does not look like a transcript (`looks_like_transcript`), or None;
        without `quoting`, what its first line holds is left out (`line 1: line is not JSON`):
        a report shared with others never shows what a file that is no transcript holds."""
        if self.looks_like_transcript:
            return None
        lines = self.source.lines
        if lines == 0:
            return "it is empty"
        telling = [i for i in self.issues if i.kind in _UNREAD_LINE]
        if not telling:
            return "every line is blank" if lines > 1 else "its one line is blank"
        first = next((i for i in telling if i.kind is IssueKind.NOT_UTF8), telling[0])
        what = "binary" if first.kind is IssueKind.NOT_UTF8 else "no line is a JSON-RPC message"
        said = first.message if quoting else first.message.split(": ", 1)[0]
        return f"{what}; line {first.line}: {said}"


_UNREAD_LINE = frozenset(
    {
        IssueKind.NOT_JSON,
        IssueKind.TOO_DEEP,
        IssueKind.NOT_UTF8,
        IssueKind.TRUNCATED_LINE,
        IssueKind.NOT_JSONRPC,
        IssueKind.UNKNOWN_ENVELOPE,
        IssueKind.LINE_TOO_LONG,
    }
)
"""The issues of a line that could not be read as a record (the others note a record read)."""
