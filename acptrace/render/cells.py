"""A cell of a timeline row: its text and styles, cheap to make (tens of thousands a second);
a rich `Text` only when styled output needs one (a file or a pipe takes the plain text)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from acptrace.model.excerpt import printable

if TYPE_CHECKING:
    from rich.text import Text


class Cell(msgspec.Struct, frozen=True, gc=False):
    """Plain text and the styles of its parts (as a rich `Text` holds them)."""

    plain: str = ""
    """The characters (transcript text already made printable)."""
    style: str = ""
    """The style of the whole cell."""
    spans: tuple[tuple[int, int, str], ...] = ()
    """Start, end and style of each styled part."""

    def __len__(self) -> int:
        return len(self.plain)

    def text(self) -> Text:
        """The cell as a rich `Text`."""
        from rich.text import Span, Text

        return Text(self.plain, self.style, spans=[Span(*span) for span in self.spans])

    @classmethod
    def of(cls, text: Text) -> Cell:
        """A rich `Text` as a cell."""
        spans = tuple((span.start, span.end, str(span.style)) for span in text.spans)
        return cls(text.plain, str(text.style), spans)

    @classmethod
    def joined(cls, *parts: tuple[str, str]) -> Cell:
        """Parts (text, style; no style: "") one after the other."""
        plain: list[str] = []
        spans: list[tuple[int, int, str]] = []
        at = 0
        for part, style in parts:
            if style:
                spans.append((at, at + len(part), style))
            plain.append(part)
            at += len(part)
        return cls("".join(plain), "", tuple(spans))


def inert_part(value: object, style: str = "") -> tuple[str, str]:
    """A part of a cell showing the value with control characters as escapes (as `inert`)."""
    return printable(value), style
