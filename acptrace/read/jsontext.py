"""Parsing JSON text: orjson, with the standard library for numbers beyond a double's range.

orjson rejects valid JSON such as `1e400` (it will not produce infinity); the standard library
reads it. NaN and Infinity literals, which are not JSON, stay errors.

A lone UTF-16 surrogate escape (`"Done \\ud83d"`: what JavaScript's `JSON.stringify` writes for
a string cut inside an emoji) is valid JSON by RFC 8259, but no Unicode text: orjson refuses
it. `parsed` reads such a line with each lone surrogate replaced by U+FFFD, and says so.
"""

from __future__ import annotations

import json
import re
from typing import Any, NamedTuple

import orjson

from acptrace.model.domain import Issue, IssueKind

JSONDecodeError = orjson.JSONDecodeError
MAX_DEPTH = 1024
"""How deeply JSON may nest to be read (orjson's limit)."""


def too_deep(error: JSONDecodeError) -> bool:
    """The text was refused for nesting deeper than `MAX_DEPTH`, not for its syntax."""
    return "depth limit" in str(error)


def too_deep_issue(line: int) -> Issue:
    """JSON nested too deeply to be read: it is JSON, but it is not read."""
    return Issue(
        line, IssueKind.TOO_DEEP, f"JSON nested deeper than {MAX_DEPTH:,} levels: not read"
    )


def loads(data: bytes | str) -> Any:
    """Parse one JSON text; raises `JSONDecodeError` when it is not JSON, or is nested too
    deeply (`too_deep`: for a text with a number beyond a double's range, as deeply as the
    standard library's parser may go on the stack, a little less than `MAX_DEPTH`)."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as error:
        if "infinity" not in str(error):
            raise
        try:
            text = data.decode("utf-8") if isinstance(data, bytes) else data
            return json.loads(text, parse_constant=_no_constant)
        except (ValueError, UnicodeDecodeError):
            raise error from None
        except RecursionError:
            raise JSONDecodeError("depth limit exceeded", text, 0) from None


class Mended(NamedTuple):
    """A line read only once its lone surrogate escapes were replaced by U+FFFD."""

    number: int
    value: Any
    issue: Issue


def parsed(number: int, data: bytes | str) -> tuple[int, Any] | Mended:
    """One line's JSON value with its number; raises `JSONDecodeError` when it is not JSON."""
    try:
        return number, loads(data)
    except JSONDecodeError as error:
        if "surrogate" not in str(error):
            raise
        mended, count = mend_surrogates(
            data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
        )
        if not count:
            raise
        issue = Issue(
            number,
            IssueKind.LONE_SURROGATE,
            f"{count} lone UTF-16 surrogate escape{'s' if count != 1 else ''} "
            "(a character cut in half) read as U+FFFD",
        )
        return Mended(number, loads(mended), issue)


_ESCAPES = re.compile(
    rb"\\\\"  # an escaped backslash
    rb"|\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}"  # a pair
    rb"|\\u[dD][89a-fA-F][0-9a-fA-F]{2}"  # a lone half
)
"""An escaped backslash (skipped whole, so that `\\\\ud83d` is no escape), a surrogate pair,
or a lone surrogate: the one thing a match can be that is replaced."""


def mend_surrogates(data: bytes) -> tuple[bytes, int]:
    """The text with each lone surrogate escape replaced by `\\ufffd`, and how many were."""
    count = 0

    def mend(match: re.Match[bytes]) -> bytes:
        nonlocal count
        escape = match.group()
        if len(escape) != 6:
            return escape  # an escaped backslash or a whole pair
        count += 1
        return rb"\ufffd"

    return _ESCAPES.sub(mend, data), count


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")
