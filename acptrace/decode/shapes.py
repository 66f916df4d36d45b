"""The wire shapes, declared once: a JSON-RPC message, the parts of it the analysis reads, and
the canonical transcript line that carries one.

Every member is optional and takes any JSON value, so any JSON object decodes into a
`WireMessage` (what is wrong with it is judged afterwards, in `acptrace.decode.message`). The
members that hold objects the analysis reads into (`params`, `result`, `error`, `update`) are
Structs when they are objects and plain values otherwise; members not declared here are skipped
without building Python objects for them (msgspec's typed decode), which is what makes the hot
path cheap. Bytes decode with `decode_line` / `decode_message`; an object already parsed (the
general path, other formats' payloads) converts with `wire_message`.
"""

from collections.abc import Callable
from typing import Annotated, Any, Generic, Literal, TypeVar

import msgspec
from msgspec import UnsetType

from acptrace.model.tags import KNOWN_TAGS

UNSET: Any = msgspec.UNSET
"""A member that was absent (not the same as `null`)."""

NOT_DECODED = (msgspec.ValidationError, msgspec.DecodeError, RecursionError)
"""What decoding raises for bytes that are not JSON, JSON that does not fit a shape, or JSON
nested deeper than the decoder goes (the general path then reads it, or says it is too deep)."""


class WireUpdate(msgspec.Struct, gc=False):
    """`params.update` of a `session/update`."""

    sessionUpdate: Any = UNSET
    sessionId: Any = UNSET
    capabilities: Any = UNSET
    messageId: Any = UNSET
    toolCallId: Any = UNSET
    status: Any = UNSET
    kind: Any = UNSET
    title: Any = UNSET
    state: Any = UNSET
    stopReason: Any = UNSET


class WireParams(msgspec.Struct, gc=False):
    """`params` of a request or notification."""

    sessionId: Any = UNSET
    update: WireUpdate | list[Any] | str | int | float | bool | None = UNSET
    replayFrom: Any = UNSET
    requestId: Any = UNSET
    protocolVersion: Any = UNSET
    info: Any = UNSET
    clientInfo: Any = UNSET
    toolCall: Any = UNSET
    subject: Any = UNSET
    options: Any = UNSET


class WireResult(msgspec.Struct, gc=False):
    """`result` of a response."""

    sessionId: Any = UNSET
    sessions: Any = UNSET
    protocolVersion: Any = UNSET
    info: Any = UNSET
    agentInfo: Any = UNSET
    capabilities: Any = UNSET
    agentCapabilities: Any = UNSET
    authMethods: Any = UNSET
    stopReason: Any = UNSET
    outcome: Any = UNSET


class WireError(msgspec.Struct, gc=False):
    """`error` of a response."""

    code: Any = UNSET


class WireMessage(msgspec.Struct, gc=False):
    """One JSON-RPC 2.0 object: request, notification or response, valid or not."""

    jsonrpc: Any = UNSET
    id: Any = UNSET
    method: Any = UNSET
    params: WireParams | list[Any] | str | int | float | bool | None = UNSET
    result: WireResult | list[Any] | str | int | float | bool | None = UNSET
    error: WireError | list[Any] | str | int | float | bool | None = UNSET


class CanonicalLine(msgspec.Struct, gc=False):
    """One line of the canonical format (input-formats.md) as the hot path reads it."""

    dir: Any = UNSET
    msg: WireMessage | list[Any] | str | int | float | bool | None = UNSET
    ts: Any = UNSET
    timestamp: Any = UNSET
    time: Any = UNSET
    mono_ns: Any = None


decode_line = msgspec.json.Decoder(CanonicalLine).decode
"""A canonical line's bytes as a `CanonicalLine`; raises `NOT_DECODED` for any other JSON value."""
decode_message = msgspec.json.Decoder(WireMessage).decode
"""A bare JSON-RPC line's bytes as a `WireMessage`; raises `NOT_DECODED` for a non-object."""


# The plain update, narrowed: the same members as `CanonicalLine` > `WireMessage` >
# `WireParams` > `WireUpdate` above, each typed as a line of a run of plain updates has it
# (`acptrace.decode.runs`), so that msgspec checks in C what the run loop would check in
# Python. Members that must be absent are typed `UnsetType`: their presence fails. Any line
# that does not fit raises `NOT_DECODED`, and is read with the general shapes above (it ends
# the loop, not the run). Not a second reading of the wire: a line that fits decodes here to
# the values it has there, member by member (a test holds the members the same).


KnownTag: Any = Literal[tuple(sorted(KNOWN_TAGS))]
"""A tag of either protocol version (`model.tags.KNOWN_TAGS`), checked by msgspec in C."""


class PlainUpdate(msgspec.Struct, gc=False):
    """`WireUpdate`, narrowed: a tag the protocol knows (an unknown one joins no run: the
    schema check reads each, `runs.plain_update`), and a `messageId` that is a string or
    absent (the run loop then only asks whether it is there). (`capabilities` is read only of
    a `subagent_update`, which never joins a run: `UNREAD_IN_A_RUN`.) The members of a turn's
    activity are left out: a run whose session has no turn open never reads them (every
    member costs each line of a run), `DetailedUpdate` does."""

    sessionUpdate: KnownTag
    sessionId: Any = UNSET
    messageId: str | UnsetType = UNSET


class DetailedUpdate(PlainUpdate, gc=False):
    """`PlainUpdate` with the members of a turn's activity (`model.turns.Activity`): what a
    run reads where the analysis watches its session (`model.turns.Watch.ACTIVITY`)."""

    toolCallId: Any = UNSET
    status: Any = UNSET
    kind: Any = UNSET
    title: Any = UNSET
    state: Any = UNSET
    stopReason: Any = UNSET


ACTIVITY_MEMBERS = frozenset(DetailedUpdate.__struct_fields__) - set(PlainUpdate.__struct_fields__)
"""The members `DetailedUpdate` reads beyond `PlainUpdate`."""

Update = TypeVar("Update", PlainUpdate, DetailedUpdate)
"""The update a narrowed line is read with (`PlainUpdate` or `DetailedUpdate`)."""


class PlainParams(msgspec.Struct, Generic[Update], gc=False):
    """`WireParams`, narrowed: a session that is a string, and an update object (the members
    other methods' params have are no plain update's: `UNREAD_IN_A_RUN`)."""

    sessionId: str
    update: Update


class PlainMessage(msgspec.Struct, Generic[Update], gc=False, forbid_unknown_fields=True):
    """`WireMessage`, narrowed: a JSON-RPC 2.0 `session/update` notification, with nothing
    else (`id`, `result`, `error` or any other member: the general shapes read it)."""

    jsonrpc: Literal["2.0"]
    method: Literal["session/update"]
    params: PlainParams[Update]


UNREAD_IN_A_RUN = {
    "WireParams": frozenset(
        {"replayFrom", "requestId", "protocolVersion", "info", "clientInfo", "toolCall"}
        | {"subject", "options"}
    ),
    "WireUpdate": frozenset({"capabilities"}),
}
"""Members of the general shapes that `message.plain_update_of` never reads (of a resume, a
cancel, an `initialize`, an announcement): left out of the narrowed shapes, so that msgspec
neither fills them in nor frees them on every line of a run (they hold any value: nothing of
them is validated either way)."""

Traffic = TypeVar("Traffic")
"""The direction a `PlainLine` must have (a run reads one direction: msgspec checks it)."""


class PlainLine(msgspec.Struct, Generic[Traffic, Update], gc=False, forbid_unknown_fields=True):
    """`CanonicalLine`, narrowed: the plain update of a run, with a text `ts` only, of the
    length of a usual time (`read.timestamps.usual_text`), going the run's way (`Traffic`),
    its update read as `Update`, and nothing else (`timestamp`, `time` or any other member:
    the general shapes read it)."""

    dir: Traffic
    msg: PlainMessage[Update]
    ts: Annotated[str, msgspec.Meta(min_length=27, max_length=27)]
    mono_ns: Annotated[int, msgspec.Meta(ge=-(2**63), le=2**63 - 1)] | None = None
    """(int64, as `read.timestamps.integer_ns` reads it: a count beyond it is no time)"""


PlainDecode = Callable[[bytes], PlainLine[Any, Any]]

DECODE_PLAIN: dict[str, PlainDecode] = {
    "c2a": msgspec.json.Decoder(PlainLine[Literal["c2a"], PlainUpdate]).decode,
    "a2c": msgspec.json.Decoder(PlainLine[Literal["a2c"], PlainUpdate]).decode,
}
"""For each direction of traffic (as `decode.directions.TRAFFIC` spells it), a line of a run of
plain updates going that way as a `PlainLine`; raises `NOT_DECODED` for any other line (which
`decode_line` then reads)."""
DECODE_DETAILED: dict[str, PlainDecode] = {
    "c2a": msgspec.json.Decoder(PlainLine[Literal["c2a"], DetailedUpdate]).decode,
    "a2c": msgspec.json.Decoder(PlainLine[Literal["a2c"], DetailedUpdate]).decode,
}
"""`DECODE_PLAIN`, each update read with its activity (`DetailedUpdate`)."""
decode_update: PlainDecode = msgspec.json.Decoder(
    PlainLine[Literal["c2a", "a2c"], DetailedUpdate]
).decode
"""A line that is a plain update going either way, with its activity: how the hot path tries
a line before the general shapes (`fastpath.plain_read`); raises `NOT_DECODED` for any other."""


def wire_message(obj: dict[str, Any]) -> WireMessage:
    """A parsed JSON object as a `WireMessage` (it always fits: every member takes any value)."""
    return msgspec.convert(obj, WireMessage)
