"""ACP Inspector traces: `{"ts", "direction": "fromClient" | "fromAgent", "json": "<text>"}`."""

from __future__ import annotations

from acptrace.read.formats.envelope_fields import EnvelopeFormat

FORMAT = EnvelopeFormat(
    name="inspector",
    summary="ACP Inspector trace: the message as a JSON string, fromClient / fromAgent",
    example=(
        '{"ts": "2026-12-02T10:00:00.124Z", "direction": "fromClient", '
        '"json": "{\\"jsonrpc\\": \\"2.0\\", ...}"}'
    ),
    producers="the F# ACP Inspector's recordings (venikman/ACP-inspector)",
    directions={"fromClient": "c2a", "fromAgent": "a2c"},
)
