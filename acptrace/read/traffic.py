"""agent-shell / acp.el `.traffic` files: the entries of acp.el's traffic buffer as Emacs saves
them (`acp-traffic-save-to`: `pp` of the list of entries, with `print-circle`).

Each entry is an alist `((:direction . incoming) (:kind . notification) (:object ...))` whose
`:object` is the message as Emacs parsed it (incoming) or built it (outgoing); see
`acptrace.read.lispjson` for the JSON it stands for. The file has no times and one connection.

Reading yields, in line order, one `TrafficEntry` or `Issue` per entry (an entry whose
`:direction` is neither `outgoing` nor `incoming` is preceded by an `unknown_direction` issue),
an issue for every line that is not UTF-8, and at the place where the text stops being Lisp
data one issue: entries read before it are kept, the rest of the file is not read. It never
raises for what the file holds.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from typing import Any

import msgspec

from acptrace.model.domain import Direction, Issue, IssueKind
from acptrace.read.lispjson import NotJson, to_json
from acptrace.read.sexp import (
    NIL,
    Datum,
    SexpError,
    SexpTooDeep,
    SList,
    Symbol,
    Vector,
    cdr,
    read_elements,
    show,
)

_BOM = "\ufeff"
_DIRECTIONS = {"outgoing": Direction.C2A, "incoming": Direction.A2C}


class TrafficEntry(msgspec.Struct, frozen=True):
    """One entry of a `.traffic` file: a message and which way it travelled."""

    line: int
    """The line the entry starts on (its opening parenthesis)."""
    direction: Direction
    """`outgoing` is C2A (the client sent it), `incoming` A2C; anything else UNKNOWN."""
    kind: str | None
    """acp.el's `:kind` as written (`request`, `response`, `notification`, `unknown`); None
    when the entry has none or it is not a symbol. acp.el's word, not acptrace's judgement."""
    message: Any
    """The `:object` as the JSON value it stands for (an object; an array for a batch)."""


def read_traffic(data: bytes) -> Iterator[TrafficEntry | Issue]:
    """The entries of a `.traffic` file's bytes, with the issues of its input, in line order.

    The text is UTF-8 (what Emacs writes); a leading byte order mark is dropped. A line that is
    not UTF-8 gets a `not_utf8` issue and is read with U+FFFD for its bad bytes, as Emacs would
    still read it (with raw bytes in its strings).
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("utf-8", "replace")
        issues = list(_not_utf8(data))
        yield from heapq.merge(issues, read_traffic_text(text), key=lambda record: record.line)
        return
    yield from read_traffic_text(text)


def read_traffic_text(text: str) -> Iterator[TrafficEntry | Issue]:
    """The entries of a `.traffic` file's text, with the issues of its input, in line order."""
    if text.startswith(_BOM):
        text = text[1:]
    try:
        for datum, line in read_elements(text):
            yield from _entry(datum, line)
    except SexpTooDeep as error:
        yield Issue(error.line, IssueKind.TOO_DEEP, f"{error.message}: not read past here")
    except SexpError as error:
        message = f"not Emacs Lisp data: {error.message}; not read past here"
        yield Issue(error.line, IssueKind.NOT_JSON, message)


def _entry(datum: Datum, line: int) -> Iterator[TrafficEntry | Issue]:
    """One entry, or the issue that keeps it from being one."""
    fields = _fields(datum)
    if fields is None:
        yield Issue(line, IssueKind.UNKNOWN_ENVELOPE, f"entry is not an alist: {show(datum)}")
        return
    pair = fields.get(":object")
    if pair is None:
        yield Issue(line, IssueKind.UNKNOWN_ENVELOPE, f"entry has no :object: {show(datum)}")
        return
    obj = cdr(pair)
    if not isinstance(obj, SList | Vector) and obj is not NIL:
        yield Issue(pair.line, IssueKind.NOT_JSONRPC, f":object is not a message: {show(obj)}")
        return
    try:
        message = to_json(obj, pair.line)
    except NotJson as error:
        issue = IssueKind.TOO_DEEP if error.too_deep else IssueKind.NOT_JSON
        yield Issue(error.line, issue, f":object is not JSON data: {error.message}")
        return
    word = _value(fields, ":direction")
    name = word.name if isinstance(word, Symbol) else None
    direction = _DIRECTIONS.get(name or "", Direction.UNKNOWN)
    if direction is Direction.UNKNOWN:
        shown = "none" if word is NIL else show(word)
        yield Issue(line, IssueKind.UNKNOWN_DIRECTION, f"unknown :direction {shown}: inferred")
    kind = _value(fields, ":kind")
    kind_name = kind.name if isinstance(kind, Symbol) and kind is not NIL else None
    yield TrafficEntry(line, direction, kind_name, message)


def _fields(datum: Datum) -> dict[str, SList] | None:
    """An entry's pairs by key (the first of a repeated key), or None if it is not an alist."""
    if not isinstance(datum, SList) or datum.tail is not NIL:
        return None
    fields: dict[str, SList] = {}
    for item in datum.items:
        if not isinstance(item, SList) or not isinstance(item.items[0], Symbol):
            return None
        fields.setdefault(item.items[0].name, item)
    return fields


def _value(fields: dict[str, SList], key: str) -> Datum:
    """What an entry holds under `key` (`nil` when it has no such field)."""
    pair = fields.get(key)
    return NIL if pair is None else cdr(pair)


def _not_utf8(data: bytes) -> Iterator[Issue]:
    """A `not_utf8` issue for each line that is not UTF-8."""
    for number, line in enumerate(data.split(b"\n"), start=1):
        try:
            line.decode("utf-8")
        except UnicodeDecodeError as error:
            yield Issue(
                number,
                IssueKind.NOT_UTF8,
                f"invalid UTF-8 at byte {error.start} of the line: read as U+FFFD",
            )
