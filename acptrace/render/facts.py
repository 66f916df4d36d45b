"""A line of facts (`20 lines · 18 messages · 0 issues`) that wraps between facts only.

Rich wraps a text at any space, so a narrow terminal could leave a count on one line and its
unit on the next (`18` / `messages`). `Facts` lays its facts out for the width it is printed
at and breaks a line only at a separator; a fact wider than the whole line is broken alone,
after a `/` where it has one (a long path breaks between its directories, not mid-name).
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.text import Text


class Facts:
    """Facts joined by `separator`, each line as full as the width allows."""

    def __init__(
        self,
        facts: Sequence[Text | str],
        separator: str | Text = " · ",
        indent: int = 0,
        hang: int | None = None,
    ) -> None:
        self.facts = [fact if isinstance(fact, Text) else Text(fact) for fact in facts]
        self.separator = separator
        self.indent = indent
        """Spaces before the first line."""
        self.hang = indent if hang is None else hang
        """Spaces before every later line."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        line = Text(" " * self.indent)
        indent = self.indent
        for fact in self.facts:
            started = line.cell_len > indent
            if started and line.cell_len + len(self.separator) + fact.cell_len > width:
                yield line
                line, indent = Text(" " * self.hang), self.hang
                started = False
            if started:
                line.append(self.separator)
            elif fact.cell_len > width - indent:  # (alone on its line, and still too wide)
                *whole, fact = _broken(fact, width - indent)
                for piece in whole:
                    yield line.append_text(piece)
                    line, indent = Text(" " * self.hang), self.hang
            line.append_text(fact)
        yield line

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        widest = max((fact.cell_len for fact in self.facts), default=0)
        whole = sum(fact.cell_len for fact in self.facts)
        whole += len(self.separator) * max(len(self.facts) - 1, 0)
        least, most = self.indent + widest, self.indent + whole
        return Measurement(min(least, options.max_width), min(most, options.max_width))


def _broken(fact: Text, room: int) -> list[Text]:
    """The fact in pieces of at most `room` cells, each ending after its last `/` that fits
    (where none does, the console folds the piece)."""
    pieces: list[Text] = []
    while fact.cell_len > room > 1:
        plain = fact.plain
        cut = plain.rfind("/", 0, room) + 1
        while cut and cell_len(plain[:cut]) > room:
            cut = plain.rfind("/", 0, cut - 1) + 1
        if not cut:
            break
        pieces.append(fact[:cut])
        fact = fact[cut:]
    return [*pieces, fact]
