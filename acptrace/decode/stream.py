"""Lines in, records out: the only place that parses JSON (with the formats it drives).

The reader detects the format from the first records (or takes the one it is told), decodes
every line into envelopes, recorder events and issues, and accounts for every line. An input
whose first line opens a JSON array that does not close on it (Zed's pretty-printed log) is
split into the array's elements, each at the line where it starts.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import chain
from typing import Any

import msgspec

from acptrace.decode.classify import Found
from acptrace.decode.fastpath import FastDecoder
from acptrace.model.domain import Issue, IssueKind, Message, UpdateRun
from acptrace.model.excerpt import excerpt
from acptrace.read.arrays import split_array
from acptrace.read.clocks import Clock
from acptrace.read.envelopes import Record
from acptrace.read.formats import DEFAULT_FORMAT, FORMATS, Decoder, ReadSettings, TranscriptFormat
from acptrace.read.formats.base import Stateless
from acptrace.read.jsontext import MAX_DEPTH, JSONDecodeError, loads, too_deep
from acptrace.read.source import BlankLines, LineBlock, RawLine

DETECTION_SAMPLE = 16
"""How many parsed records the format is detected from."""

_WHITESPACE = b" \t\r\n\f\v"

Parsed = tuple[int, Any] | Issue | Message | Found
Read = Record | Message | Found | UpdateRun
"""What the reader yields (a message with its payload, `Found`, when payloads are kept)."""
FAST_FORMATS = ("acptrace", "jsonrpc")
"""Formats whose plain lines the hot path decodes straight to messages."""


class ReadStats(msgspec.Struct):
    """What the reader saw, filled in while it runs."""

    format: str = DEFAULT_FORMAT.name
    """The format used for the input."""
    note: str | None = None
    """What the format's decoder chose that the user should know (a conductor trace's link)."""
    lines: int = 0
    """Every line of the input, blank ones included."""
    blank: int = 0
    """Lines with nothing but white space."""
    mixed_formats: set[str] = msgspec.field(default_factory=set)
    """Other formats that records of the input had (reported once each)."""
    array: bool = False
    """The input is one JSON array spread over many lines (its elements are read instead)."""


def read_records(
    lines: Iterable[RawLine | LineBlock | BlankLines],
    stats: ReadStats,
    forced: TranscriptFormat | None = None,
    settings: ReadSettings | None = None,
) -> Iterator[Read]:
    """Decode every line into records; `stats` is filled in as the lines go by."""
    settings = settings or ReadSettings()
    source = _Lines(lines, stats)
    head = _parse(source.one_by_one(), stats)
    sample = _sample(head, 1 if forced is not None else DETECTION_SAMPLE)
    values = [] if forced is not None else [p[1] for p in sample if isinstance(p, tuple)]
    chosen = forced or _detect(values)
    fast = settings.fast and chosen.name in FAST_FORMATS and not stats.array
    decoder = FastDecoder(chosen.name, settings.runs_for, settings.payloads) if fast else None
    decoders = _Decoders(chosen, settings, values, stats, strict=forced is not None)
    stats.format = chosen.name
    stats.note = decoders.primary.note
    # The rest of a multi-line array is the head's to read; lines go on from where it stopped.
    rest = head if stats.array else _parse_rest(source.rest(blocks=fast), stats, decoder)
    yield from _records(chain(sample, rest), decoders, Clock(), decoder)
    stats.note = decoders.primary.note


def detect_format(
    lines: Iterable[RawLine], forced: TranscriptFormat | None = None
) -> TranscriptFormat | None:
    """The format `read_records` chooses for an input that starts with these lines.

    None when they do not settle it: fewer than `DETECTION_SAMPLE` records, or a first line
    that opens a multi-line array (an input that cannot be cut at line ends). The caller can
    then read a head of the input only, and know the format before reading the rest.
    """
    stats = ReadStats()
    sample = _sample(_parse(_Lines(lines, stats).one_by_one(), stats), DETECTION_SAMPLE)
    values = [p[1] for p in sample if isinstance(p, tuple)]
    if stats.array or len(values) < DETECTION_SAMPLE:
        return None
    return forced or _detect(values)


class NeedsOrder(Exception):
    """A record of a format that decodes with state, met by a reader allowed only stateless ones."""


class LaterLines:
    """Reads lines from inside an input whose format is known: the pieces of a split file.

    Nothing is detected and no multi-line array is looked for (`detect_format` settled both);
    each piece is read with its own clock, whose first times are left to the caller to check
    (`Clock(probing=True)`). The state that spans pieces (the decoders of other formats met,
    the counts in `stats`) is kept here, so one reader reads its pieces in order.
    """

    __slots__ = ("_decoder", "_decoders", "chosen", "settings", "stateless_only", "stats", "strict")

    def __init__(
        self,
        chosen: TranscriptFormat,
        settings: ReadSettings,
        strict: bool,
        stateless_only: bool,
        stats: ReadStats | None = None,
    ) -> None:
        self.chosen = chosen
        self.settings = settings
        self.strict = strict
        """The format was forced: records of other formats are not decoded."""
        self.stateless_only = stateless_only
        """Raise `NeedsOrder` at a record of another format that decodes with state
        (conductor's link): only a reader that sees every such record in order decodes them as
        one pass would."""
        self.stats = ReadStats() if stats is None else stats
        self.stats.format = chosen.name
        self._decoders = _Decoders(chosen, settings, [], self.stats, strict, stateless_only)
        fast = settings.fast and chosen.name in FAST_FORMATS
        self._decoder = (
            FastDecoder(chosen.name, settings.runs_for, settings.payloads) if fast else None
        )

    def records(
        self, lines: Iterable[RawLine | LineBlock | BlankLines], clock: Clock
    ) -> Iterator[Read]:
        """The records of these lines, as `read_records` gives them past its first lines."""
        fast = self._decoder is not None
        parsed = _parse_rest(_Lines(lines, self.stats).rest(fast), self.stats, self._decoder)
        return _records(parsed, self._decoders, clock, self._decoder)


def _sample(parsed: Iterator[Parsed], size: int) -> list[Parsed]:
    """The first items, up to the `size`th parsed record (consumed from `parsed`)."""
    sample: list[Parsed] = []
    records = 0
    for item in parsed:
        sample.append(item)
        records += isinstance(item, tuple)
        if records >= size:
            break
    return sample


def _records(
    parsed: Iterable[Parsed | LineBlock],
    decoders: _Decoders,
    clock: Clock,
    decoder: FastDecoder | None,
) -> Iterator[Read]:
    """Parsed lines decoded into records, each followed by what the clock says of it; blocks
    of lines on the hot path."""
    for item in parsed:
        if not isinstance(item, LineBlock):
            yield from _decoded(item, decoders, clock)
            continue
        assert decoder is not None, "blocks are kept together for the hot path only"
        for found in decoder.block(item, clock):
            if not isinstance(found, RawLine):
                yield found
            elif not _blank(found, decoders.stats):
                yield from _decoded(_parse_line(found), decoders, clock)


def _decoded(item: Parsed, decoders: _Decoders, clock: Clock) -> Iterator[Record | Message | Found]:
    """One parsed line decoded into records, each followed by what the clock says of it."""
    if isinstance(item, Issue):
        yield item
        return
    if isinstance(item, Message | Found):
        yield item
        if (issue := clock.check(item if isinstance(item, Message) else item.message)) is not None:
            yield issue
        return
    number, value = item
    for record in decoders.decode(value, number):
        yield record
        if (issue := clock.check(record)) is not None:
            yield issue


def _detect(sample: Iterable[Any]) -> TranscriptFormat:
    """The format that most sampled records have; registry order breaks ties."""
    votes = [0] * len(FORMATS)
    for record in sample:
        for index, candidate in enumerate(FORMATS):
            if candidate.detect(record):
                votes[index] += 1
                break
    best = max(range(len(FORMATS)), key=lambda index: (votes[index], -index))
    return FORMATS[best] if votes[best] else DEFAULT_FORMAT


class _Decoders:
    """The chosen format's decoder, and others' for records of another format (reported)."""

    __slots__ = ("chosen", "others", "primary", "settings", "stateless_only", "stats", "strict")

    def __init__(
        self,
        chosen: TranscriptFormat,
        settings: ReadSettings,
        sample: list[Any],
        stats: ReadStats,
        strict: bool,
        stateless_only: bool = False,
    ) -> None:
        self.chosen = chosen
        self.settings = settings
        self.stats = stats
        self.strict = strict
        self.stateless_only = stateless_only
        """Raise `NeedsOrder` rather than decode a record of a format with state (see
        `LaterLines`)."""
        self.primary: Decoder = chosen.decoder(sample, settings)
        self.others: dict[str, Decoder] = {}

    def decode(self, value: Any, number: int) -> Iterator[Record]:
        """Decode with the chosen format, or (unless forced) another one that fits."""
        if self.chosen.detect(value):
            yield from self.primary.decode(value, number)
            return
        for other in () if self.strict else FORMATS:
            if other is not self.chosen and other.detect(value):
                yield from self._mixed(other, value, number)
                return
        if self.chosen is DEFAULT_FORMAT:
            yield from self.primary.decode(value, number)
        else:
            name = self.chosen.name
            yield Issue(
                number, IssueKind.UNKNOWN_ENVELOPE, f"not a {name} record: {excerpt(value)}"
            )

    def _mixed(self, other: TranscriptFormat, value: Any, number: int) -> Iterator[Record]:
        if self.stateless_only and not isinstance(other, Stateless):
            raise NeedsOrder(other.name)
        if other.name not in self.stats.mixed_formats:
            self.stats.mixed_formats.add(other.name)
            message = f"a {other.name} record in a {self.chosen.name} transcript"
            yield Issue(number, IssueKind.MIXED_FORMAT, message)
        decoder = self.others.get(other.name)
        if decoder is None:
            decoder = self.others[other.name] = other.decoder([value], self.settings)
        yield from decoder.decode(value, number)


class _Lines:
    """The input's lines, numbered and counted in `stats`, CRLF line ends reported once: one by
    one while the format is detected (`one_by_one`), then the rest from where that stopped,
    blocks of lines kept whole for the hot path (`rest`). Runs of blank lines are counted
    (in `lines` and `blank`) and go no further."""

    __slots__ = ("_block", "_crlf_reported", "_items", "_next", "_stats")

    def __init__(self, lines: Iterable[RawLine | LineBlock | BlankLines], stats: ReadStats) -> None:
        self._items = iter(lines)
        self._stats = stats
        self._crlf_reported = False
        self._block: LineBlock | None = None
        """The block `one_by_one` was in when it was last asked, and its next line's index."""
        self._next = 0

    def one_by_one(self) -> Iterator[RawLine | Issue]:
        """Every line on its own (blocks taken apart)."""
        for item in self._items:
            if isinstance(item, RawLine):
                yield from self._counted(item)
                continue
            if isinstance(item, BlankLines):
                self._blank(item)
                continue
            self._block = item
            for index, raw in enumerate(item.raw_lines()):
                self._next = index + 1
                yield from self._counted(raw)
            self._block = None

    def rest(self, blocks: bool) -> Iterator[RawLine | LineBlock | Issue]:
        """The lines `one_by_one` did not give; with `blocks`, a block of lines (without CRs,
        whose line ends are told line by line) goes on whole."""
        items: Iterable[RawLine | LineBlock | BlankLines] = self._items
        block, self._block = self._block, None
        if block is not None and self._next < block.count:
            rest = LineBlock(block.first + self._next, block.lines[self._next :], block.cr)
            items = chain([rest], items)
        for item in items:
            if isinstance(item, RawLine):
                yield from self._counted(item)
            elif isinstance(item, BlankLines):
                self._blank(item)
            elif blocks and not item.cr:
                self._stats.lines = item.first + item.count - 1
                yield item
            else:
                for raw in item.raw_lines():
                    yield from self._counted(raw)

    def _blank(self, lines: BlankLines) -> None:
        count = lines.count
        self._stats.lines = lines.first + count - 1
        self._stats.blank += count

    def _counted(self, raw: RawLine) -> Iterator[RawLine | Issue]:
        self._stats.lines = raw.number
        if raw.crlf and not self._crlf_reported:
            self._crlf_reported = True
            yield Issue(raw.number, IssueKind.CRLF, "lines end with CRLF; read as LF")
        yield raw


def _parse(stream: Iterator[RawLine | Issue], stats: ReadStats) -> Iterator[Parsed]:
    """Parse each line as JSON (or each element of a multi-line array); skip blank lines."""
    for item in stream:
        if isinstance(item, Issue):
            yield item
        elif not _blank(item, stats):
            if _opens_multiline_array(item):
                stats.array = True
                yield from _parse_elements(chain([item], stream))
                return
            yield _parse_line(item)
            break
    for item in stream:  # (the lines after the first, in a line-based input)
        if isinstance(item, Issue):
            yield item
        elif not _blank(item, stats):
            yield _parse_line(item)


def _parse_rest(
    stream: Iterable[RawLine | LineBlock | Issue], stats: ReadStats, decoder: FastDecoder | None
) -> Iterator[Parsed | LineBlock]:
    """The lines after the first: plain ones on the hot path when there is one, the rest parsed."""
    for rest in stream:
        if isinstance(rest, Issue | LineBlock):
            yield rest
        elif not _blank(rest, stats):
            message = None if decoder is None else decoder.message(rest.data, rest.number)
            yield _parse_line(rest) if message is None else message


def _blank(raw: RawLine, stats: ReadStats) -> bool:
    """A line of white space only (counted as blank)."""
    if raw.too_long or raw.data.strip(_WHITESPACE):
        return False
    stats.blank += 1
    return True


def _opens_multiline_array(raw: RawLine) -> bool:
    """The line starts a JSON array that does not end on it."""
    if raw.too_long or not raw.data.lstrip(_WHITESPACE).startswith(b"["):
        return False
    try:
        loads(raw.data)
    except JSONDecodeError:
        return True
    return False


def _parse_elements(items: Iterable[RawLine | Issue]) -> Iterator[Parsed]:
    """Each element of a multi-line array, parsed, at the line where it starts."""
    for item in split_array(items):
        if isinstance(item, Issue):
            yield item
            continue
        number, data = item
        try:
            yield number, loads(data)
        except JSONDecodeError as error:
            if too_deep(error):
                yield _too_deep(number)
                continue
            text = excerpt(data.decode("utf-8", errors="replace"))
            yield Issue(number, IssueKind.NOT_JSON, f"array element is not JSON: {text}")


def _parse_line(raw: RawLine) -> Parsed:
    """One line as JSON, or the issue that says why it is not."""
    if raw.too_long:
        return Issue(raw.number, IssueKind.LINE_TOO_LONG, f"line of {raw.too_long} bytes skipped")
    try:
        return raw.number, loads(raw.data)
    except JSONDecodeError as error:
        return _too_deep(raw.number) if too_deep(error) else _unparsable(raw)


def _too_deep(line: int) -> Issue:
    """JSON nested too deeply to be read: it is JSON, but it is not read."""
    return Issue(
        line, IssueKind.TOO_DEEP, f"JSON nested deeper than {MAX_DEPTH:,} levels: not read"
    )


def _unparsable(raw: RawLine) -> Issue:
    """Say why a line is not JSON: cut off, not UTF-8, NUL bytes, or just not JSON."""
    if not raw.ended:
        return Issue(
            raw.number, IssueKind.TRUNCATED_LINE, "last line is cut off (no newline, not JSON)"
        )
    try:
        text = raw.data.decode("utf-8")
    except UnicodeDecodeError as error:
        return Issue(raw.number, IssueKind.NOT_UTF8, f"invalid UTF-8 at byte {error.start}")
    if "\x00" in text:
        return Issue(raw.number, IssueKind.NOT_JSON, "line contains NUL bytes")
    return Issue(raw.number, IssueKind.NOT_JSON, f"line is not JSON: {excerpt(text)}")
