"""Lines in, records out: the input's format detected (or told), every line accounted for.

A format that owns its bytes claims an input by its first line (`OwnsBytes`: Zed's multi-line
JSON array, agent-shell's S-expressions) and reads it whole; otherwise the line formats vote on
the first `DETECTION_SAMPLE` records, and each line is parsed as JSON and decoded by the chosen
format into envelopes, recorder events and issues. The plain lines of the fast formats are left
whole (`LineBlock`s, `RawLine`s) for the decode stage's hot path, which hands back what it does
not take (`Reader.line_records`). This is the only place that parses a line-based input.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import chain
from typing import Any

import msgspec

from acptrace.model.domain import Issue, IssueKind
from acptrace.model.excerpt import excerpt
from acptrace.read.envelopes import Record
from acptrace.read.formats import DEFAULT_FORMAT, FORMATS, Decoder, ReadSettings, TranscriptFormat
from acptrace.read.formats.base import OwnsBytes, Parsed, Stateless
from acptrace.read.jsontext import JSONDecodeError, Mended, too_deep, too_deep_issue
from acptrace.read.jsontext import parsed as parsed_json
from acptrace.read.source import BlankLines, LineBlock, RawLine

DETECTION_SAMPLE = 16
"""How many parsed records the format is detected from."""
FAST_FORMATS = ("acptrace", "jsonrpc")
"""Formats whose plain lines the decode stage's hot path reads straight to messages."""

_WHITESPACE = b" \t\r\n\f\v"

Unparsed = Record | LineBlock | RawLine
"""What a reader gives: records, and the fast formats' lines left for the hot path."""


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
    whole: bool = False
    """A format that owns its bytes read the input (a multi-line array, S-expressions): it
    cannot be cut at line ends."""


class NeedsOrder(Exception):
    """A record of a format that decodes with state, met by a reader allowed only stateless ones."""


class Reader:
    """One input as records of its format.

    The first lines are read one by one until the format is known; the rest, with `fast`, as
    they come (blocks of lines and lines the hot path reads), else parsed and decoded here.
    """

    __slots__ = ("_decoders", "_forced", "_head", "_lines", "chosen", "fast", "stats")

    def __init__(
        self,
        lines: Iterable[RawLine | LineBlock | BlankLines],
        stats: ReadStats,
        forced: TranscriptFormat | None = None,
        settings: ReadSettings | None = None,
    ) -> None:
        settings = settings or ReadSettings()
        self.stats = stats
        self._forced = forced
        self._lines: _Lines | None = _Lines(lines, stats)
        one_by_one = self._lines.one_by_one()
        owner, first = _owner(one_by_one, stats, forced)
        sample: list[Parsed] = []
        if owner is not None:
            stats.whole, self._lines = True, None
            self._head: Iterator[Parsed | Record] = owner.read(
                chain(first, one_by_one), self._decode
            )
        else:
            parsed = _parse(chain(first, one_by_one), stats)
            sample = _sample(parsed, 1 if forced is not None else DETECTION_SAMPLE)
            self._head = iter(sample)
        values = [p[1] for p in sample if isinstance(p, tuple)]
        self.chosen: TranscriptFormat = owner or forced or _detect(values)
        self.fast = settings.fast and self.chosen.name in FAST_FORMATS and owner is None
        """The rest of the input is left to the hot path: blocks of lines, and lines."""
        self._decoders = _Decoders(self.chosen, settings, values, stats, forced is not None)
        stats.format = self.chosen.name
        stats.note = self._decoders.primary.note

    def items(self) -> Iterator[Unparsed]:
        """The input's records in order; with `fast`, the lines after the first ones as they
        come, for the hot path."""
        for item in self._head:
            if isinstance(item, Issue | tuple):
                yield from self._records_of(item)
            else:
                yield item
        if self._lines is not None:
            fast = self.fast
            for line in self._lines.rest(fast):
                if isinstance(line, LineBlock) or (fast and isinstance(line, RawLine)):
                    yield line
                else:
                    yield from self._records_of(_parsed_line(line, self.stats))
        self.stats.note = self._decoders.primary.note

    def records(self) -> Iterator[Record]:
        """The input's records, for a reader that is not `fast` (it leaves no line)."""
        for item in self.items():
            assert not isinstance(item, LineBlock | RawLine), "lines are the hot path's"
            yield item

    def line_records(self, raw: RawLine) -> Iterator[Record]:
        """The records of one line the hot path did not take (nothing for a blank line)."""
        yield from self._records_of(_parsed_line(raw, self.stats))

    def _records_of(self, parsed: Parsed | None) -> Iterator[Record]:
        """A parsed line's records: an issue as it is, a JSON value decoded."""
        return _records(self._decoders, parsed)

    def _decode(self, parsed: Iterable[Parsed]) -> Iterator[Record]:
        """What a format that owns its bytes hands back to be decoded: parsed JSON values (a
        Zed dump's elements), read as the line formats' records (detected among them)."""
        parsed = iter(parsed)
        sample = _sample(parsed, 1 if self._forced is not None else DETECTION_SAMPLE)
        values = [p[1] for p in sample if isinstance(p, tuple)]
        self.chosen = self._forced or _detect(values)
        settings = self._decoders.settings
        strict = self._forced is not None
        self._decoders = _Decoders(self.chosen, settings, values, self.stats, strict)
        self.stats.format = self.chosen.name
        for item in chain(sample, parsed):
            yield from self._records_of(item)


class LaterLines:
    """Reads lines from inside an input whose format is known: the pieces of a split file.

    Nothing is detected and no format that owns its bytes is met (`detect_format` settled
    both); the state that spans pieces (the decoders of other formats met, the counts in
    `stats`) is kept here, so one reader reads its pieces in order.
    """

    __slots__ = ("_decoders", "chosen", "stats")

    def __init__(
        self,
        chosen: TranscriptFormat,
        settings: ReadSettings,
        strict: bool,
        stateless_only: bool,
        stats: ReadStats | None = None,
    ) -> None:
        self.chosen = chosen
        self.stats = ReadStats() if stats is None else stats
        self.stats.format = chosen.name
        self._decoders = _Decoders(chosen, settings, [], self.stats, strict, stateless_only)
        """`stateless_only`: raise `NeedsOrder` at a record of another format that decodes
        with state (conductor's link): only a reader that sees every such record in order
        decodes them as one pass would. `strict`: the format was forced."""

    @property
    def fast(self) -> bool:
        """The lines go to the hot path (`Reader.fast`)."""
        return self._decoders.settings.fast and self.chosen.name in FAST_FORMATS

    def items(self, lines: Iterable[RawLine | LineBlock | BlankLines]) -> Iterator[Unparsed]:
        """The records of these lines, as `Reader.items` gives them past its first lines."""
        fast = self.fast
        for line in _Lines(lines, self.stats).rest(fast):
            if isinstance(line, LineBlock) or (fast and isinstance(line, RawLine)):
                yield line
            else:
                yield from self._records_of(_parsed_line(line, self.stats))

    def line_records(self, raw: RawLine) -> Iterator[Record]:
        """The records of one line the hot path did not take."""
        yield from self._records_of(_parsed_line(raw, self.stats))

    def _records_of(self, parsed: Parsed | None) -> Iterator[Record]:
        return _records(self._decoders, parsed)


def _records(decoders: _Decoders, parsed: Parsed | None) -> Iterator[Record]:
    """A parsed line's records: an issue as it is, a JSON value decoded (after the issue of
    what had to be mended to read it)."""
    if isinstance(parsed, tuple):
        if isinstance(parsed, Mended):
            yield parsed.issue
        yield from decoders.decode(parsed[1], parsed[0])
    elif parsed is not None:
        yield parsed


def detect_format(
    lines: Iterable[RawLine], forced: TranscriptFormat | None = None
) -> TranscriptFormat | None:
    """The format `Reader` chooses for an input that starts with these lines.

    None when they do not settle it: fewer than `DETECTION_SAMPLE` records, or a format that
    owns its bytes claims the input (it cannot be cut at line ends). The caller can then read a
    head of the input only, and know the format before reading the rest.
    """
    stats = ReadStats()
    one_by_one = _Lines(lines, stats).one_by_one()
    owner, first = _owner(one_by_one, stats, forced)
    if owner is not None:
        return None
    sample = _sample(_parse(chain(first, one_by_one), stats), DETECTION_SAMPLE)
    values = [p[1] for p in sample if isinstance(p, tuple)]
    if len(values) < DETECTION_SAMPLE:
        return None
    return forced or _detect(values)


def _owner(
    lines: Iterator[RawLine | Issue], stats: ReadStats, forced: TranscriptFormat | None
) -> tuple[OwnsBytes | None, list[RawLine | Issue]]:
    """The format that owns the input's bytes: the first (the forced one first) to claim the
    first line that is not blank; and the lines read to know it. (A forced line format still
    reads a Zed dump's elements, as it always has: `Reader._decode` keeps it.)"""
    owners = [f for f in (forced, *FORMATS) if f is not None and isinstance(f, OwnsBytes)]
    read: list[RawLine | Issue] = []
    for item in lines:
        read.append(item)
        if isinstance(item, Issue) or not (item.too_long or item.data.strip(_WHITESPACE)):
            continue
        owner = next((f for f in owners if f.claims(item)), None)
        if owner is None:
            return None, read  # (read again: the line formats' reading counts the blank lines)
        stats.blank += sum(1 for r in read[:-1] if isinstance(r, RawLine))
        return owner, [r for r in read if isinstance(r, Issue) or r is item]
    return None, read


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
            # (named by its format: "not a acptrace record" read wrong)
            text = f"not a record of the {self.chosen.name} format: {excerpt(value)}"
            yield Issue(number, IssueKind.UNKNOWN_ENVELOPE, text)

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
            lines = block.lines[self._next :]
            rest = LineBlock(block.first + self._next, lines, block.cr, block.digits)
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


def _parse(stream: Iterable[RawLine | Issue], stats: ReadStats) -> Iterator[Parsed]:
    """Each line parsed as JSON; blank lines skipped."""
    for item in stream:
        parsed = item if isinstance(item, Issue) else _parsed_line(item, stats)
        if parsed is not None:
            yield parsed


def _parsed_line(raw: RawLine | Issue, stats: ReadStats) -> Parsed | None:
    """One line as JSON, or the issue that says why it is not; None for a blank line."""
    if isinstance(raw, Issue):
        return raw
    if _blank(raw, stats):
        return None
    if raw.too_long:
        return Issue(raw.number, IssueKind.LINE_TOO_LONG, f"line of {raw.too_long} bytes skipped")
    try:
        return parsed_json(raw.number, raw.data)
    except JSONDecodeError as error:
        return too_deep_issue(raw.number) if too_deep(error) else _unparsable(raw)


def _blank(raw: RawLine, stats: ReadStats) -> bool:
    """A line of white space only (counted as blank)."""
    if raw.too_long or raw.data.strip(_WHITESPACE):
        return False
    stats.blank += 1
    return True


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
