"""Files that hold several connections (acp-tck reports, acp-inspector-trace exports), cut into
one `Part` per connection, each then walked on its own like a file of its own."""

from __future__ import annotations

from typing import BinaryIO

from acptrace.decode.classify import Found
from acptrace.decode.stream import ReadStats, read_records
from acptrace.model.domain import Issue, IssueKind, Message, UpdateRun
from acptrace.model.options import Options
from acptrace.read.clocks import Clock
from acptrace.read.connections import BOM, MULTI_CONNECTION_FORMATS, Part, multi_connection_format
from acptrace.read.envelopes import Envelope, Record, RecorderEvent
from acptrace.read.formats import ReadSettings, acp_tck, inspector_trace
from acptrace.read.positions import load_located
from acptrace.read.source import iter_blocks, peek_head, read_whole


def read_parts(stream: BinaryIO, options: Options, max_line_bytes: int) -> list[Part] | None:
    """The connections of a multi-connection file, in file order; None for any other file."""
    forced = options.input_format
    if forced is not None:
        chosen = forced if forced in MULTI_CONNECTION_FORMATS else None
    else:
        chosen = multi_connection_format(peek_head(stream))
    if chosen == acp_tck.NAME:
        return _tck_parts(read_whole(stream))
    if chosen == inspector_trace.NAME:
        return _inspector_parts(stream, max_line_bytes)
    return None


def _tck_parts(data: bytes) -> list[Part]:
    """One part per test transcript of an acp-tck report."""
    data = data.removeprefix(BOM)
    lines = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
    try:
        document = load_located(data.decode("utf-8"))
    except UnicodeDecodeError as error:
        issue = Issue(
            data.count(b"\n", 0, error.start) + 1, IssueKind.NOT_UTF8, "report is not UTF-8"
        )
        return [Part("report", acp_tck.NAME, lines, [issue])]
    except (ValueError, RecursionError) as error:
        line = getattr(error, "lineno", 1)
        issue = Issue(line, IssueKind.NOT_JSON, f"not a complete acp-tck report: {error}")
        return [Part("report", acp_tck.NAME, lines, [issue])]
    version = acp_tck.report_version(document)
    return [
        Part(
            test.nodeid,
            acp_tck.NAME,
            lines,
            _clocked(test.records),
            tuple(test.requirements),
            test.status,
            version,
        )
        for test in acp_tck.read_report(document)
    ]


def _clocked(records: list[Record]) -> list[Record]:
    """The records of one connection, each followed by a `time_went_back` issue where its
    clock went back (rules.md §11: acp-tck's `t` too)."""
    clock = Clock()
    checked: list[Record] = []
    for record in records:
        checked.append(record)
        issue = clock.check(record)
        if issue is not None:
            checked.append(issue)
    return checked


def _inspector_parts(stream: BinaryIO, max_line_bytes: int) -> list[Part]:
    """One part per `connection` value of an acp-inspector-trace export, in order of first
    frame; what comes before the first frame (the header) belongs to each."""
    stats = ReadStats()
    settings = ReadSettings(fast=False)
    blocks = iter_blocks(stream, max_line_bytes)
    split = _Split()
    for record in read_records(blocks, stats, inspector_trace.FORMAT, settings):
        assert not isinstance(record, Message | Found | UpdateRun), "not a format of the hot path"
        split.add(record)
    split.flush()
    return [
        Part(name, inspector_trace.NAME, stats.lines, [*split.preamble, *records])
        for name, records in split.ended().items()
    ]


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
