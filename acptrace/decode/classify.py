"""Envelopes in, `Message`s out: batches taken apart, each object read by
`acptrace.decode.message`, directions inferred where the format records none.

Classification is per message and keeps no state but the set of methods whose direction it
could not infer (each reported once).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import msgspec

from acptrace.decode.directions import PROXY_PREFIX, infer_direction
from acptrace.decode.malformed import Batch, EmptyBatch, InvalidJsonRpc, LostMessage
from acptrace.decode.message import message_of, problems, survived_cut
from acptrace.decode.shapes import wire_message
from acptrace.model.domain import Direction, Issue, IssueKind, Message, MessageKind
from acptrace.model.excerpt import excerpt
from acptrace.read.envelopes import Envelope
from acptrace.read.formats.bare import looks_like_jsonrpc


class Found(msgspec.Struct, frozen=True, gc=False):
    """A message, with the JSON object it came from (for views that show payloads)."""

    message: Message
    payload: Any
    """The object; on the hot path, the line that holds it (`fastpath.KeptPayload`), decoded
    only when a view shows it (`shown_payload`)."""
    cut: bool = False
    """The input cut the object short (rules.md §10): what is left is not what was sent, and
    the schema check leaves it alone."""

    @property
    def line(self) -> int:
        """The message's line."""
        return self.message.line


Classified = Found | Issue | InvalidJsonRpc | EmptyBatch | Batch | LostMessage


class Classifier(msgspec.Struct):
    """Turns envelopes into messages, malformed-message facts and issues."""

    unknown_methods: set[str] = msgspec.field(default_factory=set)
    """Methods already reported as `unknown_direction`."""

    def classify(self, envelope: Envelope) -> Iterator[Classified]:
        """Everything one envelope holds: a message, a batch of them, or what is wrong with it."""
        payload = envelope.payload
        if envelope.cut and not _survived(payload):
            yield LostMessage(envelope.line)  # (rules.md §10: in no rule, but lost for §9)
            return
        if isinstance(payload, list):
            if not payload:
                yield EmptyBatch(envelope.line)
            else:
                yield Batch(envelope.line, len(payload))
            for member in payload:
                yield from self._one(member, envelope, in_batch=True)
        elif looks_like_jsonrpc(payload):
            yield from self._one(payload, envelope, in_batch=False)
        else:
            yield Issue(
                envelope.line,
                IssueKind.NOT_JSONRPC,
                f"JSON that is not JSON-RPC: {excerpt(payload)}",
            )

    def _one(self, obj: Any, envelope: Envelope, *, in_batch: bool) -> Iterator[Classified]:
        """One message object (top level or a batch member)."""
        line = envelope.line
        if not isinstance(obj, dict):
            yield InvalidJsonRpc(line, f"batch member is not an object: {excerpt(obj)}")
            return
        if not looks_like_jsonrpc(obj):
            yield Issue(
                line, IssueKind.NOT_JSONRPC, f"batch member that is not JSON-RPC: {excerpt(obj)}"
            )
            return
        wire = wire_message(obj)
        found = problems(wire)
        if found and not envelope.cut:  # the input's cut is not the sender's fault (§10)
            yield InvalidJsonRpc(line, "; ".join(found))
        message = message_of(
            wire, line, envelope.direction, envelope.ts_ns, envelope.mono_ns, in_batch
        )
        if message is None:
            return
        if envelope.approximate:
            message = msgspec.structs.replace(message, approximate=True)
        if message.direction is Direction.UNKNOWN and message.method is not None:
            message = self._infer(message)
            if message.direction is Direction.UNKNOWN and _needs_direction(message):
                yield from self._report_unknown(message)
        yield Found(message, obj, envelope.cut)

    def _infer(self, message: Message) -> Message:
        """The message with its direction inferred from its method, where the method tells."""
        assert message.method is not None
        direction = infer_direction(message.method, message.kind)
        if direction is Direction.UNKNOWN:
            return message
        return _with_direction(message, direction)

    def _report_unknown(self, message: Message) -> Iterator[Issue]:
        """Report a method whose direction cannot be inferred, once per method."""
        method = message.method or ""
        if method not in self.unknown_methods:
            self.unknown_methods.add(method)
            yield Issue(
                message.line,
                IssueKind.UNKNOWN_DIRECTION,
                f"direction of {excerpt(method)} is unknown",
            )


def _survived(payload: Any) -> bool:
    """Whether what the input left of a cut payload still says what message it was."""
    return (
        isinstance(payload, dict)
        and looks_like_jsonrpc(payload)
        and survived_cut(wire_message(payload))
    )


def _needs_direction(message: Message) -> bool:
    """Responses and `$/cancel_request` get their direction from the request they concern;
    `proxy/*` goes either way along a chain (input-formats.md): none is an unknown method."""
    method = message.method or ""
    return (
        message.kind is not MessageKind.RESPONSE
        and method != "$/cancel_request"
        and not method.startswith(PROXY_PREFIX)
    )


def _with_direction(message: Message, direction: Direction) -> Message:
    """A copy of the message travelling the given way."""
    return msgspec.structs.replace(message, direction=direction)
