"""OpenHands `acp --debug` logs: `{"ts", "dir": ">>>" | "<<<", "msg"}`."""

from __future__ import annotations

from acptrace.read.formats.envelope_fields import EnvelopeFormat

FORMAT = EnvelopeFormat(
    name="openhands",
    summary="OpenHands `acp --debug` log: >>> into the agent, <<< out of it, ISO time",
    example='{"ts": "2026-12-02T10:00:00.124Z", "dir": ">>>", "msg": {"jsonrpc": "2.0", ...}}',
    producers="OpenHands `acp --debug`",
    directions={">>>": "c2a", "<<<": "a2c"},
)
