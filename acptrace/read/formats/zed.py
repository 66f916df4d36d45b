"""Zed's "ACP logs" -> Copy All Messages: one pretty-printed JSON array of messages.

Each element is `{"_direction": "outgoing" | "incoming", "_type": "request" | "response" |
"notification", "id", "method", "params"}`: no `jsonrpc` member, notifications carry
`"id": null` (no id), and a response's `params` holds its result, or its error (an object with
`code` and `message`). `outgoing` is from Zed (the Client). The Agent's stderr appears as
`{"_direction": "stderr", "_type": "stderr", "id": null, "method": "stderr", "params": "<text>"}`:
a stderr event. The log has no time.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from acptrace.model.domain import Direction
from acptrace.read.envelopes import Envelope, Record, RecorderEvent
from acptrace.read.formats.base import Stateless

_DIRECTIONS = {"outgoing": Direction.C2A, "incoming": Direction.A2C}
_TYPES = ("request", "response", "notification")
_STDERR = "stderr"


def _is_entry(record: Any) -> bool:
    return isinstance(record, dict) and (
        (record.get("_direction") in _DIRECTIONS and record.get("_type") in _TYPES)
        or _is_stderr(record)
    )


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


@dataclass(frozen=True)
class Zed(Stateless):
    """Zed's copied ACP log (the reader splits the array into its elements)."""

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

    def decode(self, record: Any, line: int) -> Iterator[Record]:
        """Each entry becomes the JSON-RPC message it stands for."""
        for entry in record if isinstance(record, list) else (record,):
            if _is_stderr(entry):
                yield RecorderEvent(line, _STDERR, detail={"text": entry.get("params")})
            else:
                yield Envelope(line, _DIRECTIONS[entry["_direction"]], _jsonrpc(entry))


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
