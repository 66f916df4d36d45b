"""Bare JSON-RPC lines: the message itself on each line, no direction, no time."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from acptrace.model.domain import Direction
from acptrace.read.envelopes import Envelope, Record
from acptrace.read.formats.base import Stateless

_JSONRPC_MEMBERS = ("jsonrpc", "method", "result", "error")


def looks_like_jsonrpc(record: Any) -> bool:
    """An object meant as JSON-RPC (it has `jsonrpc`, `method`, `result` or `error`), or a batch."""
    if isinstance(record, list):
        return True
    return isinstance(record, dict) and any(key in record for key in _JSONRPC_MEMBERS)


class BareJsonRpc(Stateless, frozen=True):
    """Messages as they went over stdio; direction is inferred later from methods and ids."""

    name: str = "jsonrpc"
    summary: str = "bare JSON-RPC, one message or batch per line (stdio dumps, lsp-devtools)"
    producers: str = "lsp-devtools `--to-file`, stdio dumps, hand-made logs, spec examples"
    example: str = '{"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {"cwd": "/"}}'

    def detect(self, record: Any) -> bool:
        """A JSON-RPC object or batch array."""
        return looks_like_jsonrpc(record)

    def decode(self, record: Any, line: int) -> Iterator[Record]:
        """The record is the payload; classification judges whether it is JSON-RPC."""
        yield Envelope(line, Direction.UNKNOWN, record)


FORMAT = BareJsonRpc()
