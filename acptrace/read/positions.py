"""Parsing one JSON document while noting where each object opens (for its line number).

orjson says nothing of positions; the standard library's pure-Python scanner lets a hook see
each object's opening offset. Slower than orjson, so it is kept for documents read whole
(acp-tck reports), where an element's line is the line on which its object opens.
"""

from __future__ import annotations

import bisect
import json
import json.decoder
import json.scanner
import re
from typing import Any

import msgspec


class Located(msgspec.Struct, frozen=True):
    """A parsed document and the line each of its objects opens on."""

    value: Any
    """The document."""
    _lines: dict[int, int]
    """id() of each object -> its line (the objects live as long as `value`)."""

    def line(self, obj: Any, default: int = 1) -> int:
        """The line on which this object of the document opens."""
        return self._lines.get(id(obj), default)


def load_located(text: str) -> Located:
    """Parse `text` as one JSON document; raises `ValueError` when it is not JSON."""
    offsets: dict[int, int] = {}

    def parse_object(s_and_end: tuple[str, int], *args: Any) -> tuple[Any, int]:
        value, end = json.decoder.JSONObject(s_and_end, *args)  # type: ignore[attr-defined]
        offsets[id(value)] = s_and_end[1] - 1
        return value, end

    decoder = json.JSONDecoder()
    decoder.parse_object = parse_object  # type: ignore[attr-defined]
    decoder.scan_once = json.scanner.py_make_scanner(decoder)  # type: ignore[attr-defined]
    value = decoder.decode(text)
    breaks = [found.start() for found in re.finditer("\n", text)]
    lines = {key: bisect.bisect_left(breaks, at) + 1 for key, at in offsets.items()}
    return Located(value, lines)
