"""The Rust ACP Inspector's export, `acp-inspector-trace` v1 (sagikazarmark/acp-inspector).

JSON Lines: a header `{"type": "header", "format": "acp-inspector-trace", "version": 1, "at",
"frames", "dropped", "warning"}`, then one frame per JSON-RPC line: `{"type": "frame", "at":
<epoch ms>, "connection": N, "direction": "client -> agent" | "agent -> client", "encoding":
"utf8", "frame": "<the line, verbatim>"}`. A header's `dropped` above 0 means frames are
missing (issue `frames_dropped`). Each `connection` value is a connection of its own: the
envelopes say which (`Envelope.connection`), and the pipeline analyses each on its own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from acptrace.model.domain import INT64, Direction, Issue, IssueKind
from acptrace.model.excerpt import excerpt
from acptrace.read.clocks import clocked
from acptrace.read.envelopes import Envelope, Part, Record, RecorderEvent
from acptrace.read.formats.base import Stateless
from acptrace.read.formats.envelope_fields import SIDES, decode_payload
from acptrace.read.timestamps import seconds_ns

NAME = "acp-inspector-trace"
_DIRECTIONS = {"client -> agent": Direction.C2A, "agent -> client": Direction.A2C}


def connection_of(record: Any) -> str | None:
    """The connection a frame belongs to, as a string (None for anything but a frame)."""
    if not isinstance(record, dict) or record.get("type") != "frame":
        return None
    value = record.get("connection")
    return str(value) if isinstance(value, int | str) and not isinstance(value, bool) else "?"


class InspectorTrace(Stateless, frozen=True):
    """`acp-inspector-trace` v1: a header line, then frames."""

    name: str = NAME
    summary: str = "acp-inspector-trace v1: header, then frames with epoch-ms `at`, per connection"
    producers: str = "the Rust ACP Inspector's trace export (sagikazarmark/acp-inspector)"
    example: str = (
        '{"type": "frame", "at": 1785312000456, "connection": 1, "direction": '
        '"client -> agent", "encoding": "utf8", "frame": "{\\"jsonrpc\\": \\"2.0\\", ...}"}'
    )

    def detect(self, record: Any) -> bool:
        """The header, or a frame with a frame string."""
        if not isinstance(record, dict):
            return False
        if record.get("type") == "header":
            return record.get("format") == NAME
        return record.get("type") == "frame" and "frame" in record and "direction" in record

    def decode(self, record: Any, line: int) -> Iterator[Record]:
        """The header becomes an event (and `frames_dropped`), a frame its message."""
        ts_ns = _epoch_ms_ns(record.get("at"))
        if record.get("type") == "header":
            yield RecorderEvent(line, "header", ts_ns, None, dict(record))
            yield from _header_issues(record, line)
            return
        word = record.get("direction")
        direction = _DIRECTIONS.get(word, Direction.UNKNOWN) if isinstance(word, str) else None
        if direction is None or direction is Direction.UNKNOWN:
            yield Issue(
                line, IssueKind.UNKNOWN_DIRECTION, f"unknown direction {excerpt(word)}: inferred"
            )
            direction = Direction.UNKNOWN
        encoding = record.get("encoding", "utf8")
        if encoding != "utf8":
            side = SIDES.get(direction, "peer")
            yield Issue(
                line, IssueKind.NOT_UTF8, f"the {side} wrote a frame in {excerpt(encoding)}"
            )
            return
        frame = record.get("frame")
        if not isinstance(frame, str):
            yield Issue(
                line, IssueKind.UNKNOWN_ENVELOPE, "frame is not a JSON-RPC line as a string"
            )
            return
        yield from decode_payload(frame, line, direction, ts_ns, None, connection_of(record))


def _header_issues(header: dict[str, Any], line: int) -> Iterator[Issue]:
    if header.get("version") != 1:
        version = excerpt(header.get("version"))
        yield Issue(line, IssueKind.UNKNOWN_ENVELOPE, f"version {version}: read as version 1")
    dropped = header.get("dropped")
    if isinstance(dropped, int) and not isinstance(dropped, bool) and dropped > 0:
        message = (
            f"the inspector dropped {dropped} frame(s): the file is not the whole session, "
            "so rule results are less certain"
        )
        yield Issue(line, IssueKind.FRAMES_DROPPED, message)


def _epoch_ms_ns(value: Any) -> int | None:
    """Nanoseconds since the Unix epoch from milliseconds."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, int) and value not in INT64:  # (too big to divide into a float)
        return None
    return seconds_ns(value / 1000)


FORMAT = InspectorTrace()


def connections(records: Iterable[Record], counted: Callable[[], int]) -> list[Part]:
    """One part per `connection` value of an acp-inspector-trace export (its `records`, read
    as this format's, as they come; `counted`: its lines, asked once they are all read), in
    order of first frame; what comes before the first frame (the header) belongs to each."""
    split = _Split()
    for record in clocked(records):
        split.add(record)
    split.flush()
    ended = split.ended()
    lines = counted()
    if not ended and any(isinstance(r, Issue) for r in split.preamble):
        # (no frame read, and lines that are not one: their issues are still the file's)
        return [Part(None, NAME, lines, split.preamble)]
    return [Part(name, NAME, lines, [*split.preamble, *records]) for name, records in ended.items()]


class _Split:
    """Records sorted into connections as they come (issues go with their frame's line)."""

    def __init__(self) -> None:
        self.preamble: list[Record] = []
        self.connections: dict[str, list[Record]] = {}
        self.frames: list[str] = []
        self.last: dict[str, int] = {}
        self.current: str | None = None
        self.pending: list[Record] = []

    def add(self, record: Record) -> None:
        if not isinstance(record, Envelope) or record.connection is None:
            self.pending.append(record)
            return
        for held in self.pending:
            self._keep(record.connection if held.line == record.line else self.current, held)
        self.pending.clear()
        self.current = record.connection
        self.last[record.connection] = len(self.frames)
        self.frames.append(record.connection)
        self._keep(record.connection, record)

    def flush(self) -> None:
        for held in self.pending:
            self._keep(self.current, held)
        self.pending.clear()

    def _keep(self, connection: str | None, record: Record) -> None:
        if connection is None:
            self.preamble.append(record)
        else:
            self.connections.setdefault(connection, []).append(record)

    def ended(self) -> dict[str, list[Record]]:
        """The connections, each closed when a frame of a higher connection number follows
        its last frame (input-formats.md)."""
        later = _later_highest(self.frames)
        for name, records in self.connections.items():
            number, after = _number(name), later[self.last[name]]
            if number is not None and after is not None and after > number:
                line = records[-1].line
                records.append(RecorderEvent(line, "close", detail={"reason": "next_connection"}))
        return self.connections


def _later_highest(frames: list[str]) -> list[int | None]:
    """For each frame, the highest connection number among the frames after it."""
    highest: int | None = None
    result: list[int | None] = [None] * len(frames)
    for index in range(len(frames) - 1, -1, -1):
        result[index] = highest
        number = _number(frames[index])
        if number is not None and (highest is None or number > highest):
            highest = number
    return result


def _number(name: str) -> int | None:
    try:
        return int(name)
    except ValueError:
        return None
