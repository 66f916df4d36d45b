"""What a format turns a transcript record into, before JSON-RPC classification."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from acptrace.model.domain import Direction, Issue


class Envelope(msgspec.Struct, frozen=True):
    """A JSON-RPC message or batch as recorded, with where and when it was seen."""

    line: int
    """Input line."""
    direction: Direction
    """Direction from the envelope; UNKNOWN when the format has none."""
    payload: Any
    """The parsed message (an object) or batch (an array)."""
    ts_ns: int | None = None
    """Wall clock, nanoseconds since the Unix epoch."""
    mono_ns: int | None = None
    """Monotonic clock, nanoseconds."""
    connection: str | None = None
    """In a file that holds several connections, the one this message travelled on."""
    approximate: bool = False
    """`ts_ns` is the reader's estimate, not a recorded time (a Zed dump's stderr times)."""
    cut: bool = False
    """The input cut the payload (issue `truncated_payload`): `payload` is what is left of it."""


TIME_KEYS = ("ts", "timestamp", "time")
"""The members a record's time may be in."""
DIRECTION_KEYS = ("dir", "direction", "source", "origin", "_direction", "from")
"""The members a record's direction may be in."""
_ENVELOPE_KEYS = frozenset({*TIME_KEYS, *DIRECTION_KEYS, "mono_ns", "t_rel", "event"})


class RecorderEvent(msgspec.Struct, frozen=True, gc=False):
    """Something the recorder noted that is not protocol traffic (`meta` or `stderr`)."""

    line: int
    """Input line."""
    kind: str
    """`open`, `close`, `stderr`, or another `meta` event name."""
    ts_ns: int | None = None
    """Wall clock, nanoseconds since the Unix epoch."""
    mono_ns: int | None = None
    """Monotonic clock, nanoseconds."""
    detail: dict[str, Any] = msgspec.field(default_factory=dict)
    """The rest of the record (`reason`, `exit_code`, `text`, `argv`…)."""

    @property
    def is_close(self) -> bool:
        """Whether this is the recorded end of the connection."""
        return self.kind == "close"

    @property
    def is_open(self) -> bool:
        """Whether this is the recorded start of a connection (the recorder's first record)."""
        return self.kind == "open"

    def said(self) -> dict[str, Any]:
        """What the event says beyond its time, direction and name (its `detail` without the
        envelope's members, or nulls): what a view shows of it."""
        return {k: v for k, v in self.detail.items() if v is not None and k not in _ENVELOPE_KEYS}


Record = Envelope | RecorderEvent | Issue
"""Everything the reader yields: traffic, recorder events and input issues."""


class Part(msgspec.Struct, frozen=True):
    """One connection of a file that holds several: its records, in order."""

    name: str | None
    """The connection's name within its file (`source.connection`); None where the file does
    not say (an acp-inspector-trace none of whose frames could be read: its header and issues
    are analysed as one connection, as a file of one is)."""
    format: str
    """The file's format."""
    lines: int
    """Every line of the file."""
    records: Sequence[Record]
    """Its envelopes, recorder events and issues, in line order; a `close` event ends a
    connection whose end the file records."""
    requirements: tuple[str, ...] | None = None
    """For an acp-tck test: the requirements it is listed under."""
    test_status: str | None = None
    """For an acp-tck test: its status."""
    protocol_version: int | None = None
    """For an acp-tck test: the `protocol_version` its report states (rules.md §7)."""
