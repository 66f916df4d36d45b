"""Text fitted to a width in terminal cells: cut with `…` (between words where it must not
break an id), or wrapped without parting a number from its unit."""

from __future__ import annotations

import re

from rich.cells import cell_len, set_cell_size
from rich.text import Text

from acptrace.render.wrapping import line_breaks

ONE_CELL = re.compile(r"[\x20-\x7e…↩◆→←⇢⇠┌├└│┏┣┗┃╭╰─━·▲—]*\Z")
"""Text whose every character is one cell wide (most of a timeline: ASCII, arrows, boxes)."""


def cell_width(text: str) -> int:
    """How many cells the text takes, as rich counts them (quickly when each is one cell)."""
    return len(text) if ONE_CELL.match(text) else cell_len(text)


def ellipsized(text: str, width: int, whole: int = 0) -> str:
    """The text cut to `width` cells with `…` at the end, as `Text.truncate` cuts it; a cut
    within the first `whole` characters (a row's label and session) falls between words."""
    if ONE_CELL.match(text):  # (`cell_width`, its text matched once)
        if len(text) <= width:
            return text
        kept = text[: width - 1]
    elif cell_len(text) <= width:
        return text
    else:
        kept = set_cell_size(text, width - 1)
    return between_words(kept, whole) + "…"


def between_words(kept: str, whole: int) -> str:
    """The start `kept` of a cut text, ending after a space when the cut falls within the
    text's first `whole` characters: an id (`c09edff1…0751`) is shown whole or not at all,
    never as `c09edff1…07…` (nor as `c09edff1…0751…`, which reads as cut). A label cut in its
    first word stays as it is."""
    at = len(kept)
    if at > whole or kept.endswith(" "):
        return kept
    space = kept.rfind(" ")
    indent = at - len(kept.lstrip(" "))
    return kept[: space + 1] if space >= indent else kept


def cropped(line: str, width: int) -> str:
    """The line cut to `width` cells, as a console prints it."""
    return line if cell_width(line) <= width else set_cell_size(line, width)


def line_starts(plain: str, first: int, rest: int) -> list[int] | None:
    """Where `render.wrapping` breaks a text whose first line is `first` cells wide and the
    others `rest` (a number kept with its unit: `glued`), found without making a rich Text
    (that costs about a million instructions a note); None for a text whose characters are not
    all one cell wide (and for a newline or a tab): `render.wrapping.wrapped` measures those."""
    if not ONE_CELL.match(plain):
        return None
    return line_breaks(glued(plain), first, rest)


GLUE = "\ue000"
"""Stands for the space between a number and its unit, or a latency's label and its value,
while a line is wrapped (one cell wide, no space to rich, from Unicode's private use area)."""
_NUMBER_UNIT = re.compile(
    r"(?<=\d) (?=(?:ms|s|/s|updates?|tool|permission)\b)"  # 775.0 ms, 3 updates, 1 tool call
    r"|(?<=\btool) (?=calls?\b)|(?<=\bpermission) (?=requests?\b)|(?<=→first) (?=output\b)"
    r"|(?<=\w) (?=~?(?:—|[\d.]+ (?:ms|s)\b))"  # a latency's label and its value
    r"|(?<=\S) (?=· )"  # a separator ends a line, never starts one
)
"""`775.0 ms`, `3 updates`, `1 tool call`; a latency's label and its value (`→marker 1.51 s`,
`marker→response 790.0 ms`, a turn's `→first output 1.07 s`, `waited —`: a label left at the
end of one line and its value on the next read as two facts); and ` · ` kept after the fact
it follows (a line that starts with `·` reads as a list)."""


def glued(plain: str) -> str:
    """The text with each space between a number and its unit (`775.0 ms`), or a latency's
    label and its value, as `GLUE`, so that wrapping never parts them (as long as the text:
    one character for one)."""
    return _NUMBER_UNIT.sub(GLUE, plain)


def unit_glued(text: Text) -> Text:
    """`glued` of a rich Text, its styles kept."""
    return Text(
        glued(text.plain),
        style=text.style,
        justify=text.justify,
        end=text.end,
        spans=list(text.spans),
    )


def unglued(text: Text) -> Text:
    """The text with each `GLUE` a space again (`unit_glued` undone, once it is wrapped)."""
    return Text(text.plain.replace(GLUE, " "), style=text.style, end=text.end, spans=text.spans)
