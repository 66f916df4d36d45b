"""Indented JSON written piece by piece: a document whose long lists (findings, issues, results)
stream, so memory holds a batch of items rather than the whole text.

The bytes are those of `orjson.dumps(document, option=OPT_INDENT_2) + b"\\n"`: the document is
dumped with a placeholder string in place of each long list, and each placeholder is replaced
by its list, dumped a batch of items at a time and indented to where the placeholder stood.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from itertools import islice
from typing import Any

import msgspec
import orjson

BATCH = 2048
"""Items dumped by one orjson call (a batch is the most a list holds in memory as text)."""

_INDENT = orjson.OPT_INDENT_2


class Streamed(msgspec.Struct, frozen=True):
    """A list to write item by item where it stands in the document."""

    items: Iterable[Any]
    """The items, in order (taken once, a batch at a time)."""


def json_chunks(document: Any) -> Iterator[bytes]:
    """The document as indented JSON ending in a newline, in pieces; each `Streamed` value in
    it (in dicts or lists, at any depth) is written as a list, its items a batch at a time."""
    token = os.urandom(16).hex()  # (not `secrets`: it imports hashlib, hmac and random)
    lists: dict[bytes, Iterable[Any]] = {}

    def placed(value: Any) -> Any:
        if isinstance(value, Streamed):
            key = f"{token}:{len(lists)}"
            lists[orjson.dumps(key)] = value.items
            return key
        if isinstance(value, dict):
            return {k: placed(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [placed(v) for v in value]
        return value

    text = orjson.dumps(placed(document), option=_INDENT)
    start = 0
    for placeholder, items in lists.items():
        at = text.index(placeholder, start)
        line = text[text.rfind(b"\n", 0, at) + 1 : at]
        yield text[start:at]
        yield from _list_chunks(items, b" " * (len(line) - len(line.lstrip(b" "))))
        start = at + len(placeholder)
    yield text[start:] + b"\n"


def _list_chunks(items: Iterable[Any], indent: bytes) -> Iterator[bytes]:
    """A list as `orjson` indents it when its line starts with `indent` (`[]` when empty)."""
    iterator = iter(items)
    newline = b"\n" + indent
    opening = b"[" + newline
    while batch := list(islice(iterator, BATCH)):
        text = orjson.dumps(batch, option=_INDENT)  # "[\n  item,\n  item\n]"
        yield opening + text[2:-2].replace(b"\n", newline)  # (strings hold no raw newline)
        opening = b"," + newline
    yield b"[]" if opening[0:1] == b"[" else newline + b"]"
