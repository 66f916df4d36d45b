"""What the decoder finds wrong with JSON-RPC itself: facts for the rules (observations), not
input issues. The correlator passes them on with its own (`acptrace.correlate.observations`)."""

from __future__ import annotations

import msgspec


class InvalidJsonRpc(msgspec.Struct, frozen=True):
    """An object meant as JSON-RPC that breaks JSON-RPC 2.0."""

    line: int
    reason: str


class EmptyBatch(msgspec.Struct, frozen=True):
    """An empty batch array."""

    line: int


class LostMessage(msgspec.Struct, frozen=True):
    """A message the input cut so early that what is left does not say what it was (a lost
    message for rules.md §9's demotions; in no rule itself, §10)."""

    line: int


class Batch(msgspec.Struct, frozen=True):
    """A batch array with members (ACP defines no JSON-RPC batches: TR-BATCH)."""

    line: int
    size: int
    """How many members it has."""
