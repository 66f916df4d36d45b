"""Files that hold several connections: telling such a file by its head, and cutting it into
one `Part` per connection, each then walked on its own like a file of its own.

An acp-tck report holds one connection per test transcript; an `acp-inspector-trace` export
one per `connection` value (outcomes.md: "Several analyses in one output"). Each format reads
its connections itself (`acp_tck.connections`, `inspector_trace.connections`).
"""

from __future__ import annotations

from typing import BinaryIO

from acptrace.read.envelopes import Part
from acptrace.read.formats import ReadSettings, acp_tck, inspector_trace
from acptrace.read.jsontext import JSONDecodeError, loads
from acptrace.read.records import Reader, ReadStats
from acptrace.read.source import BOM, iter_blocks, peek_head, read_whole

MULTI_CONNECTION_FORMATS = (acp_tck.NAME, inspector_trace.NAME)
"""Formats whose files are read as a sequence of connections."""


def read_parts(stream: BinaryIO, forced: str | None, max_line_bytes: int) -> list[Part] | None:
    """The connections of a multi-connection file, in file order; None for any other file
    (`forced`: the input format the user named, if any)."""
    if forced is not None:
        chosen = forced if forced in MULTI_CONNECTION_FORMATS else None
    else:
        chosen = multi_connection_format(peek_head(stream))
    if chosen == acp_tck.NAME:
        return acp_tck.connections(read_whole(stream))
    if chosen == inspector_trace.NAME:
        return _inspector_connections(stream, max_line_bytes)
    return None


def _inspector_connections(stream: BinaryIO, max_line_bytes: int) -> list[Part]:
    """An acp-inspector-trace export read whole as that format's records, then cut into its
    connections (`inspector_trace.connections`)."""
    stats = ReadStats()
    lines = iter_blocks(stream, max_line_bytes)
    reader = Reader(lines, stats, inspector_trace.FORMAT, ReadSettings(fast=False))
    return inspector_trace.connections(reader.records(), lambda: stats.lines)


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
