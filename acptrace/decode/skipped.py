"""What msgspec does not check in the members a narrowed shape skips, and the general path
would refuse: the hot path takes a line only where the general path would read it alike.

- UTF-8: msgspec skips a string without decoding it; the general path refuses a line that is
  not UTF-8 (`not_json`).
- An integer of more digits than Python converts (`read.digits`): msgspec skips it unread; the
  general path's parser cannot read it (`not_json`), and neither can the schema check's, which
  parses the lines a run keeps. A block of lines says whether it may hold one
  (`LineBlock.digits`); a line on its own is looked at here.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from itertools import filterfalse

from acptrace.read.digits import too_many_digits


def readable(data: bytes) -> bool:
    """The line is UTF-8 and holds no integer too long to convert."""
    if not data.isascii():
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            return False
    return not too_many_digits(data)


def all_utf8(lines: list[bytes]) -> bool:
    """Every line is UTF-8 (False when any one is not): each non-ASCII line decoded, in C
    (`deque` drains the map). Joining them and decoding once took half as long again: the
    join copies them, and one long text with an emoji in it is four bytes a character."""
    others: Iterable[bytes] = filterfalse(bytes.isascii, lines)
    try:
        deque(map(bytes.decode, others), maxlen=0)
    except UnicodeDecodeError:
        return False
    return True
