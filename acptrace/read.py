"""Lines in, records out: the only place that parses JSON.

The reader detects the format from the first records (or takes the one it is told), decodes
every line into envelopes, recorder events and issues, and accounts for every line.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson

from acptrace.excerpt import excerpt
from acptrace.formats import DEFAULT_FORMAT, FORMATS, TranscriptFormat
from acptrace.model import Issue
from acptrace.records import Envelope, Record, RecorderEvent
from acptrace.source import RawLine

DETECTION_SAMPLE = 16
"""How many parsed records the format is detected from."""

_WHITESPACE = b" \t\r\n\f\v"


@dataclass(slots=True)
class ReadStats:
    """What the reader saw, filled in while it runs."""

    format: str = DEFAULT_FORMAT.name
    """The format used for the input."""
    lines: int = 0
    """Every line of the input, blank ones included."""
    blank: int = 0
    """Lines with nothing but white space."""
    mixed_formats: set[str] = field(default_factory=set)
    """Other formats that records of the input had (reported once each)."""


def read_records(
    lines: Iterable[RawLine], stats: ReadStats, forced: TranscriptFormat | None = None
) -> Iterator[Record]:
    """Decode every line into records; `stats` is filled in as the lines go by."""
    parsed = _parse_lines(lines, stats)
    chosen = forced
    pending: list[tuple[int, Any] | Issue] = []
    if chosen is None:
        for item in parsed:
            pending.append(item)
            if sum(1 for p in pending if not isinstance(p, Issue)) >= DETECTION_SAMPLE:
                break
        chosen = _detect(p[1] for p in pending if not isinstance(p, Issue))
    stats.format = chosen.name
    clock = _Clock()
    for item in _chain(pending, parsed):
        if isinstance(item, Issue):
            yield item
            continue
        number, value = item
        for record in _decode(value, number, chosen, stats, others=forced is None):
            yield record
            yield from clock.check(record)


def _chain(
    first: list[tuple[int, Any] | Issue], rest: Iterator[tuple[int, Any] | Issue]
) -> Iterator[tuple[int, Any] | Issue]:
    """The buffered detection sample, then the rest of the stream."""
    yield from first
    yield from rest


def _detect(sample: Iterable[Any]) -> TranscriptFormat:
    """The format that most sampled records have; registry order breaks ties."""
    votes = dict.fromkeys(FORMATS, 0)
    for record in sample:
        for candidate in FORMATS:
            if candidate.detect(record):
                votes[candidate] += 1
                break
    best = max(FORMATS, key=lambda f: votes[f])
    return best if votes[best] else DEFAULT_FORMAT


def _decode(
    value: Any, number: int, chosen: TranscriptFormat, stats: ReadStats, *, others: bool
) -> Iterator[Record]:
    """Decode a record with the chosen format, or (`others`) another one that fits (reported)."""
    if chosen.detect(value):
        yield from chosen.decode(value, number)
        return
    for other in FORMATS if others else ():
        if other is not chosen and other.detect(value):
            if other.name not in stats.mixed_formats:
                stats.mixed_formats.add(other.name)
                yield Issue(
                    number, "mixed_format", f"a {other.name} record in a {chosen.name} transcript"
                )
            yield from other.decode(value, number)
            return
    if chosen is DEFAULT_FORMAT:
        yield from chosen.decode(value, number)
    else:
        yield Issue(number, "unknown_envelope", f"not a {chosen.name} record: {excerpt(value)}")


def _parse_lines(lines: Iterable[RawLine], stats: ReadStats) -> Iterator[tuple[int, Any] | Issue]:
    """Parse each line as JSON; yield (line, value) or an issue, skip blank lines."""
    crlf_reported = False
    for raw in lines:
        stats.lines = raw.number
        if raw.too_long:
            yield Issue(raw.number, "line_too_long", f"line of {raw.too_long} bytes skipped")
            continue
        if raw.crlf and not crlf_reported:
            crlf_reported = True
            yield Issue(raw.number, "crlf", "lines end with CRLF; read as LF")
        if not raw.data.strip(_WHITESPACE):
            stats.blank += 1
            continue
        try:
            yield raw.number, orjson.loads(raw.data)
        except orjson.JSONDecodeError:
            yield _unparsable(raw)


def _unparsable(raw: RawLine) -> Issue:
    """Say why a line is not JSON: cut off, not UTF-8, NUL bytes, or just not JSON."""
    if not raw.ended:
        return Issue(raw.number, "truncated_line", "last line is cut off (no newline, not JSON)")
    try:
        text = raw.data.decode("utf-8")
    except UnicodeDecodeError as error:
        return Issue(raw.number, "not_utf8", f"invalid UTF-8 at byte {error.start}")
    if "\x00" in text:
        return Issue(raw.number, "not_json", "line contains NUL bytes")
    return Issue(raw.number, "not_json", f"line is not JSON: {excerpt(text)}")


@dataclass(slots=True)
class _Clock:
    """Notices timestamps that go backwards, per clock."""

    last_ts_ns: int | None = None
    last_mono_ns: int | None = None

    def check(self, record: Record) -> Iterator[Issue]:
        """An issue when this record is earlier than the one before it."""
        if not isinstance(record, Envelope | RecorderEvent):
            return
        if record.mono_ns is not None:
            if self.last_mono_ns is not None and record.mono_ns < self.last_mono_ns:
                yield Issue(
                    record.line, "time_went_back", "mono_ns is earlier than the line before"
                )
            self.last_mono_ns = record.mono_ns
        elif record.ts_ns is not None:
            if self.last_ts_ns is not None and record.ts_ns < self.last_ts_ns:
                yield Issue(record.line, "time_went_back", "ts is earlier than the line before")
            self.last_ts_ns = record.ts_ns
