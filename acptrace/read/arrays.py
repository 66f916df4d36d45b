"""Splitting one JSON array spread over many lines (Zed's pretty-printed log) into its elements.

The splitter never holds more than one element: it tracks strings, escapes and nesting with a
scan that jumps from one structural byte to the next.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from acptrace.model.domain import Issue
from acptrace.read.source import RawLine

_STRUCTURAL = re.compile(rb'["\\\[\]{},]')
_BLANK = b" \t\r\n\f\v"


@dataclass
class ArraySplitter:
    """Feed it the lines of an array (from its `[`); it yields (line, element bytes) or issues."""

    depth: int = 0
    in_string: bool = False
    escaped_at: int = -1
    closed: bool = False
    start_line: int | None = None
    element: bytearray = field(default_factory=bytearray)

    def feed(self, raw: RawLine) -> Iterator[tuple[int, bytes] | Issue]:
        """The elements that end on this line; after the closing `]`, stray bytes are issues."""
        data = raw.data
        begin = 0
        if self.closed:
            yield from self._trailing(raw, data)
            return
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
                    yield from self._trailing(raw, data[at + 1 :])
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
            yield Issue(line, "truncated_line", "the JSON array is cut off before its closing ]")

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

    def _trailing(self, raw: RawLine, rest: bytes) -> Iterator[Issue]:
        if rest.strip(_BLANK):
            yield Issue(raw.number, "not_json", "text after the end of the JSON array")


def split_array(lines: Iterable[RawLine | Issue]) -> Iterator[tuple[int, bytes] | Issue]:
    """Every element of an array that starts on the first of these lines (issues pass through;
    an over-long line inside the array is reported and left out)."""
    splitter = ArraySplitter()
    for raw in lines:
        if isinstance(raw, Issue):
            yield raw
        elif raw.too_long:
            yield Issue(raw.number, "line_too_long", f"line of {raw.too_long} bytes skipped")
        else:
            yield from splitter.feed(raw)
    yield from splitter.end()
