"""What the recorder captures: lines of each stream, gaps, and the open and close events."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Stream(StrEnum):
    """A byte stream between the Client and the Agent, named by its transcript `dir`."""

    C2A = "c2a"
    """Client -> Agent: acptrace's stdin, forwarded to the Agent's stdin."""
    A2C = "a2c"
    """Agent -> Client: the Agent's stdout, forwarded to acptrace's stdout."""
    STDERR = "stderr"
    """The Agent's stderr, forwarded to acptrace's stderr."""


class CloseReason(StrEnum):
    """What ended the connection: whichever happened first."""

    CLIENT_CLOSED = "client_closed"
    """The Client closed acptrace's stdin (or stopped reading its stdout)."""
    AGENT_EXIT = "agent_exit"
    """The Agent exited or closed its stdout."""
    SIGNAL = "signal"
    """acptrace received SIGINT, SIGTERM or SIGHUP and forwarded it to the Agent."""


@dataclass(frozen=True, slots=True)
class Line:
    """One line of a stream as the transcript sees it, or one part of an over-long line."""

    data: bytes
    """The bytes of the line without its `\\n` (a `\\r` before it is kept)."""
    ended: bool = True
    """A `\\n` ended it; False for a final line without one (and for parts with `more`)."""
    part: int = 0
    """0 for a whole line; 1, 2, … for the parts of a line longer than the limit."""
    more: bool = False
    """More parts of this line follow."""


@dataclass(frozen=True, slots=True)
class Captured:
    """A line (or part) of one stream, with the time its last byte was read."""

    stream: Stream
    """Where it was read."""
    line: Line
    """What was read."""
    ts_ns: int
    """Wall clock, nanoseconds since the Unix epoch."""
    mono_ns: int
    """Monotonic clock, nanoseconds."""


@dataclass(frozen=True, slots=True)
class Gap:
    """Lines of a stream left out of the transcript because the queue to the disk was full."""

    stream: Stream
    """The stream whose lines were left out (they were still forwarded)."""
    lines: int
    """How many lines (or parts) were left out."""
    size: int
    """How many bytes they held."""
    ts_ns: int
    """Wall clock when the gap was noted (after the lines it stands for)."""
    mono_ns: int
    """Monotonic clock when the gap was noted."""


@dataclass(frozen=True, slots=True)
class Opened:
    """The recording started: the Agent is running."""

    argv: tuple[str, ...]
    """The Agent's command line."""
    cwd: str
    """The working directory the Agent started in."""
    pid: int
    """The Agent's process id."""
    version: str
    """acptrace's version."""
    redacting: bool
    """Whether secrets are redacted in the transcript."""
    ts_ns: int
    """Wall clock, nanoseconds since the Unix epoch."""
    mono_ns: int
    """Monotonic clock, nanoseconds."""


@dataclass(frozen=True, slots=True)
class Closed:
    """The recording ended: the Agent has exited."""

    reason: CloseReason
    """What ended the connection first."""
    exit_code: int
    """The Agent's exit status as a shell reports it (128 + N when signal N killed it)."""
    signal: str | None
    """The signal acptrace received and forwarded (reason `signal`), else None."""
    agent_signal: str | None
    """The signal that killed the Agent, if one did."""
    sizes: dict[str, int]
    """Bytes read from each stream, by `dir`."""
    dropped: int
    """Lines left out of the transcript because the queue to the disk was full."""
    ts_ns: int
    """Wall clock, nanoseconds since the Unix epoch."""
    mono_ns: int
    """Monotonic clock, nanoseconds."""


Item = Captured | Gap | Opened | Closed
"""Everything the transcript writer turns into a record."""
