"""Files that hold several connections: what each one is, and telling such a file by its head.

An acp-tck report holds one connection per test transcript; an `acp-inspector-trace` export
one per `connection` value. Each connection is analysed on its own, exactly like a file of its
own (outcomes.md: "Several analyses in one output").
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from acptrace.read.envelopes import Record
from acptrace.read.formats import acp_tck, inspector_trace
from acptrace.read.jsontext import JSONDecodeError, loads

BOM = b"\xef\xbb\xbf"
MULTI_CONNECTION_FORMATS = (acp_tck.NAME, inspector_trace.NAME)
"""Formats whose files are read as a sequence of connections."""


class Part(msgspec.Struct, frozen=True):
    """One connection of a file that holds several: its records, in order."""

    name: str
    """The connection's name within its file (`source.connection`)."""
    format: str
    """The file's format."""
    lines: int
    """Every line of the file."""
    records: Sequence[Record]
    """Its envelopes, recorder events and issues, in line order; a `close` event ends a
    connection whose end the file records."""
    requirements: tuple[str, ...] | None = None
    """For an acp-tck test: the requirements it is listed under."""
    test_status: str | None = None
    """For an acp-tck test: its status."""
    protocol_version: int | None = None
    """For an acp-tck test: the `protocol_version` its report states (rules.md §7)."""


def multi_connection_format(head: bytes) -> str | None:
    """The multi-connection format a file that starts with these bytes is in, if any."""
    text = head.removeprefix(BOM).lstrip()
    if not text.startswith(b"{"):
        return None
    first, newline, _ = text.partition(b"\n")
    if newline:
        try:
            record = loads(first)
        except JSONDecodeError:
            record = None
        if record is not None:
            if inspector_trace.FORMAT.detect(record):
                return inspector_trace.NAME
            return acp_tck.NAME if acp_tck.FORMAT.detect(record) else None
    return acp_tck.NAME if acp_tck.MARK in text else None
