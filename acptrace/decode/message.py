"""A `WireMessage` in, a `Message` out: the one place that decides what a JSON-RPC object is.

`problems` says what about an object breaks JSON-RPC 2.0; `message_of` reads the kind, id,
method, session, update tag and the rest the analysis needs. The general path (`classify`) and
the hot path (`fastpath`, `runs`) both come through here.
"""

from __future__ import annotations

import sys
from typing import Any

import orjson

from acptrace.decode.capabilities import advertised, child_permits
from acptrace.decode.directions import NOTIFICATIONS
from acptrace.decode.shapes import (
    UNSET,
    DetailedUpdate,
    PlainLine,
    WireError,
    WireMessage,
    WireParams,
    WireResult,
    WireUpdate,
)
from acptrace.model.domain import (
    INT64,
    NOTIFICATION,
    REQUEST,
    RESPONSE,
    Direction,
    Message,
    MessageKind,
    PeerInfo,
)
from acptrace.model.excerpt import cut_name, excerpt, written_json
from acptrace.model.tags import ANNOUNCE_TAG
from acptrace.model.turns import ACTIVITY_TAGS, PERMISSION_METHOD, Activity

_NOTHING: tuple[str, ...] = ()


def is_message(wire: WireMessage) -> bool:
    """A request or notification (a string method), or a response (a result or an error)."""
    return type(wire.method) is str or wire.result is not UNSET or wire.error is not UNSET


def valid_id(value: Any) -> bool:
    """An id that pairs a request with its response: a string, or an integer in int64 range
    (never a boolean, a number with a fraction or exponent, or null)."""
    kind = type(value)
    return kind is str or (kind is int and value in INT64)


def problems(wire: WireMessage) -> list[str]:
    """What about this object breaks JSON-RPC 2.0 (empty when nothing does)."""
    found = []
    if wire.jsonrpc != "2.0":
        shown = None if wire.jsonrpc is UNSET else wire.jsonrpc
        found.append(f'jsonrpc is {excerpt(shown)}, not "2.0"')
    has_method = wire.method is not UNSET
    has_result, has_error = wire.result is not UNSET, wire.error is not UNSET
    if has_method and type(wire.method) is not str:
        found.append("method is not a string")
    if has_result and has_error:
        found.append("both result and error")
    if (has_result or has_error) and not has_method:
        if wire.id is UNSET:
            found.append("response without an id")
        elif wire.id is None and not has_error:
            found.append("success response with a null id")
        if has_error and _error_code(wire.error) is None:
            found.append("error is not an object with an integer code")
    if not (has_method or has_result or has_error):
        found.append("neither method nor result nor error")
    msg_id = wire.id
    if msg_id is None:
        if has_method:
            found.append("request with a null id")
    elif msg_id is not UNSET and not valid_id(msg_id):
        kind = "outside int64" if type(msg_id) is int else "of bad type"
        found.append(f"id {kind}: {excerpt(msg_id)}")
    return found


def survived_cut(wire: WireMessage) -> bool:
    """Whether what is left of a cut message still says what it is (rules.md §10): a request
    (`method` and `id`), a response (`id` and `result` or `error`), or a notification of a
    method that is only ever one; a `session/update` also with its session and tag (the cut
    one may have been a marker). Anything else may have lost its `id` or more to the cut."""
    if wire.id is not UNSET:
        return wire.method is not UNSET or wire.result is not UNSET or wire.error is not UNSET
    if wire.method == "session/update":
        params = wire.params
        update = params.update if isinstance(params, WireParams) else None
        return (
            isinstance(params, WireParams)
            and type(params.sessionId) is str
            and isinstance(update, WireUpdate)
            and type(update.sessionUpdate) is str
        )
    return wire.method in NOTIFICATIONS


def message_of(
    wire: WireMessage,
    line: int,
    direction: Direction,
    ts_ns: int | None = None,
    mono_ns: int | None = None,
    in_batch: bool = False,
) -> Message | None:
    """The message this object is, or None when it is neither request nor response."""
    msg_id = wire.id if valid_id(wire.id) else None  # (an invalid id pairs with nothing)
    method = wire.method
    if type(method) is str:
        method = sys.intern(method)  # (one string for all: a million pending keep theirs)
        kind = NOTIFICATION if wire.id is UNSET else REQUEST
        params = wire.params
        if type(params) is not WireParams:
            return Message(line, direction, kind, msg_id, method, in_batch=in_batch,
                           ts_ns=ts_ns, mono_ns=mono_ns)  # fmt: skip
        return _call(params, line, direction, kind, msg_id, method, in_batch, ts_ns, mono_ns)
    if not is_message(wire):
        return None
    error = wire.error
    if (error is not UNSET and error is not None) or wire.result is UNSET:
        return Message(line, direction, RESPONSE, msg_id, is_error=True,
                       error_code=_error_code(error), in_batch=in_batch,
                       ts_ns=ts_ns, mono_ns=mono_ns)  # fmt: skip
    result = wire.result
    named, peer, capabilities, shaped_for, activity = _NOTHING, None, None, None, None
    if type(result) is WireResult:
        named = _named_sessions(result)
        if result.protocolVersion is not UNSET:  # (an `initialize` result)
            peer = _peer(result.info, result.agentInfo, result.protocolVersion)
            shaped_for = _shape(result)
        if _initialize_like(result):
            capabilities = advertised(result)
        if result.stopReason is not UNSET or result.outcome is not UNSET:
            activity = _answer(result)
    return Message(line, direction, RESPONSE, msg_id, result_session_ids=named,
                   peer=peer, in_batch=in_batch, ts_ns=ts_ns, mono_ns=mono_ns,
                   capabilities=capabilities, shaped_for=shaped_for,
                   activity=activity)  # fmt: skip


def _call(
    params: WireParams,
    line: int,
    direction: Direction,
    kind: MessageKind,
    msg_id: Any,
    method: str,
    in_batch: bool,
    ts_ns: int | None,
    mono_ns: int | None,
) -> Message:
    """A request or notification whose `params` is an object."""
    session_id = _string(params.sessionId)
    if session_id is not None:
        session_id = sys.intern(session_id)  # (a few sessions, named by every message)
    update_tag = update_session_id = replay_from = cancel_target = peer = capabilities = None
    message_id = activity = None
    replay_from_given = False
    if method == "session/update":
        update = params.update
        if type(update) is WireUpdate:
            update_tag = _string(update.sessionUpdate)
            update_session_id = _string(update.sessionId)
            message_id = _string(update.messageId)
            if update_tag == ANNOUNCE_TAG:
                capabilities = child_permits(update)
            elif update_tag in ACTIVITY_TAGS:
                activity = update_activity(update)
    elif method == "session/resume":
        replay_from_given = params.replayFrom is not UNSET
        replay_from = _writable(params.replayFrom) if replay_from_given else None
    elif method == "$/cancel_request":
        target = params.requestId
        cancel_target = target if valid_id(target) else None
    elif method == "initialize":
        peer = _peer(params.info, params.clientInfo, params.protocolVersion)
    elif method == PERMISSION_METHOD:
        activity = _permission_asked(params)
    return Message(line, direction, kind, msg_id, method, session_id, update_tag,
                   update_session_id, replay_from, cancel_target, peer=peer, in_batch=in_batch,
                   message_id=message_id, ts_ns=ts_ns, mono_ns=mono_ns,
                   capabilities=capabilities, replay_from_given=replay_from_given,
                   activity=activity)  # fmt: skip


def plain_update_of(
    line: PlainLine[Any, Any], number: int, direction: Direction, ts_ns: int
) -> Message | None:
    """`message_of` a plain update read in its narrowed shape (`shapes.PlainLine`: a valid
    `session/update` notification with a string session and tag), as `_call` reads it; None
    for an announcement (its capabilities are read by `message_of`)."""
    params = line.msg.params
    update = params.update
    tag = update.sessionUpdate
    if tag == ANNOUNCE_TAG:
        return None
    activity = None
    if tag in ACTIVITY_TAGS:
        assert type(update) is DetailedUpdate, "a message's activity is read with it"
        activity = update_activity(update)
    return Message(number, direction, NOTIFICATION, None, "session/update",
                   sys.intern(params.sessionId), tag, _string(update.sessionId),
                   message_id=_string(update.messageId), ts_ns=ts_ns,
                   mono_ns=line.mono_ns, activity=activity)  # fmt: skip


def update_activity(update: WireUpdate | DetailedUpdate) -> Activity:
    """What a tool or state update says of a turn's work (its members that are strings)."""
    call, status, kind = update.toolCallId, update.status, update.kind
    title, state, stop = update.title, update.state, update.stopReason
    return Activity(
        call if type(call) is str else None,
        status if type(status) is str else None,
        kind if type(kind) is str else None,
        title if type(title) is str else None,
        state if type(state) is str else None,
        stop if type(stop) is str else None,
    )


def _permission_asked(params: WireParams) -> Activity:
    """A permission request's tool call (v1 `toolCall`; v2 `subject`, a tool call or a
    command) and options."""
    tool_call = params.toolCall
    subject = params.subject
    if isinstance(subject, dict):
        tool_call = subject.get("toolCall") if subject.get("type") == "tool_call" else subject
    tool_call_id = _string(tool_call.get("toolCallId")) if isinstance(tool_call, dict) else None
    options = params.options
    listed = tuple(
        (option["optionId"], _string(option.get("kind")))
        for option in (options if type(options) is list else ())
        if isinstance(option, dict) and type(option.get("optionId")) is str
    )
    return Activity(tool_call_id=tool_call_id, options=listed)


def _answer(result: WireResult) -> Activity | None:
    """A response's answer to a turn: a v1 prompt's `stopReason`, a permission's outcome."""
    outcome = result.outcome
    chosen = outcome.get("outcome") if isinstance(outcome, dict) else None
    option = outcome.get("optionId") if isinstance(outcome, dict) else None
    stop_reason = _string(result.stopReason)
    if stop_reason is None and chosen is None:
        return None
    return Activity(stop_reason=stop_reason, outcome=_string(chosen), option_id=_string(option))


def _initialize_like(result: WireResult) -> bool:
    """A result with the members of an `initialize` result (its capabilities are read)."""
    return not (
        result.protocolVersion is UNSET
        and result.capabilities is UNSET
        and result.agentCapabilities is UNSET
        and result.authMethods is UNSET
    )


def _writable(value: Any) -> Any:
    """A value the analysis keeps as given (`replayFrom`) when every output can write it,
    else the start of its JSON text: orjson writes no integer beyond 64 bits (which a line
    with a number beyond a double's range, or a `.traffic` file, may hold exactly) and nests
    at most 254 levels, where a line may nest 1,024."""
    try:
        orjson.dumps(value)
    except orjson.JSONEncodeError:
        return written_json(value)
    return value


def _error_code(error: Any) -> int | None:
    """`error.code` when the error is an object with an integer code (in int64: a wider one,
    exact where the line has a number beyond a double's range, is kept by no output)."""
    code = error.code if type(error) is WireError else None
    return code if type(code) is int and code in INT64 else None


def _named_sessions(result: WireResult) -> tuple[str, ...]:
    """Session IDs a result names: `sessionId`, and `sessions[].sessionId` of a list."""
    own = result.sessionId
    named = [own] if type(own) is str else []
    listed = result.sessions
    if type(listed) is list:
        for entry in listed:
            if isinstance(entry, dict) and type(sid := entry.get("sessionId")) is str:
                named.append(sid)
    return tuple(named) if named else _NOTHING


def _peer(info: Any, v1_info: Any, version: Any) -> PeerInfo:
    """Name, version and protocol version from an `initialize` request or result."""
    if not isinstance(info, dict):
        info = v1_info if isinstance(v1_info, dict) else {}
    return PeerInfo(
        name=cut_name(_string(info.get("name"))),
        version=cut_name(_string(info.get("version"))),
        protocol_version=version if type(version) is int and version in INT64 else None,
    )


def _shape(result: WireResult) -> int | None:
    """The version an `initialize` result's members are shaped for (`PeerInfo.shaped_for`)."""
    v2 = result.capabilities is not UNSET or result.info is not UNSET
    v1 = result.agentCapabilities is not UNSET or result.agentInfo is not UNSET
    if v2 == v1:
        return None
    return 2 if v2 else 1


def _string(value: Any) -> str | None:
    """The value when it is a string, else None."""
    return value if type(value) is str else None
