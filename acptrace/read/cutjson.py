"""What is left of a JSON text cut short: the longest readable start, with its brackets closed.

Reports cut long payloads (`...[truncated N byte(s)]...`); the envelope of the message (its
`jsonrpc`, `id`, `method`, session) usually comes before the cut and is still worth reading.
Only whole values are read: a string or number the cut went through is left out with its
member (`"id":12` may have been `"id":123`, `"method":"session/up` a `session/update`), so
what is read is what was written; an object or array the cut went through keeps its whole
members.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from acptrace.read.jsontext import JSONDecodeError, loads

_MAX_TRIES = 64
"""Cut points tried, from the end backwards, before giving up."""


def read_cut(prefix: str) -> Any | None:
    """The value `prefix` starts, closed where it was cut; None when nothing can be read.

    The prefix is tried as it is where it ends on a closing bracket, then cut back before each
    `,` and after each `{` or `[` (latest first), with its brackets closed each time: a scalar
    at the cut is never read, since the cut may have shortened it.
    """
    for cut in _cut_points(prefix)[:_MAX_TRIES]:
        text = _closed(prefix[:cut])
        if text is None:
            continue
        try:
            return loads(text)
        except JSONDecodeError:
            continue
    return None


def _cut_points(prefix: str) -> list[int]:
    """Where the prefix may be cut back to, latest first (outside strings only)."""
    found: list[int] = []
    scan = _Scan()
    closed_at = -1
    for at, char in _structure(prefix, scan):
        if char == ",":
            found.append(at)
        elif char in "{[":
            found.append(at + 1)
        elif char in "}]":
            closed_at = at
    ends_closed = not scan.in_string and closed_at == len(prefix.rstrip()) - 1
    return ([len(prefix)] if ends_closed else []) + list(reversed(found))


def _closed(text: str) -> str | None:
    """The text (cut outside its strings) with its open brackets closed (None if it cannot be)."""
    stack: list[str] = []
    for _, char in _structure(text):
        if char in "{[":
            stack.append("}" if char == "{" else "]")
        elif char in "}]":
            if not stack:
                return None
            stack.pop()
    return text.rstrip() + "".join(reversed(stack))


class _Scan:
    """Where a scan of JSON text ended: inside a string, just after a backslash in one."""

    __slots__ = ("escaped", "in_string")

    def __init__(self) -> None:
        self.in_string = False
        self.escaped = False


def _structure(text: str, scan: _Scan | None = None) -> Iterator[tuple[int, str]]:
    """The characters of JSON text outside its strings, with their positions (a string's
    quotes excluded); `scan` says where the text ended."""
    scan = scan or _Scan()
    for at, char in enumerate(text):
        if scan.in_string:
            if scan.escaped:
                scan.escaped = False
            elif char == "\\":
                scan.escaped = True
            elif char == '"':
                scan.in_string = False
        elif char == '"':
            scan.in_string = True
        else:
            yield at, char
