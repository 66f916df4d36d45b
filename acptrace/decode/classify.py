"""Parsed payloads in, `Message`s out: JSON-RPC shape, ids, session, update tag, direction.

Classification is per message and keeps no state but the set of methods whose direction it
could not infer (each reported once).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import msgspec

from acptrace.correlate.observations import BatchedLifecycle, EmptyBatch, InvalidJsonRpc
from acptrace.decode.directions import infer_direction
from acptrace.model.domain import Direction, Issue, Message, MessageKind, PeerInfo
from acptrace.model.excerpt import excerpt
from acptrace.read.envelopes import Envelope
from acptrace.read.formats.bare import looks_like_jsonrpc

BATCH_LIFECYCLE_METHODS = frozenset(
    {"initialize", "auth/login", "session/new", "session/resume", "session/prompt"}
)
"""Methods that SHOULD NOT be batched (TR-BATCH-LIFECYCLE)."""


@dataclass(frozen=True, slots=True)
class Found:
    """A message, with the JSON object it came from (for views that show payloads)."""

    message: Message
    payload: dict[str, Any]


Classified = Found | Issue | InvalidJsonRpc | EmptyBatch | BatchedLifecycle


@dataclass(slots=True)
class Classifier:
    """Turns envelopes into messages, malformed-message facts and issues."""

    unknown_methods: set[str] = field(default_factory=set)
    """Methods already reported as `unknown_direction`."""

    def classify(self, envelope: Envelope) -> Iterator[Classified]:
        """Everything one envelope holds: a message, a batch of them, or what is wrong with it."""
        payload = envelope.payload
        if isinstance(payload, list):
            if not payload:
                yield EmptyBatch(envelope.line)
            for member in payload:
                yield from self._one(member, envelope, in_batch=True)
        elif looks_like_jsonrpc(payload):
            yield from self._one(payload, envelope, in_batch=False)
        else:
            yield Issue(
                envelope.line, "not_jsonrpc", f"JSON that is not JSON-RPC: {excerpt(payload)}"
            )

    def _one(self, obj: Any, envelope: Envelope, *, in_batch: bool) -> Iterator[Classified]:
        """One message object (top level or a batch member)."""
        line = envelope.line
        if not isinstance(obj, dict):
            yield InvalidJsonRpc(line, f"batch member is not an object: {excerpt(obj)}")
            return
        if not looks_like_jsonrpc(obj):
            yield Issue(line, "not_jsonrpc", f"batch member that is not JSON-RPC: {excerpt(obj)}")
            return
        problems = _problems(obj)
        if problems:
            yield InvalidJsonRpc(line, "; ".join(problems))
        message = _message(obj, envelope, in_batch)
        if message is None:
            return
        if message.direction is Direction.UNKNOWN and message.method is not None:
            message = self._infer(message)
            if message.direction is Direction.UNKNOWN and _needs_direction(message):
                yield from self._report_unknown(message)
        if in_batch and message.method in BATCH_LIFECYCLE_METHODS:
            yield BatchedLifecycle(message)
        yield Found(message, obj)

    def _infer(self, message: Message) -> Message:
        """The message with its direction inferred from its method, where the method tells."""
        assert message.method is not None
        direction = infer_direction(message.method)
        if direction is Direction.UNKNOWN:
            return message
        return _with_direction(message, direction)

    def _report_unknown(self, message: Message) -> Iterator[Issue]:
        """Report a method whose direction cannot be inferred, once per method."""
        method = message.method or ""
        if method not in self.unknown_methods:
            self.unknown_methods.add(method)
            yield Issue(
                message.line, "unknown_direction", f"direction of {excerpt(method)} is unknown"
            )


def _is_message(obj: dict[str, Any]) -> bool:
    """A request or notification (a string method), or a response (a result or an error)."""
    return isinstance(obj.get("method"), str) or "result" in obj or "error" in obj


def _needs_direction(message: Message) -> bool:
    """Responses and `$/cancel_request` get their direction from the request they concern."""
    return message.kind is not MessageKind.RESPONSE and message.method != "$/cancel_request"


def _with_direction(message: Message, direction: Direction) -> Message:
    """A copy of the message travelling the given way."""
    return msgspec.structs.replace(message, direction=direction)


def _valid_id(value: Any) -> bool:
    """JSON-RPC ids are strings, numbers or null (never booleans)."""
    return value is None or (isinstance(value, int | float | str) and not isinstance(value, bool))


def _problems(obj: dict[str, Any]) -> list[str]:
    """What about this object breaks JSON-RPC 2.0 (empty when nothing does)."""
    problems = []
    if obj.get("jsonrpc") != "2.0":
        problems.append(f'jsonrpc is {excerpt(obj.get("jsonrpc"))}, not "2.0"')
    has_method = "method" in obj
    has_result, has_error = "result" in obj, "error" in obj
    if has_method and not isinstance(obj["method"], str):
        problems.append("method is not a string")
    if has_result and has_error:
        problems.append("both result and error")
    if (has_result or has_error) and not has_method:
        if "id" not in obj:
            problems.append("response without an id")
        elif obj["id"] is None and not has_error:
            problems.append("success response with a null id")
        if has_error and not _valid_error(obj["error"]):
            problems.append("error is not an object with an integer code")
    if not (has_method or has_result or has_error):
        problems.append("neither method nor result nor error")
    if "id" in obj and not _valid_id(obj["id"]):
        problems.append(f"id of bad type: {excerpt(obj['id'])}")
    return problems


def _valid_error(error: Any) -> bool:
    """An error object has an integer `code`."""
    code = error.get("code") if isinstance(error, dict) else None
    return isinstance(code, int) and not isinstance(code, bool)


def _message(obj: dict[str, Any], envelope: Envelope, in_batch: bool) -> Message | None:
    """The message this object is, or None when it is neither request nor response."""
    method = obj.get("method")
    raw_id = obj.get("id")
    msg_id = raw_id if _valid_id(raw_id) else None
    common: dict[str, Any] = {
        "line": envelope.line,
        "direction": envelope.direction,
        "in_batch": in_batch,
        "ts_ns": envelope.ts_ns,
        "mono_ns": envelope.mono_ns,
    }
    if isinstance(method, str):
        kind = MessageKind.REQUEST if "id" in obj else MessageKind.NOTIFICATION
        return Message(kind=kind, id=msg_id, method=method, **common, **_params(method, obj))
    if _is_message(obj):
        return Message(kind=MessageKind.RESPONSE, id=msg_id, **common, **_outcome(obj))
    return None


def _params(method: str, obj: dict[str, Any]) -> dict[str, Any]:
    """The fields of a request or notification that the analysis reads."""
    params = obj.get("params")
    if not isinstance(params, dict):
        return {}
    fields: dict[str, Any] = {"session_id": _string(params.get("sessionId"))}
    if method == "session/update":
        update = params.get("update")
        if isinstance(update, dict):
            fields["update_tag"] = _string(update.get("sessionUpdate"))
            fields["update_session_id"] = _string(update.get("sessionId"))
    elif method == "session/resume":
        fields["replay_from"] = params.get("replayFrom")
    elif method == "$/cancel_request":
        target = params.get("requestId")
        fields["cancel_target"] = target if _valid_id(target) else None
    elif method == "initialize":
        fields["peer"] = _peer(params, "clientInfo")
    return fields


def _outcome(obj: dict[str, Any]) -> dict[str, Any]:
    """The fields of a response that the analysis reads."""
    error = obj.get("error")
    if error is not None or "result" not in obj:
        code = error.get("code") if isinstance(error, dict) else None
        valid = isinstance(code, int) and not isinstance(code, bool)
        return {"is_error": True, "error_code": code if valid else None}
    result = obj["result"]
    if not isinstance(result, dict):
        return {}
    fields: dict[str, Any] = {"result_session_ids": _named_sessions(result)}
    if "protocolVersion" in result:
        fields["peer"] = _peer(result, "agentInfo")
    return fields


def _named_sessions(result: dict[str, Any]) -> tuple[str, ...]:
    """Session IDs a result names: `sessionId`, and `sessions[].sessionId` of a list."""
    named = []
    own = _string(result.get("sessionId"))
    if own is not None:
        named.append(own)
    listed = result.get("sessions")
    if isinstance(listed, list):
        for entry in listed:
            if isinstance(entry, dict) and (sid := _string(entry.get("sessionId"))) is not None:
                named.append(sid)
    return tuple(named)


def _peer(fields: dict[str, Any], v1_info_key: str) -> PeerInfo:
    """Name, version and protocol version from an `initialize` request or result."""
    info = fields.get("info")
    if not isinstance(info, dict):
        info = fields.get(v1_info_key)
    info = info if isinstance(info, dict) else {}
    version = fields.get("protocolVersion")
    return PeerInfo(
        name=_string(info.get("name")),
        version=_string(info.get("version")),
        protocol_version=version
        if isinstance(version, int) and not isinstance(version, bool)
        else None,
    )


def _string(value: Any) -> str | None:
    """The value when it is a string, else None."""
    return value if isinstance(value, str) else None
