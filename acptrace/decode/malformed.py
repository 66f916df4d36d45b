"""What the decoder finds wrong with JSON-RPC itself: facts for the rules (observations), not
input issues. The correlator passes them on with its own (`acptrace.correlate.observations`)."""

from __future__ import annotations

import msgspec

from acptrace.model.domain import Message


class InvalidJsonRpc(msgspec.Struct, frozen=True):
    """An object meant as JSON-RPC that breaks JSON-RPC 2.0."""

    line: int
    reason: str


class EmptyBatch(msgspec.Struct, frozen=True):
    """An empty batch array."""

    line: int


class BatchedLifecycle(msgspec.Struct, frozen=True):
    """A lifecycle request (`initialize`, `session/new`, …) inside a batch array."""

    message: Message
