"""Trace and span ids for the OTLP export: the W3C trace context a recording carries, and ids
derived from the recording itself where it carries none.

ACP reserves the root keys `traceparent`, `tracestate` and `baggage` of a message's `_meta` for
W3C Trace Context (the ACP "meta propagation" RFD): a Client that traces its own work sends its
span's context with its requests. The export keeps it: the first valid `traceparent` of a
connection gives the connection's trace id and its root span's parent.

Without one, ids are derived (BLAKE2b) from what names the recording, so that exporting it again
gives the same ids and a backend sees the same trace, not a second one: the file's base name
(not its path: the same recording exported from another folder is the same trace), the
connection in a file of several, the wall clock time of its first record and its line count.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

import msgspec
import orjson

TRACEPARENT = re.compile(r"^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$")
"""W3C Trace Context `traceparent`: version, trace id, parent span id, flags (a later version
may append fields: they are ignored, as the Recommendation says)."""
STATE_KEPT = 512
"""Characters of a `tracestate` kept (the Recommendation's limit)."""


class TraceContext(msgspec.Struct, frozen=True):
    """A span context a message carried in its `_meta`."""

    trace_id: bytes
    """16 bytes, not all zero."""
    span_id: bytes
    """8 bytes, not all zero: the sender's span, the parent of what the message started."""
    state: str = ""
    """Its `tracestate`, as sent."""


def parse_traceparent(value: Any, state: Any = None) -> TraceContext | None:
    """The context of a `traceparent` (and `tracestate`), or None when it is not a valid one
    (the Recommendation: version `ff` and all-zero ids are invalid; version 00 has no more
    fields; upper-case hex is invalid)."""
    if not isinstance(value, str):
        return None
    match = TRACEPARENT.match(value.strip())
    if match is None:
        return None
    version, trace, span, _, rest = match.groups()
    if version == "ff" or (version == "00" and rest) or set(trace) == {"0"} or set(span) == {"0"}:
        return None
    kept = state.strip()[:STATE_KEPT] if isinstance(state, str) else ""
    return TraceContext(bytes.fromhex(trace), bytes.fromhex(span), kept)


def meta_context(payload: Any) -> TraceContext | None:
    """The context a message's `params._meta` carries, if any (`payload`: the message's JSON
    object)."""
    params = payload.get("params") if isinstance(payload, dict) else None
    meta = params.get("_meta") if isinstance(params, dict) else None
    if not isinstance(meta, dict):
        return None
    return parse_traceparent(meta.get("traceparent"), meta.get("tracestate"))


def recording_id(*names: object) -> bytes:
    """16 bytes that name a recording (a trace id where it carries none), from what names it."""
    return _digest(names, 16)


def span_id(recording: bytes, *key: object) -> bytes:
    """8 bytes naming one span of a recording: the same span of the same recording always has
    the same id, and the spans of two connections of one trace differ."""
    return _digest((recording.hex(), *key), 8)


def _digest(parts: tuple[object, ...], size: int) -> bytes:
    """BLAKE2b of the parts as JSON, `size` bytes, never all zero (an invalid id)."""
    data = hashlib.blake2b(orjson.dumps(parts, default=str), digest_size=size).digest()
    return data if any(data) else data[:-1] + b"\x01"
