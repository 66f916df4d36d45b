"""What the decoder finds wrong with JSON-RPC itself: facts for the rules (observations), not
input issues. The correlator passes them on with its own (`acptrace.correlate.observations`)."""

from __future__ import annotations

from dataclasses import dataclass

from acptrace.model.domain import Message


@dataclass(frozen=True, slots=True)
class InvalidJsonRpc:
    """An object meant as JSON-RPC that breaks JSON-RPC 2.0."""

    line: int
    reason: str


@dataclass(frozen=True, slots=True)
class EmptyBatch:
    """An empty batch array."""

    line: int


@dataclass(frozen=True, slots=True)
class BatchedLifecycle:
    """A lifecycle request (`initialize`, `session/new`, …) inside a batch array."""

    message: Message
