"""mcpsnoop-style envelopes: `{"seq", "ts", "direction": "c2s" | "s2c" | …, "raw": "<text>"}`.

They record no close event, so the end of the connection is unknown.
"""

from __future__ import annotations

from acptrace.read.formats.envelope_fields import META, STDERR, EnvelopeFormat

FORMAT = EnvelopeFormat(
    name="mcpsnoop",
    summary="mcpsnoop-style envelope: seq, RFC 3339 time, c2s / s2c / stderr / meta, raw line",
    example='{"seq": 1, "ts": "2026-12-02T10:00:00Z", "direction": "c2s", "raw": "{...}"}',
    producers="mcpsnoop and recorders that copy its envelope",
    directions={"c2s": "c2a", "s2c": "a2c", "stderr": STDERR, "meta": META},
)
