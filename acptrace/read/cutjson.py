"""What is left of a JSON text cut short: the longest readable start, with its brackets closed.

Reports cut long payloads (`...[truncated N byte(s)]...`); the envelope of the message (its
`jsonrpc`, `id`, `method`, session) usually comes before the cut and is still worth reading.
"""

from __future__ import annotations

from typing import Any

from acptrace.read.jsontext import JSONDecodeError, loads

_MAX_TRIES = 64
"""Cut points tried, from the end backwards, before giving up."""


def read_cut(prefix: str) -> Any | None:
    """The value `prefix` starts, closed where it was cut; None when nothing can be read.

    The prefix is tried as it is, then cut back before each `,` and after each `{` or `[`
    (latest first), with the open string and brackets closed each time.
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
    points = [len(prefix)]
    in_string = escaped = False
    found: list[int] = []
    for at, char in enumerate(prefix):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char == ",":
            found.append(at)
        elif char in "{[":
            found.append(at + 1)
    points.extend(reversed(found))
    return points


def _closed(text: str) -> str | None:
    """The text with its open string and brackets closed (None if it cannot be)."""
    stack: list[str] = []
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "{[":
            stack.append("}" if char == "{" else "]")
        elif char in "}]":
            if not stack:
                return None
            stack.pop()
    if escaped:
        text = text[:-1]
    if in_string:
        text += '"'
    text = text.rstrip()
    if text.endswith(":"):
        text += " null"
    return text + "".join(reversed(stack))
