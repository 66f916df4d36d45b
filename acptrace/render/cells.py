"""A cell of a timeline row: its text and styles, cheap to make (tens of thousands a second);
a rich `Text` only when styled output needs one (a file or a pipe takes the plain text)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from acptrace.model.excerpt import printable

if TYPE_CHECKING:
    from rich.text import Text

Part = tuple[str, str]
"""Text and its style ("": none)."""


class Cell(msgspec.Struct, frozen=True, gc=False):
    """Plain text and the styles of its parts (as a rich `Text` holds them)."""

    plain: str = ""
    """The characters (transcript text already made printable)."""
    style: str = ""
    """The style of the whole cell."""
    spans: tuple[tuple[int, int, str], ...] = ()
    """Start, end and style of each styled part."""
    parts: tuple[Part, ...] = ()
    """Or the parts `plain` is made of, each with its style (`joined`): the spans are worked
    out from them only for styled output."""
    whole: int = 0
    """How many of the first characters are words shown whole or not at all (an event cell's
    label and session: `timeline.fitting.between_words`); the rest may be cut anywhere."""

    def __len__(self) -> int:
        return len(self.plain)

    def text(self) -> Text:
        """The cell as a rich `Text`."""
        from rich.text import Span, Text

        spans = self.spans or _spans(self.parts)
        return Text(self.plain, self.style, spans=[Span(*span) for span in spans])

    @classmethod
    def of(cls, text: Text) -> Cell:
        """A rich `Text` as a cell."""
        spans = tuple((span.start, span.end, str(span.style)) for span in text.spans)
        return cls(text.plain, str(text.style), spans)

    @classmethod
    def joined(cls, *parts: Part) -> Cell:
        """Parts (text, style; no style: "") one after the other."""
        return cls("".join([part for part, _ in parts]), parts=parts)


def _spans(parts: tuple[Part, ...]) -> tuple[tuple[int, int, str], ...]:
    spans: list[tuple[int, int, str]] = []
    at = 0
    for part, style in parts:
        end = at + len(part)
        if style:
            spans.append((at, end, style))
        at = end
    return tuple(spans)


def inert_part(value: object, style: str = "") -> Part:
    """A part of a cell showing the value with control characters as escapes (as `inert`)."""
    return printable(value), style
