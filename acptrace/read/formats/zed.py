"""Zed's "ACP logs" -> Copy All Messages: one pretty-printed JSON array of messages.

Each element is `{"_direction": "outgoing" | "incoming", "_type": "request" | "response" |
"notification", "id", "method", "params"}`: no `jsonrpc` member, notifications carry
`"id": null` (no id), and a response's `params` holds its result, or its error (an object with
`code` and `message`). `outgoing` is from Zed (the Client). The Agent's stderr appears as
`{"_direction": "stderr", "_type": "stderr", "id": null, "method": "stderr", "params": "<text>"}`:
a stderr event. The log has no time.

Approximate times: the Agent's stderr lines often start with the time they were written
(`2026-08-18T05:50:31.398013Z  INFO …`, ANSI colours around it, a space for the `T`, an offset
or none, which is read as UTC). Each such line is an anchor: the stderr event gets that time,
and every message after it gets the time of the latest anchor before it, flagged `approximate`
(a lower bound of when it was logged: Zed logs stderr and messages in the order they came).
Messages before the first anchor have no time. Anchors never go back: one earlier than the
anchor before it (stderr lines of concurrent tasks) is not an anchor, so times only go forward.
A date elsewhere in a line (`… cached since 2025-01-01T00:00:00Z`) is not an anchor.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

import msgspec

from acptrace.model.domain import Direction, Issue, IssueKind
from acptrace.model.excerpt import excerpt
from acptrace.read.arrays import split_array
from acptrace.read.envelopes import Envelope, Record, RecorderEvent
from acptrace.read.formats.base import Parsed, ReadSettings
from acptrace.read.jsontext import JSONDecodeError, loads, parsed, too_deep, too_deep_issue
from acptrace.read.source import RawLine

_DIRECTIONS = {"outgoing": Direction.C2A, "incoming": Direction.A2C}
_TYPES = ("request", "response", "notification")
_STDERR = "stderr"
_BLANK = b" \t\r\n\f\v"
_LEADING_TIME = re.compile(
    r"(?:\x1b\[[0-9;]*m|\s)*\[?(?:\x1b\[[0-9;]*m)*"  # ANSI colours, blanks, an opening [
    r"(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(?:[.,](\d{1,9}))?"
    r"(Z|[+-]\d{2}:?\d{2})?(?![\d.:])"
)
"""An ISO 8601 time at the start of a stderr line, with what may come before it."""


def _is_entry(record: Any) -> bool:
    if not isinstance(record, dict):
        return False
    direction = record.get("_direction")  # (any JSON value: an object cannot be looked up)
    return (
        isinstance(direction, str) and direction in _DIRECTIONS and record.get("_type") in _TYPES
    ) or _is_stderr(record)


def _is_stderr(entry: dict[str, Any]) -> bool:
    """The Agent's stderr, as Zed logs it."""
    return entry.get("_direction") == _STDERR and entry.get("_type") == _STDERR


def _error_shaped(value: Any) -> bool:
    """An error object: an integer `code` and a string `message`."""
    return (
        isinstance(value, dict)
        and isinstance(value.get("code"), int)
        and isinstance(value.get("message"), str)
        and set(value) <= {"code", "message", "data"}
    )


def leading_time_ns(text: Any) -> int | None:
    """The time a stderr line starts with, as nanoseconds since the epoch (UTC when it names
    no offset); None when it does not start with one."""
    if not isinstance(text, str):
        return None
    match = _LEADING_TIME.match(text)
    if match is None:
        return None
    day, clock, fraction, zone = match.groups()
    offset = "+00:00" if zone in (None, "Z") else zone
    try:
        moment = datetime.fromisoformat(f"{day}T{clock}{offset}")
    except ValueError:
        return None
    fraction_ns = int((fraction or "0").ljust(9, "0"))
    return int(moment.astimezone(UTC).timestamp()) * 1_000_000_000 + fraction_ns


class Zed(msgspec.Struct, frozen=True):
    """Zed's copied ACP log: it owns its bytes (`OwnsBytes`), a JSON array spread over many
    lines (several, pasted one after another), read element by element."""

    name: str = "zed"
    summary: str = "Zed 'Copy All Messages': a pretty-printed JSON array, _direction/_type"
    producers: str = "Zed's ACP logs panel -> Copy All Messages (several dumps pasted too)"
    example: str = (
        '[{"_direction": "outgoing", "_type": "request", "id": 1, "method": "session/new", '
        '"params": {"cwd": "/"}}, …]'
    )

    def detect(self, record: Any) -> bool:
        """One log entry, or a whole array of them on one line."""
        if isinstance(record, list):
            return bool(record) and all(_is_entry(entry) for entry in record)
        return _is_entry(record)

    def decoder(self, sample: Sequence[Any], settings: ReadSettings) -> ZedDecoder:  # noqa: ARG002 (the TranscriptFormat protocol)
        """A decoder that follows the times of the stderr lines."""
        return ZedDecoder()

    def claims(self, first: RawLine) -> bool:
        """An input whose first line opens a JSON array that does not end on it (any array
        spread over lines is read element by element; its elements tell their format)."""
        if first.too_long or not first.data.lstrip(_BLANK).startswith(b"["):
            return False
        try:
            loads(first.data)
        except JSONDecodeError:
            return True
        return False

    def read(
        self,
        lines: Iterator[RawLine | Issue],
        decode: Callable[[Iterable[Parsed]], Iterator[Record]],
    ) -> Iterator[Record]:
        """Each element of the arrays, parsed, at the line where it starts, then decoded."""
        return decode(_elements(lines))


def _elements(lines: Iterable[RawLine | Issue]) -> Iterator[Parsed]:
    """Each element of the arrays, parsed (or the issue that says why it is not)."""
    for item in split_array(lines):
        if isinstance(item, Issue):
            yield item
            continue
        number, data = item
        try:
            yield parsed(number, data)
        except JSONDecodeError as error:
            if too_deep(error):
                yield too_deep_issue(number)
                continue
            text = excerpt(data.decode("utf-8", errors="replace"))
            yield Issue(number, IssueKind.NOT_JSON, f"array element is not JSON: {text}")


class ZedDecoder(msgspec.Struct):
    """Decodes a dump's entries in order, keeping the latest anchor (a timed stderr line)."""

    anchor_ns: int | None = None
    """The time of the latest anchor so far (None: none yet)."""
    note: str | None = None

    def decode(self, record: Any, line: int) -> Iterator[Record]:
        """Each entry becomes the JSON-RPC message it stands for, timed by the latest anchor."""
        for entry in record if isinstance(record, list) else (record,):
            if _is_stderr(entry):
                text = entry.get("params")
                ts_ns = leading_time_ns(text)
                if ts_ns is not None and (self.anchor_ns is None or ts_ns >= self.anchor_ns):
                    self.anchor_ns = ts_ns
                else:
                    ts_ns = None
                yield RecorderEvent(line, _STDERR, ts_ns, detail={"text": text})
            else:
                direction, payload = _DIRECTIONS[entry["_direction"]], _jsonrpc(entry)
                anchor = self.anchor_ns
                yield Envelope(line, direction, payload, anchor, approximate=anchor is not None)


def _jsonrpc(entry: dict[str, Any]) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0"}
    kind = entry["_type"]
    params = entry.get("params")
    if kind == "response":
        message["id"] = entry.get("id")
        message["error" if _error_shaped(params) else "result"] = params
        return message
    if kind == "request":
        message["id"] = entry.get("id")
    message["method"] = entry.get("method")
    if params is not None:
        message["params"] = params
    return message


FORMAT = Zed()
