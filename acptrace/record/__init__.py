"""Recording ACP traffic: a transparent stdio proxy that writes the canonical transcript.

>>> from acptrace.record import record, RecordSettings
>>> result = record(["my-agent", "--acp"], "session.jsonl")  # the Client is on our stdio
>>> result.exit_code

`redact_transcript` applies the same redaction to a transcript that already exists.
"""

from acptrace.record.events import CloseReason, Stream
from acptrace.record.outputs import OutputRefused, RecordingExists
from acptrace.record.paths import default_transcript_path, fill_placeholders, make_folder
from acptrace.record.process import AgentNotStarted
from acptrace.record.proxy import (
    RecordResult,
    RecordSettings,
    Stdio,
    TranscriptUnwritable,
    record,
)
from acptrace.record.rewrite import RedactStats, open_output, redact_transcript

__all__ = [
    "AgentNotStarted",
    "CloseReason",
    "OutputRefused",
    "RecordResult",
    "RecordSettings",
    "RecordingExists",
    "RedactStats",
    "Stdio",
    "Stream",
    "TranscriptUnwritable",
    "default_transcript_path",
    "fill_placeholders",
    "make_folder",
    "open_output",
    "record",
    "redact_transcript",
]
