"""Short, printable excerpts of untrusted transcript text for issue and finding messages, and
JSON text of a value at any depth."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from itertools import islice
from typing import Any

import orjson

EXCERPT_CHARS = 60


def plural(n: int, noun: str) -> str:
    """`1 finding`, `2 findings`."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def printable(value: Any) -> str:
    """The value as one line of text with control characters shown as escapes (`\\x1b`): the
    one escaping of untrusted text (file names, transcript text) on every stream. A byte that
    was not UTF-8 in a file name (`os.fsdecode` keeps it as a lone surrogate, U+DC80 to
    U+DCFF) is shown as that byte (`\\xff`), so the name can be told back to the system."""
    text = "" if value is None else str(value)
    if text.isprintable():  # (most text: checked in C, no character-by-character work)
        return text
    return "".join(ch if ch.isprintable() else _escape(ch) for ch in text)


def _escape(char: str) -> str:
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # (a byte `os.fsdecode` could not decode, surrogateescape)
        code -= 0xDC00
    return f"\\x{code:02x}"


def file_name(path: str | bytes | os.PathLike[str] | os.PathLike[bytes]) -> str:
    """What a file is called in every output, the one name for it: its path as text, printable
    (`printable`: control characters and bytes that are not UTF-8 shown as `\\x..`). Every
    view, table and document names files by it: a name from the file system may hold bytes
    no UTF-8 writer (orjson, JSON, SARIF, Parquet) takes."""
    return printable(os.fsdecode(path))


_ESCAPE = re.compile(r"\\x([0-9a-f]{2,6})")


def name_bytes(name: str) -> bytes:
    """The bytes of a file's name as `file_name` shows it: each `\\xNN` it wrote back to
    what it stands for (a byte that was not UTF-8, a control character), the rest UTF-8. A
    URI names a file by its bytes (`bad%FF.jsonl`), not by how it is shown (`bad%5Cxff`). Where
    the escape is ambiguous, the byte that is not UTF-8 wins (`\\x85` is the byte 0x85, not
    U+0085), and a name that holds a backslash and `x` itself reads as an escape."""
    out = bytearray()
    at = 0
    for escape in _ESCAPE.finditer(name):
        code = _escaped_code(escape.group(1))
        if code is None:
            continue
        out += name[at : escape.start()].encode("utf-8", "surrogateescape")
        digits = 2 if code < 0x100 else len(f"{code:02x}")
        out += bytes([code]) if code < 0x100 else chr(code).encode("utf-8", "surrogatepass")
        at = escape.start() + 2 + digits
    return bytes(out + name[at:].encode("utf-8", "surrogateescape"))


def _escaped_code(digits: str) -> int | None:
    """The code `_escape` wrote as these hex digits (those it did write, the longest: a code
    of two digits is not printable or a byte, a longer one a character not printable)."""
    code = int(digits[:2], 16)
    if code >= 0x80 or not chr(code).isprintable():
        return code
    for length in range(3, len(digits) + 1):
        code = int(digits[:length], 16)
        if 0x100 <= code <= 0x10FFFF and not chr(code).isprintable():
            return code
    return None


NAME_CHARS = 200
"""A peer's name or version longer than this is cut (`…`) where it is read: a name is a
few words, and a hostile one (60 MB) would be copied into every view (the report page once
per chart and table)."""


def cut_name(value: str | None) -> str | None:
    """A name or version cut to `NAME_CHARS` (the last one `…`); None stays None."""
    if value is None or len(value) <= NAME_CHARS:
        return value
    return value[: NAME_CHARS - 1] + "…"


def excerpt(value: Any, limit: int = EXCERPT_CHARS) -> str:
    """A one-line, control-free excerpt of a value (strings in quotes), at most `limit` chars:
    any other value as the JSON it was read from (`{"a":null}`, `true`), never Python's repr
    (`{'a': None}`, `True`), which the user's file does not hold."""
    # (a value's JSON text from its start: a deep or huge one is not written whole)
    text = value if isinstance(value, str) else "".join(islice(json_pieces(value), limit * 2))
    cleaned = printable(text[: limit * 2])
    if len(cleaned) > limit or len(text) > limit * 2:
        cleaned = cleaned[: limit - 1] + "…"
    return f'"{cleaned}"' if isinstance(value, str) else cleaned


def json_text(value: Any) -> str:
    """Compact JSON text of a parsed value, however deeply it nests (orjson stops at 255)."""
    try:
        return orjson.dumps(value).decode()
    except TypeError:
        return "".join(json_pieces(value))


class _Token(str):
    """Punctuation already written as JSON text (a marker on the stack, not a string value)."""


def json_pieces(value: Any) -> Iterator[str]:
    """The JSON text of a value in pieces, without recursion (any depth)."""
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if type(item) is _Token:
            yield item
        elif isinstance(item, dict):
            entries = list(item.items())
            stack.append(_Token("}"))
            for index in range(len(entries) - 1, -1, -1):
                key, member = entries[index]
                stack.append(member)
                stack.append(_Token(json.dumps(str(key)) + ":"))
                if index:
                    stack.append(_Token(","))
            stack.append(_Token("{"))
        elif isinstance(item, list | tuple):
            stack.append(_Token("]"))
            for index in range(len(item) - 1, -1, -1):
                stack.append(item[index])
                if index:
                    stack.append(_Token(","))
            stack.append(_Token("["))
        else:
            yield _scalar(item)


def _scalar(value: Any) -> str:
    try:
        return orjson.dumps(value).decode()
    except TypeError:  # (an int beyond 64 bits, a value that is not JSON)
        return json.dumps(value, default=repr)


def written_json(value: Any) -> str:
    """A value as it is written in JSON (`7`, `"7"`, `{"type":"start"}`), cut to
    `EXCERPT_CHARS`: ids are quoted so in messages."""
    text = json_text(value)
    return text if len(text) <= EXCERPT_CHARS else text[: EXCERPT_CHARS - 1] + "…"
