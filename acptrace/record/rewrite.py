"""`acptrace redact`: an existing transcript, in any format, with its secrets replaced.

Line formats (JSON Lines of any envelope, bare JSON-RPC) are rewritten line by line: a line
whose redaction changes nothing is copied byte for byte, a changed one is serialised again
(compact), a line that is not JSON is redacted as text (undecodable bytes kept); the `open`
record of a canonical transcript is marked `"redacted": true`. A file that
is one JSON document spread over many lines (Zed's "Copy All Messages" array) is redacted
as a whole and written indented. JSON nested too deep to walk or write back is redacted as
text. Lines longer than `MAX_LINE_BYTES` are redacted piecewise
as text (patterns and `name=value` rules only).
"""

from __future__ import annotations

import gzip
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from acptrace.model.temporary import atomic_file
from acptrace.record.outputs import OWNER_ONLY, check_output
from acptrace.record.redact import RedactionPolicy, redact_bytes, redact_message

MAX_LINE_BYTES = 64 * 1024 * 1024
"""Longer lines are not parsed but redacted piece by piece as text."""

_DOCUMENT_STARTS = (b"[", b"{")


@dataclass(slots=True)
class RedactStats:
    """What a rewrite did."""

    lines: int = 0
    """Lines read (a whole-document input counts its lines too)."""
    changed: int = 0
    """Lines (or documents) that had something replaced."""
    redactions: int = 0
    """Values replaced."""
    marked: int = 0
    """`open` records rewritten to say `"redacted": true` (a line rewritten even when nothing
    in it was replaced)."""


def redact_transcript(source: BinaryIO, sink: BinaryIO, policy: RedactionPolicy) -> RedactStats:
    """Copy `source` to `sink` with secrets replaced; stats of what changed."""
    stats = RedactStats()
    first = source.readline(MAX_LINE_BYTES)
    if _starts_a_document(first):
        whole = first + source.read()
        stats.lines = whole.count(b"\n") + (not whole.endswith(b"\n"))
        try:
            redacted, count = redact_message(orjson.loads(whole), policy)
            option = orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE
            sink.write(orjson.dumps(redacted, option=option) if count else whole)
        except (orjson.JSONDecodeError, RecursionError, orjson.JSONEncodeError):
            pass  # not one document, or nested too deep: redacted line by line, as text
        else:
            stats.changed, stats.redactions = int(bool(count)), count
            return stats
        stats.lines = 0
        _redact_lines(_pieces_of(whole), sink, policy, stats)
        return stats
    _redact_lines(_read_pieces(first, source), sink, policy, stats)
    return stats


@contextmanager
def open_output(path: str | os.PathLike[str]) -> Iterator[BinaryIO]:
    """A file (0600) that appears at `path` only if the block succeeds (a device or a FIFO
    is written into as it is); gzip when it ends in `.gz`. OutputRefused first when the path
    cannot be written (`acptrace.record.outputs`)."""
    target = Path(path)
    check_output(target)
    if target.exists() and not target.is_file():  # a device or a FIFO: written into, never
        with target.open("wb") as raw:  # replaced by a file (`-o /dev/stdout`)
            yield raw
        return
    with atomic_file(target, OWNER_ONLY) as raw:  # (removed on failure and signals)
        if target.suffix == ".gz":
            with gzip.GzipFile(fileobj=raw, mode="wb") as packed:
                yield packed  # type: ignore[misc]
        else:
            yield raw


def _starts_a_document(first: bytes) -> bool:
    """A first line such as `[` that is not JSON alone but opens a multi-line document."""
    stripped = first.strip()
    if not stripped.startswith(_DOCUMENT_STARTS):
        return False
    try:
        orjson.loads(stripped)
    except orjson.JSONDecodeError:
        return True
    return False


def _read_pieces(first: bytes, source: BinaryIO) -> Iterator[bytes]:
    """Lines (with their endings), a long one in pieces of at most MAX_LINE_BYTES."""
    piece = first
    while piece:
        yield piece
        piece = source.readline(MAX_LINE_BYTES)


def _pieces_of(data: bytes) -> Iterator[bytes]:
    start = 0
    while start < len(data):
        end = data.find(b"\n", start, start + MAX_LINE_BYTES)
        stop = min(len(data), start + MAX_LINE_BYTES) if end < 0 else end + 1
        yield data[start:stop]
        start = stop


def _redact_lines(
    pieces: Iterator[bytes], sink: BinaryIO, policy: RedactionPolicy, stats: RedactStats
) -> None:
    whole_line = True
    for piece in pieces:
        ended = piece.endswith(b"\n")
        if whole_line:
            stats.lines += 1
        if whole_line and (ended or len(piece) < MAX_LINE_BYTES):
            out, count, marked = _redact_line(piece, policy)
            stats.marked += marked
        else:
            out, count = redact_bytes(piece, policy)
        sink.write(out)
        stats.changed += bool(count)
        stats.redactions += count
        whole_line = ended


def _redact_line(line: bytes, policy: RedactionPolicy) -> tuple[bytes, int, bool]:
    """One whole line: as JSON when it parses, as text otherwise; unchanged bytes if clean.
    Also whether it is an `open` record marked redacted here (rewritten even if clean)."""
    body = line.rstrip(b"\r\n")
    ending = line[len(body) :]
    if not body.strip():
        return line, 0, False
    try:
        value = orjson.loads(body)
    except orjson.JSONDecodeError:
        redacted, count = redact_bytes(body, policy)
        return (redacted + ending, count, False) if count else (line, 0, False)
    try:
        new, count = redact_message(value, policy)
        new, marked = _marked_redacted(new)
        return (orjson.dumps(new) + ending, count, marked) if count or marked else (line, 0, False)
    except (RecursionError, orjson.JSONEncodeError):  # nested too deep to walk or write back
        redacted, count = redact_bytes(body, policy)
        return (redacted + ending, count, False) if count else (line, 0, False)


def _marked_redacted(value: Any) -> tuple[Any, bool]:
    """A canonical transcript's `open` record says `"redacted": true` once redacted."""
    if (
        isinstance(value, dict)
        and value.get("dir") == "meta"
        and value.get("event") == "open"
        and value.get("redacted") is not True
    ):
        return {**value, "redacted": True}, True
    return value, False
