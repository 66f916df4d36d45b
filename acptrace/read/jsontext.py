"""Parsing JSON text: orjson, with the standard library for numbers beyond a double's range.

orjson rejects valid JSON such as `1e400` (it will not produce infinity); the standard library
reads it. NaN and Infinity literals, which are not JSON, stay errors.
"""

from __future__ import annotations

import json
from typing import Any

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
    """Parse one JSON text; raises `JSONDecodeError` when it is not JSON."""
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


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")
