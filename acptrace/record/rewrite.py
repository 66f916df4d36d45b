"""`acptrace redact`: an existing transcript, in any format, with its secrets replaced.

Line formats (JSON Lines of any envelope, bare JSON-RPC) are rewritten line by line: a line
whose redaction changes nothing is copied byte for byte, a changed one is serialised again
(compact), a line that is not JSON is redacted as text (undecodable bytes kept); the `open`
record of a canonical transcript is marked `"redacted": true`. A file that is one JSON
document spread over many lines (Zed's "Copy All Messages" array), or several one after
another (that dump pasted twice), has each document redacted as a whole and written indented
if it changed. Either way the chunks of a streamed message are redacted together
(`acptrace.record.chunks`). JSON nested too deep to walk or write back is redacted as text.
Lines longer than `MAX_LINE_BYTES` are redacted piecewise as text.
"""

from __future__ import annotations

import gzip
import json
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from acptrace.model.temporary import atomic_file
from acptrace.record.chunks import ChunkJoiner, parsed_chunk
from acptrace.record.outputs import OWNER_ONLY, check_not_dangling, check_output
from acptrace.record.redact import RedactionPolicy, redact_bytes, redact_message

MAX_LINE_BYTES = 64 * 1024 * 1024
"""Longer lines are not parsed but redacted piece by piece as text."""

_DOCUMENT_STARTS = (b"[", b"{")
_BLANKS = re.compile(r"[ \t\r\n]*")
_DIRECTION = re.compile(rb'"_?dir(?:ection)?"\s*:\s*"(\w+)"')


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
        if _redact_documents(whole, sink, policy, stats):
            return stats
        stats.lines = 0
        _redact_lines(_pieces_of(whole), sink, policy, stats)
        return stats
    _redact_lines(_read_pieces(first, source), sink, policy, stats)
    return stats


def _redact_documents(
    whole: bytes, sink: BinaryIO, policy: RedactionPolicy, stats: RedactStats
) -> bool:
    """One JSON document spread over many lines, or several one after another (Zed's dump
    pasted twice), each redacted as a whole: a changed one written indented, the others and
    the blanks between them as they were. False (nothing written) when that is not what the
    input is, or a document is nested too deep: it is then redacted line by line."""
    try:
        documents = list(_documents(whole))
    except (ValueError, RecursionError):
        return False
    out: list[bytes] = []
    done = 0
    joiner: ChunkJoiner[int] = ChunkJoiner(policy)
    try:
        for start, end, value in documents:
            redacted, count = redact_document(value, policy, joiner)
            out.append(whole[done:start])
            option = orjson.OPT_INDENT_2
            out.append(orjson.dumps(redacted, option=option) if count else whole[start:end])
            done = end
            stats.changed += bool(count)
            stats.redactions += count
    except (RecursionError, orjson.JSONEncodeError):
        stats.changed = stats.redactions = 0
        return False
    out.append(whole[done:])
    sink.write(b"".join(out))
    return True


def redact_document(
    value: Any, policy: RedactionPolicy, joiner: ChunkJoiner[int] | None = None
) -> tuple[Any, int]:
    """A JSON document redacted; an array's elements one by one through the joiner (Zed's
    dump: the chunks of a streamed message redacted together, `acptrace.record.chunks`)."""
    joiner = joiner or ChunkJoiner(policy)
    if not isinstance(value, list):
        return redact_message(value, joiner.policy)
    out: list[Any] = list(value)
    total = 0
    ready = [r for i, item in enumerate(value) for r in joiner.push(i, item, _zed_direction(item))]
    for index, chunk, count in [*ready, *joiner.flush()]:
        if chunk is None:
            chunk, count = redact_message(value[index], joiner.policy)
        out[index] = chunk
        total += count
    return (out, total) if total else (value, 0)


def _zed_direction(entry: Any) -> Any:
    return entry.get("_direction", entry.get("dir")) if isinstance(entry, dict) else None


def _documents(whole: bytes) -> Iterator[tuple[int, int, Any]]:
    """Each JSON document of the input (its start and end in bytes), blanks between them;
    ValueError when something else is there, or a document of several on one line (JSON
    Lines, read line by line)."""
    try:
        yield 0, len(whole.rstrip()), orjson.loads(whole)
        return
    except orjson.JSONDecodeError:
        pass
    text = whole.decode("utf-8")
    decoder = json.JSONDecoder()
    at = byte_at = 0
    while True:
        blank = _BLANKS.match(text, at).end()  # type: ignore[union-attr]  # (matches "")
        byte_at += blank - at  # (blanks are ASCII)
        if blank == len(text):
            return
        value, end = decoder.raw_decode(text, blank)
        if text.find("\n", blank, end) < 0:
            raise ValueError("a document on one line")
        size = len(text[blank:end].encode())
        yield byte_at, byte_at + size, value
        at, byte_at = end, byte_at + size


@contextmanager
def open_output(path: str | os.PathLike[str]) -> Iterator[BinaryIO]:
    """A file (0600) that appears at `path` only if the block succeeds (a device or a FIFO
    is written into as it is); gzip when it ends in `.gz`. OutputRefused first when the path
    cannot be written (`acptrace.record.outputs`), or is a dangling symbolic link."""
    target = Path(path)
    check_output(path)  # (the path as given: `Path("")` would be the current folder)
    check_not_dangling(target)
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
    """Each line (or piece of an over-long one) redacted; the chunks of a streamed message
    together (`ChunkJoiner`), the lines after them kept in order behind them."""
    joiner: ChunkJoiner[tuple[bytes, bool]] = ChunkJoiner(policy)
    whole_line = True
    for piece in pieces:
        ended = piece.endswith(b"\n")
        whole = whole_line and (ended or len(piece) < MAX_LINE_BYTES)
        stats.lines += whole_line
        value = parsed_chunk(piece) if whole else None
        direction = _direction_of(piece) if whole else None
        for ready in joiner.push((piece, whole), value, direction, len(piece)):
            _write_piece(*ready, sink, policy, stats)
        whole_line = ended
    for ready in joiner.flush():
        _write_piece(*ready, sink, policy, stats)


def _write_piece(
    tag: tuple[bytes, bool],
    chunk: Any,
    count: int,
    sink: BinaryIO,
    policy: RedactionPolicy,
    stats: RedactStats,
) -> None:
    piece, whole = tag
    if chunk is not None:
        body = piece.rstrip(b"\r\n")
        out = orjson.dumps(chunk) + piece[len(body) :] if count else piece
    elif whole:
        out, count, marked = _redact_line(piece, policy)
        stats.marked += marked
    else:
        out, count = redact_bytes(piece, policy)
    sink.write(out)
    stats.changed += bool(count)
    stats.redactions += count


def _direction_of(line: bytes) -> bytes | None:
    """A record's direction (`"dir"` of the canonical format, Zed's `"_direction"`), as far
    as its first bytes tell: lines from another direction do not end a streamed message."""
    found = _DIRECTION.search(line, 0, 512)
    return found.group(1) if found else None


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
