"""Turns, tool calls and permission requests: what a message says of a turn's work
(`Activity`), and the rows an analysis gives of them (docs/turns.md).

The rows are frozen msgspec Structs, as every record of an analysis is: there may be one for
every tool call of a big transcript, and a Struct is made ten times faster than a frozen
dataclass (which sets each field through `object.__setattr__`) and costs start-up nothing to
declare.

A turn is one `session/prompt`: from the prompt to its end, which on ACP v1 is the prompt's
response and on v2 the first `state_update` `idle` for the session after the prompt (rules.md
§11). Its latencies are taken as the replay latencies are (`Stamp.ms_until`: never negative).
"""

from __future__ import annotations

from enum import StrEnum

import msgspec

from acptrace.model.json_id import JsonId

OUTPUT_TAGS = frozenset(
    {"agent_message", "agent_message_chunk", "agent_thought", "agent_thought_chunk"}
)
"""Updates that show the user the Agent's words (a turn's first output)."""
TOOL_TAGS = frozenset({"tool_call", "tool_call_update"})
"""Updates that create or patch a tool call (v1 creates with `tool_call`; v2 upserts with
`tool_call_update`)."""
STATE_TAG = "state_update"
"""The v2 update of a session's foreground state (`running`, `requires_action`, `idle`)."""
IDLE = "idle"
"""The state that ends a v2 turn."""
ACTIVITY_TAGS = TOOL_TAGS | {STATE_TAG}
"""Updates whose members say something of a turn's work (`Activity`)."""
FINAL_STATUSES = frozenset({"completed", "failed", "cancelled"})
"""Tool-call statuses that end it (the v2 schema: `tool_call/cancel` is confirmed by a
`tool_call_update` to a final status, normally `cancelled`)."""
PERMISSION_METHOD = "session/request_permission"
"""The Agent's request for the user's permission."""


class Watch:
    """What the analysis needs of the next updates of a session, asked where a run of plain
    updates starts (`acptrace.decode.runs`): bits, as an `int` (an `IntFlag`'s operators are
    Python code, and making the class costs every start-up)."""

    COUNTS = 0
    """Nothing beyond counts."""
    ACTIVITY = 1
    """The activity of its tool and state updates (`Activity`)."""
    FIRST_OUTPUT = 2
    """Its first output as a message of its own (a turn waits for it)."""
    PAUSES = 4
    """The widest silences between its updates (`UpdateRun.pauses`: a window of the session,
    whose replay may measure them, is open)."""
    EVERYTHING = ACTIVITY | FIRST_OUTPUT | PAUSES
    """All that the analysis may need."""
    LINES = 8
    """The lines of its tool and state updates, kept (`UpdateRun.deferred`) rather than read
    for their activity: where the analysis wants that, it is read when it is known to
    (`acptrace.decode.runs.settled`)."""
    AHEAD = LINES | FIRST_OUTPUT | PAUSES
    """What a reader that cannot ask (another process, decoding ahead of the analysis) reads:
    everything, the activity left in its lines. Most runs of a big transcript are replays,
    whose activity no turn wants: reading it for every tool and state update cost a split
    analysis a sixth of its CPU."""
    ANY = EVERYTHING | LINES
    """Every combination of the bits is at most this."""


class Activity(msgspec.Struct, frozen=True, gc=False):
    """What one message says of a turn's work (None members: it says nothing of them)."""

    tool_call_id: str | None = None
    """The tool call an update patches, or a permission request is about."""
    status: str | None = None
    """A tool call's new status."""
    kind: str | None = None
    """A tool call's kind (`read`, `edit`, `execute`, …)."""
    title: str | None = None
    """A tool call's title."""
    state: str | None = None
    """A `state_update`'s state."""
    stop_reason: str | None = None
    """An `idle` `state_update`'s or a v1 prompt response's `stopReason`."""
    options: tuple[tuple[str, str | None], ...] = ()
    """A permission request's options: (optionId, kind)."""
    outcome: str | None = None
    """A permission response's outcome (`selected`, `cancelled`)."""
    option_id: str | None = None
    """The option a permission response selected."""


class TurnEnd(StrEnum):
    """How a turn ended."""

    RESPONSE = "response"
    """v1: the prompt's success response."""
    IDLE = "idle"
    """v2: the first `state_update` `idle` for the session after the prompt."""
    ERROR = "error"
    """The prompt was answered with an error."""
    DISCONNECT = "disconnect"
    """The connection ended first (its end is recorded or assumed)."""
    TRACE_END = "trace_end"
    """The transcript ended first (the connection's end is unknown)."""

    @property
    def finished(self) -> bool:
        """The turn's end is in the recording (it has a duration)."""
        return self not in (TurnEnd.DISCONNECT, TurnEnd.TRACE_END)


class TurnRow(msgspec.Struct, frozen=True, gc=False):
    """One `session/prompt` and what happened until its end."""

    session_id: str
    request_id: JsonId
    """The prompt's id."""
    request_line: int
    protocol_version: int
    """The version the turn's end was judged by (v1: the response; v2: `idle`)."""
    end: TurnEnd
    end_line: int | None
    """The line that ended it (None when the recording lacks its end)."""
    stop_reason: str | None
    first_update_ms: float | None
    """Prompt -> the first update for the session."""
    first_output_ms: float | None
    """Prompt -> the first `agent_message`/`agent_thought` update (or chunk)."""
    first_output_line: int | None
    """That update's line (None: the turn had no output), where the views mark it."""
    duration_ms: float | None
    """Prompt -> its end (None when the recording lacks its end or times)."""
    updates: int
    """Updates for the session while it was open (its ending `idle` included)."""
    tool_calls: int
    """Tool calls first seen while it was open."""
    permission_requests: int
    """Permission requests the Agent sent while it was open."""
    permission_wait_ms: float | None
    """The time the Agent waited for the Client's answers, summed (None: no request, or no
    answer with times)."""
    during_replay: bool
    """A replay of the session was pending while it was open: its updates may be history,
    and its measures are not counted with the others'."""
    approximate: bool = False
    """Its times are estimates (a Zed dump's anchors), not measurements."""


class ToolCallRow(msgspec.Struct, frozen=True, gc=False):
    """One tool call of a turn (by `toolCallId`), and its permission request if any."""

    session_id: str
    tool_call_id: str
    turn_request_id: JsonId
    """The prompt of the turn it was first seen in (None: it was created by a permission
    request outside a turn)."""
    first_line: int
    kind: str | None
    """Its latest kind."""
    title: str | None
    """Its latest title."""
    first_status: str | None
    last_status: str | None
    end_line: int | None
    """The update that brought it to a final status (None: it never reached one)."""
    duration_ms: float | None
    """First update -> the update that reached `completed`, `failed` or `cancelled`."""
    updates: int
    permission_line: int | None
    """Its permission request's line, if it had one."""
    permission_wait_ms: float | None
    approximate: bool = False


class PermissionRow(msgspec.Struct, frozen=True, gc=False):
    """One `session/request_permission` and its answer."""

    session_id: str
    request_id: JsonId
    request_line: int
    tool_call_id: str | None
    turn_request_id: JsonId
    """The prompt of the turn it was sent in (None: outside a turn)."""
    response_line: int | None
    wait_ms: float | None
    """Request -> response: the time the Agent waited on the Client."""
    outcome: str | None
    """`selected`, `cancelled`, `error` (answered with an error), or None (no answer)."""
    option_id: str | None
    option_kind: str | None
    """The chosen option's kind (`allow_once`, `reject_always`, …) as the request listed it."""
    approximate: bool = False
