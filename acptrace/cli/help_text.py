"""`--help` wrapped between words only: click's wrapper breaks a word at its hyphens
(`CAP-` / `UNADVERTISED`, `--no-` / `config`) and cuts one longer than the room left
(`50ms,1` / `00ms`); an identifier in help is copied from it, so it is kept whole and a word
longer than the line stands out past it instead.

Imported only when help is shown (`acptrace.cli.root.PlainContext.make_formatter`).
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

from typer._click.formatting import HelpFormatter


def wrap_words(text: str, width: int, indent: str = "") -> str:
    """The text's paragraphs (apart by a blank line; a paragraph whose first line is `\\b` is
    kept as written, as click does) filled to `width`, every line after `indent` and the
    paragraph's own indentation, breaking at spaces only."""
    paragraphs = []
    for paragraph in textwrap.dedent(text).split("\n\n"):
        lines = paragraph.strip("\n").splitlines()
        if not lines:
            continue
        if lines[0].strip() == "\b":
            paragraphs.append("\n".join(indent + line for line in lines[1:]))
            continue
        own = indent + " " * (len(lines[0]) - len(lines[0].lstrip()))
        words = " ".join(line.strip() for line in lines)
        paragraphs.append(
            textwrap.fill(
                words,
                width,
                initial_indent=own,
                subsequent_indent=own,
                break_on_hyphens=False,
                break_long_words=False,
            )
        )
    return "\n\n".join(paragraphs)


class WholeWordsFormatter(HelpFormatter):
    """click's help formatter with its text and its lists of options and commands wrapped by
    `wrap_words`."""

    def write_text(self, text: str) -> None:
        self.write(wrap_words(text, self.width, " " * self.current_indent) + "\n")

    def write_dl(
        self, rows: Sequence[tuple[str, str]], col_max: int = 30, col_spacing: int = 2
    ) -> None:
        rows = list(rows)
        first_width = min(max((len(first) for first, _ in rows), default=0), col_max)
        column = first_width + col_spacing
        hang = " " * (self.current_indent + column)
        for first, second in rows:
            self.write(" " * self.current_indent + first)
            if not second:
                self.write("\n")
                continue
            if len(first) <= first_width:
                self.write(" " * (column - len(first)))
            else:
                self.write("\n" + hang)
            lines = wrap_words(second, max(self.width - column - 2, 10)).splitlines() or [""]
            self.write(lines[0] + "\n")
            self.write("".join(f"{hang}{line}\n" if line else "\n" for line in lines[1:]))
