"""Splitting JSON arrays spread over many lines (Zed's pretty-printed log) into their elements.

The splitter never holds more than one element: it tracks strings, escapes and nesting with a
scan that jumps from one structural byte to the next. Users paste several dumps into one file:
the arrays are read in turn, as one transcript, and where an array begins with the elements of
the one before (a cumulative log pasted twice) that repeated start is skipped, with an issue.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

import msgspec

from acptrace.model.domain import Issue, IssueKind
from acptrace.read.source import RawLine

_STRUCTURAL = re.compile(rb'["\\\[\]{},]')
_BLANK = b" \t\r\n\f\v"


class ArraySplitter(msgspec.Struct):
    """Feed it the lines of an array (from its `[`); it yields (line, element bytes) or issues."""

    depth: int = 0
    in_string: bool = False
    escaped_at: int = -1
    closed: bool = False
    """The closing `]` was read."""
    rest: bytes = b""
    """What followed the closing `]` on its line."""
    start_line: int | None = None
    element: bytearray = msgspec.field(default_factory=bytearray)

    def feed(self, raw: RawLine) -> Iterator[tuple[int, bytes]]:
        """The elements that end on this line (up to the closing `]`, after which `rest` is)."""
        data = raw.data
        begin = 0
        self.escaped_at = -1
        for match in _STRUCTURAL.finditer(data):
            at = match.start()
            char = data[at : at + 1]
            if self.in_string:
                self._in_string(char, at)
                continue
            if char == b'"':
                self.in_string = True
            elif char in b"[{":
                self.depth += 1
                if self.depth == 1:
                    begin = at + 1
                    continue
            elif char in b"]}":
                self.depth -= 1
                if self.depth == 0:
                    yield from self._finish(raw.number, data[begin:at])
                    self.closed = True
                    self.rest = data[at + 1 :]
                    return
            elif char == b"," and self.depth == 1:
                yield from self._finish(raw.number, data[begin:at])
                begin = at + 1
                continue
            if self.depth >= 1 and self.start_line is None:
                self.start_line = raw.number
        self._keep(raw.number, data[begin:])

    def end(self) -> Iterator[Issue]:
        """The input ended: an unclosed array is cut off."""
        if not self.closed:
            line = self.start_line if self.start_line is not None else 1
            yield Issue(
                line, IssueKind.TRUNCATED_LINE, "the JSON array is cut off before its closing ]"
            )

    def _in_string(self, char: bytes, at: int) -> None:
        if at == self.escaped_at:
            self.escaped_at = -1
        elif char == b"\\":
            self.escaped_at = at + 1
        elif char == b'"':
            self.in_string = False

    def _keep(self, number: int, chunk: bytes) -> None:
        """Add a piece of the current element (and the line break that followed it)."""
        if self.start_line is None and chunk.strip(_BLANK):
            self.start_line = number
        if self.start_line is not None:
            self.element += chunk + b"\n"

    def _finish(self, number: int, chunk: bytes) -> Iterator[tuple[int, bytes]]:
        """The element that a `,` or the closing `]` ended."""
        self._keep(number, chunk)
        text = bytes(self.element).strip(_BLANK)
        if text:
            yield (self.start_line or number), text
        self.element.clear()
        self.start_line = None


class RepeatFilter(msgspec.Struct):
    """Skips the start of an array that repeats the array before it, element for element."""

    before: list[bytes] = msgspec.field(default_factory=list)
    """Digests of the previous array's elements."""
    current: list[bytes] = msgspec.field(default_factory=list)
    """Digests of this array's elements so far."""
    skipped: int = 0
    first_line: int = 0
    repeating: bool = True

    def next_array(self) -> Iterator[Issue]:
        """A new array starts: the one read so far becomes the one to compare with."""
        yield from self._report()
        self.before, self.current = self.current, []
        self.skipped, self.repeating = 0, True

    def keep(self, line: int, element: bytes) -> Iterator[tuple[int, bytes] | Issue]:
        """The element, unless it repeats the previous array at the same place."""
        from hashlib import blake2b  # (here: only Zed's array logs need it)

        digest = blake2b(element, digest_size=16).digest()
        index = len(self.current)
        self.current.append(digest)
        if self.repeating and index < len(self.before) and self.before[index] == digest:
            if not self.skipped:
                self.first_line = line
            self.skipped += 1
            return
        self.repeating = False
        yield from self._report()
        yield line, element

    def _report(self) -> Iterator[Issue]:
        if self.skipped:
            message = (
                f"{self.skipped} element(s) repeat the start of the array before: "
                "skipped (a log pasted again)"
            )
            yield Issue(self.first_line, IssueKind.REPEATED_MESSAGES, message)
            self.skipped = 0


def split_array(lines: Iterable[RawLine | Issue]) -> Iterator[tuple[int, bytes] | Issue]:
    """Every element of the arrays that start on the first of these lines, one after another
    (issues pass through; an over-long line inside an array is reported and left out)."""
    splitter = ArraySplitter()
    repeats = RepeatFilter()
    for raw in lines:
        if isinstance(raw, Issue):
            yield raw
        elif raw.too_long:
            yield Issue(
                raw.number, IssueKind.LINE_TOO_LONG, f"line of {raw.too_long} bytes skipped"
            )
        else:
            if splitter.closed:
                if not raw.data.lstrip(_BLANK).startswith(b"["):
                    yield from _stray(raw.number, raw.data)
                    continue
                splitter = ArraySplitter()
                yield from repeats.next_array()
            while True:
                for number, element in splitter.feed(raw):
                    yield from repeats.keep(number, element)
                rest = splitter.rest
                if not splitter.closed or not rest.lstrip(_BLANK).startswith(b"["):
                    break
                splitter = ArraySplitter()  # another array opens on the same line
                yield from repeats.next_array()
                raw = RawLine(raw.number, rest, raw.ended)
            if splitter.closed:
                yield from _stray(raw.number, splitter.rest)
                splitter.rest = b""
    yield from repeats.next_array()
    yield from splitter.end()


def _stray(number: int, data: bytes) -> Iterator[Issue]:
    """Text between or after the arrays."""
    if data.strip(_BLANK):
        yield Issue(number, IssueKind.NOT_JSON, "text after the end of the JSON array")
