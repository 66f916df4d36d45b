"""The one exception family of the library: input that cannot be read at all.

Everything else that is wrong with a transcript is data (an `Issue` or a `Finding`).
"""


class AcptraceError(Exception):
    """Base class for errors acptrace raises on purpose."""


class UnreadableInput(AcptraceError):
    """The input cannot be read at all: missing, a directory, no permission, not a file."""


class UsageError(AcptraceError):
    """The caller asked for something that does not exist (an unknown format, a bad option)."""


class SeveralConnections(UsageError):
    """A call that reads one transcript was given a file holding several connections (or
    none): `analyze_file` and `open_walks` take such files, one analysis per connection."""


class NotATranscript(UnreadableInput):
    """No line of the input looks like a transcript: empty, blank, binary, JSON of another kind
    (`Analysis.looks_like_transcript`). Raised only where asked for (`require_transcript`):
    `analyze` itself returns the analysis."""


class NoWallClock(AcptraceError):
    """An export that places spans on the calendar (OTLP) was given a transcript without wall
    clock times: a format with no `ts`, or only monotonic times."""


class DeliveryFailed(AcptraceError):
    """Telemetry could not be delivered to the endpoint asked for (unreachable, no answer in
    time, or refused): one line naming the endpoint."""
