"""The canonical acptrace format: `{"ts", "mono_ns", "dir", "msg" | "raw" | "event" | "text"}`."""

from __future__ import annotations

from acptrace.read.formats import openhands, tee
from acptrace.read.formats.envelope_fields import META, STDERR, EnvelopeFormat

FORMAT = EnvelopeFormat(
    name="acptrace",
    summary="acptrace's own JSON Lines envelope (ts, mono_ns, dir, msg/raw, meta events)",
    example=(
        '{"ts": "2026-12-02T10:00:00.124001Z", "mono_ns": 81235102000, "dir": "c2a", '
        '"msg": {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}}}'
    ),
    producers="`acptrace record`",
    directions={"c2a": "c2a", "a2c": "a2c", "stderr": STDERR, "meta": META},
    monotonic_key="mono_ns",
    monotonic_in_seconds=False,
    # (any other `dir` word is an `unknown_direction` issue; the two recorders that also write
    # `dir` keep theirs)
    other_words=frozenset(openhands.FORMAT.directions) | frozenset(tee.FORMAT.directions),
)
