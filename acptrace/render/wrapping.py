"""Text wrapped between words, and a word wider than the line only where an identifier parts
itself: after a `/`, `_` or `-` (`session/` | `request_permission`, a session id at its
hyphens). rich's `overflow="fold"` cuts such a word wherever the line ends
(`session/request_permissi` | `on`, a session id before its last character), and what is
copied from a terminal is then no longer the identifier. A piece with no such boundary is kept
whole; it is cut (folded) only where it is wider than the whole line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from rich.cells import cell_len, chop_cells
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.text import Text

_WORD = re.compile(r"\s*\S+\s*")
"""A word and the spaces after it (and before it, at the start of a line), as rich reads."""
_PIECE = re.compile(r"[^/_-]*(?:[/_-]+|$)")
"""A piece of a word: up to and with the separators that end it (`session/`, `request_`)."""


def pieces(word: str) -> list[str]:
    """The word in the pieces a line may end after: `a/b_c-d` is `a/`, `b_`, `c-`, `d`."""
    return [piece for piece in _PIECE.findall(word) if piece]


def line_breaks(line: str, first: int, rest: int) -> list[int]:
    """The offsets where one line of text (no newline in it) is broken so that its first part
    fits `first` cells and every other `rest`: between words, a word wider than a line between
    its `pieces`, and a piece wider than a line anywhere (the only cut inside a name)."""
    breaks: list[int] = []
    column = 0
    for word in _WORD.finditer(line):
        width = rest if breaks else first
        if column + cell_len(word.group().rstrip()) <= width:
            column += cell_len(word.group())
            continue
        start = word.start()
        for piece in _whole_or_pieces(word.group(), rest):
            width = rest if breaks else first
            length = cell_len(piece.rstrip())
            if column + length > width and column and start:
                breaks.append(start)
                column, width = 0, rest
            if length > width:  # (no boundary: cut where the line ends, as rich folds)
                folded = chop_cells(piece.rstrip(), width)[:-1]
                for chunk in folded:
                    start += len(chunk)
                    breaks.append(start)
                piece = piece[sum(map(len, folded)) :]
            column += cell_len(piece)
            start += len(piece)
    return breaks


def _whole_or_pieces(word: str, width: int) -> list[str]:
    """The word whole when it fits a line, else its pieces (a boundary is a place to break
    only when the word must break)."""
    return [word] if cell_len(word.rstrip()) <= width else pieces(word)


def wrapped(text: Text, first: int, rest: int | None = None) -> list[Text]:
    """The text's lines (its own, then each broken by `line_breaks`), the first `first` cells
    wide and the others `rest` (`first` when None), without the spaces at a break."""
    lines: list[Text] = []
    for line in text.split("\n", allow_blank=True):
        other = first if rest is None else rest
        breaks = line_breaks(line.plain, other if lines else first, other)
        for part in line.divide(breaks) if breaks else [line]:
            part.rstrip()
            lines.append(part)
    return lines


class Wrapped:
    """Text in a table cell wrapped by `wrapped`: the column is measured by its longest piece,
    so that rich makes it wide enough to show every piece whole."""

    def __init__(self, text: Text) -> None:
        self.text = text

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        lines = self.text.plain.split("\n")
        longest = max(cell_len(p.rstrip()) for line in lines for p in _pieces_of(line))
        widest = max(cell_len(line) for line in lines)
        return Measurement(longest, widest)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        joined = Text("\n", end=self.text.end).join(wrapped(self.text, options.max_width))
        joined.no_wrap = True
        yield joined


def _pieces_of(line: str) -> Iterator[str]:
    for word in line.split() or [""]:
        yield from pieces(word) or [""]
