"""What a latency report says of a group's turns, tool calls and permission requests, beyond
their distributions (which are the group's `metrics`, by `TURN_METRICS`): how many there were,
how many each statistic left out and why, tool calls by kind, and the slowest of each."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from acptrace.model.turns import TurnEnd
from acptrace.report.metrics import Metric
from acptrace.report.stats import Distribution


class LeftOut(StrEnum):
    """Why a turn, tool call or permission request has no value in a statistic."""

    DURING_REPLAY = "during_replay"
    """A replay of the turn's session was pending while it was open: its updates may be
    history (docs/turns.md)."""
    APPROXIMATE = "approximate"
    """Its times are estimates (a Zed dump's), not measurements."""
    REJECTED = "rejected"
    """The Agent answered the prompt with an error before any update for its session: no turn
    ran, and the time is the refusal's round trip (a turn that failed after it began is
    counted)."""
    UNFINISHED = "unfinished"
    """The recording lacks its end: a turn that ended by `disconnect` or `trace_end` (before
    any output, for the first output), a tool call that never reached a final status, a
    permission request never answered."""
    NO_OUTPUT = "no_output"
    """A finished turn that showed the user no message or thought (first output only)."""
    UNTIMED = "untimed"
    """Both ends are in the recording, but not the times (a format without times)."""

    @property
    def words(self) -> str:
        """How a table cell says it (`2 unfinished`)."""
        return self.value.replace("_", " ")


@dataclass(frozen=True, slots=True)
class TurnRef:
    """One turn, pointed at by file and the line of its prompt."""

    path: str
    """The transcript (and connection, where the file holds several)."""
    line: int
    """The line of the prompt."""
    session_id: str
    """Its session."""
    end: TurnEnd
    """How it ended."""
    stop_reason: str | None
    """Its `stopReason`."""
    first_output_ms: float | None
    """Prompt -> first output."""
    duration_ms: float | None
    """Prompt -> its end."""
    tool_calls: int
    """Tool calls first seen in it."""


@dataclass(frozen=True, slots=True)
class ToolCallRef:
    """One tool call, pointed at by file and the line it was first seen on."""

    path: str
    """The transcript (and connection)."""
    line: int
    """The line of its first update."""
    session_id: str
    """Its session."""
    tool_call_id: str
    """Its `toolCallId`."""
    kind: str | None
    """Its latest kind."""
    title: str | None
    """Its latest title (transcript text)."""
    last_status: str | None
    """Its latest status."""
    duration_ms: float | None
    """First update -> final status."""


@dataclass(frozen=True, slots=True)
class PermissionRef:
    """One permission request, pointed at by file and line."""

    path: str
    """The transcript (and connection)."""
    line: int
    """The line of the request."""
    session_id: str
    """Its session."""
    tool_call_id: str | None
    """The tool call it asked about."""
    outcome: str | None
    """`selected`, `cancelled`, `error`, or None (no answer)."""
    option_kind: str | None
    """The kind of the option chosen (`allow_once`, …)."""
    wait_ms: float | None
    """Request -> answer."""


@dataclass(frozen=True, slots=True)
class TurnFigures:
    """A group's turns, tool calls and permission requests, as the report adds them up."""

    turns: int
    """Turns (`session/prompt`s)."""
    tool_calls: int
    """Tool calls seen in a turn."""
    permission_requests: int
    """Permission requests."""
    left_out: dict[Metric, dict[LeftOut, int]]
    """For each of `TURN_METRICS`, the rows it has no value for, by reason (only the reasons
    that apply to it: `LEFT_OUT`)."""
    kinds: dict[str, Distribution]
    """The distribution of tool-call durations per kind (`unknown` for a tool call that was
    never given one), the kinds with most timed tool calls first."""
    slowest_first_output: tuple[TurnRef, ...]
    """The turns with the longest first output, slowest first."""
    longest_turns: tuple[TurnRef, ...]
    """The turns with the longest duration."""
    slowest_tool_calls: tuple[ToolCallRef, ...]
    """The tool calls with the longest duration."""
    longest_permission_waits: tuple[PermissionRef, ...]
    """The permission requests the Agent waited longest for."""

    @property
    def any(self) -> bool:
        """Whether the group has any turn, tool call or permission request."""
        return bool(self.turns or self.tool_calls or self.permission_requests)


NO_KIND = "unknown"
"""The kind of a tool call that was never given one."""

LEFT_OUT = {
    Metric.FIRST_OUTPUT: (
        LeftOut.DURING_REPLAY,
        LeftOut.APPROXIMATE,
        LeftOut.REJECTED,
        LeftOut.UNFINISHED,
        LeftOut.NO_OUTPUT,
        LeftOut.UNTIMED,
    ),
    Metric.TURN_DURATION: (
        LeftOut.DURING_REPLAY,
        LeftOut.APPROXIMATE,
        LeftOut.REJECTED,
        LeftOut.UNFINISHED,
        LeftOut.UNTIMED,
    ),
    Metric.TOOL_CALL_DURATION: (LeftOut.APPROXIMATE, LeftOut.UNFINISHED, LeftOut.UNTIMED),
    Metric.PERMISSION_WAIT: (LeftOut.APPROXIMATE, LeftOut.UNFINISHED, LeftOut.UNTIMED),
}
"""The reasons each turn metric may leave a row out for, in the order they are judged: a turn
a replay overlapped is left out whatever else it is; a prompt refused before any update is no
turn of the Agent's; tool calls and permission requests are never history (replayed tool
updates make no tool call: docs/turns.md)."""
