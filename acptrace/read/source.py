"""Bytes in, numbered lines out: files, stdin and `.gz`, with bounded memory per line.

This stage never interprets a line; it only says where each one starts and whether it was
whole (ended by a newline) or had to be cut because it was longer than the limit.
"""

from __future__ import annotations

import io
import os
import stat
import sys
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from pathlib import Path
from typing import BinaryIO

import msgspec

from acptrace.model.errors import UnreadableInput
from acptrace.model.options import DEFAULT_MAX_LINE_BYTES
from acptrace.read.digits import too_many_digits

"""Lines longer than this are reported as `line_too_long` and skipped, never held in memory."""

OPENED: ContextVar[Callable[[BinaryIO, str], None] | None] = ContextVar("OPENED", default=None)
"""Told of each transcript file `open_input` opens (the file itself, not what unpacks it, and
its name), so that a progress display can show how far it has been read (`cli.progress`)."""
JOINED: ContextVar[Callable[[int], None] | None] = ContextVar("JOINED", default=None)
"""Told, piece by piece, how far (a byte offset) the file last opened has been read and joined
when other processes decode it in pieces (`pipeline.pieces`): its own handle then stays at its
head, so its position says nothing of the progress. Once per piece, never per line."""
_GZIP_MAGIC = b"\x1f\x8b"
BOM = b"\xef\xbb\xbf"
"""A UTF-8 byte order mark, skipped where an input starts with one."""
_SKIP_CHUNK = 1024 * 1024


class RawLine(msgspec.Struct, frozen=True, gc=False):
    """One line of input, without its line end (a Struct: one is made per line)."""

    number: int
    """1-based line number."""
    data: bytes
    """The bytes of the line, `\\n` (and a `\\r` before it) removed; empty when too long."""
    ended: bool
    """False for a final line that has no newline."""
    too_long: int = 0
    """The length in bytes when the line exceeded the limit (its data is then dropped)."""
    crlf: bool = False
    """The line ended with `\\r\\n`."""


@contextmanager
def open_input(path: str | os.PathLike[str]) -> Iterator[BinaryIO]:
    """Open a transcript for reading bytes: `-` is stdin, gzip is detected by its magic bytes.

    Raises UnreadableInput when the path cannot be read at all.
    """
    if str(path) == "-":
        if sys.stdin is None:  # (started with stdin closed: `<&-`)
            raise UnreadableInput("-: stdin is closed: nothing to read")
        stream = sys.stdin.buffer
        _refuse_special("-", _mode_of(stream), terminal=stream.isatty())
        with _named("-"):
            opened = _Snapshot.of(stream)  # (a file redirected to stdin; a pipe cannot be cut)
            yield _maybe_gunzip(stream)
            _check_not_cut(stream, "-", opened)
        return
    target = Path(path)
    if target.is_dir():
        raise UnreadableInput(f"{target}: is a directory, not a transcript file")
    _refuse_special(str(target), _mode_of_path(target))
    try:
        handle = target.open("rb")  # (by its path: a big file is split by its name)
    except FileNotFoundError:
        raise UnreadableInput(f"{target}: no such file") from None
    except PermissionError:
        raise UnreadableInput(f"{target}: permission denied") from None
    except OSError as error:
        raise UnreadableInput(f"{target}: cannot be read ({error.strerror or error})") from None
    if (watch := OPENED.get()) is not None:
        watch(handle, str(target))
    with handle, _named(str(target)):
        opened = _Snapshot.of(handle)
        yield _maybe_gunzip(handle)
        _check_not_cut(handle, str(target), opened)


HEAD_CHECKED = 4096
"""Bytes at the start of a file compared when it has been read: a file cut and written again
meanwhile (to its old size or more) starts differently."""


class _Snapshot(msgspec.Struct, frozen=True):
    """What a regular file was when it was opened: its size and its first bytes."""

    size: int
    head: bytes

    @classmethod
    def of(cls, stream: BinaryIO) -> _Snapshot | None:
        """The file's snapshot; None for what is not a regular file (a pipe, a terminal:
        what comes through it is what was written, nothing can cut it)."""
        try:
            fd = stream.fileno()
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                return None
            return cls(info.st_size, os.pread(fd, HEAD_CHECKED, 0))
        except (OSError, ValueError, io.UnsupportedOperation):
            return None


def _check_not_cut(handle: BinaryIO, name: str, opened: _Snapshot | None) -> None:
    """Raise `UnreadableInput` when the file is shorter now than when it was opened, or starts
    with other bytes: cut while it was read (a log rotated by truncation, a recording started
    again over it, even one that grew past the old size since), what was read is of neither
    version, and its counts would say nothing true. Also when its pieces were read by several
    processes (`-j`): they read the same file, by its path."""
    if opened is None:
        return
    try:
        fd = handle.fileno()
        size = os.fstat(fd).st_size
        head = os.pread(fd, len(opened.head), 0)
    except OSError as error:
        raise UnreadableInput(f"{name}: cannot be read again at its end ({error})") from None
    if size < opened.size:
        raise UnreadableInput(
            f"{name}: cut short while it was read ({opened.size:,} bytes when opened, "
            f"{size:,} at the end): read it again once nothing writes to it"
        )
    if head != opened.head:
        raise UnreadableInput(
            f"{name}: written again while it was read ({opened.size:,} bytes when opened, "
            f"{size:,} at the end, its first bytes changed): read it again once nothing "
            "writes to it"
        )


@contextmanager
def _named(name: str) -> Iterator[None]:
    """Errors met while reading the input name it (`FILE: reading stopped after line 3: …`);
    a corrupt or cut `.gz` met by a reader that does not say so itself is one of them."""
    try:
        yield
    except UnreadableInput as error:
        if str(error).startswith(f"{name}: "):
            raise
        raise UnreadableInput(f"{name}: {error}") from None
    except (EOFError, zlib.error, OSError) as error:
        if isinstance(error, OSError) and not _bad_gzip(error):
            raise
        raise UnreadableInput(f"{name}: reading stopped: {error}") from None


def _bad_gzip(error: OSError) -> bool:
    """A corrupt `.gz`: only a `GzipFile` raises `BadGzipFile`, so gzip is imported then (it is
    imported for a gzip input only: ~1 ms that no other run needs)."""
    gzip = sys.modules.get("gzip")
    return gzip is not None and isinstance(error, gzip.BadGzipFile)


_SPECIAL = {
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
}
"""The inputs refused before reading (`/dev/zero` would be read for ever): files, FIFOs and
stdin are read, once, as a stream."""


def _mode_of_path(target: Path) -> int:
    """The file type of the path (links followed); 0 when it cannot be found (opening it
    says what is wrong)."""
    try:
        return target.stat().st_mode
    except OSError:
        return 0


def _is_fifo(target: Path) -> bool:
    return stat.S_ISFIFO(_mode_of_path(target))


def _mode_of(stream: BinaryIO) -> int:
    try:
        return os.fstat(stream.fileno()).st_mode
    except (OSError, AttributeError, ValueError, io.UnsupportedOperation):
        return stat.S_IFIFO  # (a stream without a descriptor: read as it comes)


def _refuse_special(name: str, mode: int, *, terminal: bool = False) -> None:
    """UnreadableInput for a device or a socket (a terminal on stdin is read: it is typed)."""
    what = _SPECIAL.get(stat.S_IFMT(mode))
    if what is not None and not terminal:
        raise UnreadableInput(f"{name}: is {what}, not a transcript file")


def is_stream(path: str | os.PathLike[str]) -> bool:
    """Whether the input can be read only once: stdin (`-`) or a FIFO."""
    return str(path) == "-" or _is_fifo(Path(path))


@contextmanager
def replayable(path: str) -> Iterator[str]:
    """A path that can be read more than once: the path itself, or for stdin and a FIFO (read
    once) a temporary copy of their bytes, removed afterwards. UnreadableInput as `open_input`."""
    if not is_stream(path):
        yield path
        return
    import shutil  # (here, as tempfile: most runs never copy their input)
    import tempfile

    with tempfile.TemporaryDirectory(prefix="acptrace-") as folder:
        copy = os.path.join(folder, "input")
        with _raw(path) as source, open(copy, "wb") as sink:
            try:
                shutil.copyfileobj(source, sink, READ_BLOCK)
            except OSError as error:
                raise UnreadableInput(
                    f"{path}: reading stopped ({error.strerror or error})"
                ) from None
        yield copy


@contextmanager
def _raw(path: str) -> Iterator[BinaryIO]:
    """The bytes of stdin or a FIFO as they come (not unpacked)."""
    if path == "-":
        _refuse_special("-", _mode_of(sys.stdin.buffer), terminal=sys.stdin.isatty())
        yield sys.stdin.buffer
        return
    try:
        handle = open(path, "rb")  # noqa: SIM115 (closed below)
    except OSError as error:
        raise UnreadableInput(f"{path}: cannot be read ({error.strerror or error})") from None
    with handle:
        yield handle


def read_whole(stream: BinaryIO) -> bytes:
    """The rest of the stream at once (a document read whole); UnreadableInput if reading fails."""
    try:
        return stream.read()
    except (OSError, EOFError, zlib.error) as error:  # (gzip.BadGzipFile is an OSError)
        raise UnreadableInput(f"reading stopped: {error}") from None


def peek_head(stream: BinaryIO, size: int = 64 * 1024) -> bytes:
    """Up to `size` bytes from where the stream stands, leaving them to be read (fewer when the
    stream buffers less; none from a stream that can neither peek nor seek)."""
    peek = getattr(stream, "peek", None)
    try:
        if peek is not None:
            return bytes(peek(size)[:size])
        if stream.seekable():
            at = stream.tell()
            head = stream.read(size)
            stream.seek(at)
            return head
    except (OSError, EOFError, zlib.error) as error:  # (gzip.BadGzipFile is an OSError)
        raise UnreadableInput(f"reading stopped after line 0: {error}") from None
    return b""


def _maybe_gunzip(stream: BinaryIO) -> BinaryIO:
    """Wrap a gzip stream for transparent decompression; leave anything else as it is."""
    peek = getattr(stream, "peek", None)
    try:
        head = peek(2)[:2] if peek is not None else b""
    except OSError as error:  # (the first read: an I/O error of the input, as `peek_head`)
        raise UnreadableInput(f"reading stopped after line 0: {error}") from None
    if head == _GZIP_MAGIC:
        import gzip  # (here: only a gzip input needs it)

        return gzip.GzipFile(fileobj=stream, mode="rb")  # type: ignore[return-value]
    return stream


READ_BLOCK = 1024 * 1024
"""Bytes read at a time; lines are cut out of blocks."""


class LineBlock(msgspec.Struct, frozen=True, gc=False):
    """Whole lines cut from one read, kept together: the hot path decodes them in one loop."""

    first: int
    """The number of its first line."""
    lines: list[bytes]
    """The lines, each with its `\\n` (JSON allows it after a value)."""
    cr: bool
    """Some line holds a `\\r` (a CRLF line end, maybe)."""
    digits: bool
    """Some line may hold more digits in a row than an integer converts with
    (`read.digits`): the hot path checks its lines one by one."""

    @classmethod
    def cut(cls, first: int, data: bytes) -> LineBlock:
        """The block of the whole lines in `data` (which ends with a line end)."""
        return cls(first, _lines(data, 0), b"\r" in data, too_many_digits(data))

    @property
    def count(self) -> int:
        """How many lines it holds."""
        return len(self.lines)

    def raw_lines(self, max_line_bytes: int | None = None) -> Iterator[RawLine]:
        """Its lines one by one, as `iter_lines` gives them."""
        for number, data in enumerate(self.lines, self.first):
            line = data[:-1]
            yield _whole(number, line, len(line) if max_line_bytes is None else max_line_bytes)


class BlankLines(msgspec.Struct, frozen=True, gc=False):
    """Lines of white space only, one after another in one read, counted but not cut: a flood
    of blank lines is counted at `memcmp` speed, without a Python step per line."""

    first: int
    """The number of its first line."""
    data: bytes
    """Their bytes, each line with its `\\n` (no `\\r`: CRLF line ends are read line by line)."""

    @property
    def count(self) -> int:
        """How many lines it holds."""
        return len(self.data) if _only_newlines(self.data) else self.data.count(b"\n")

    def raw_lines(self) -> Iterator[RawLine]:
        """Its lines one by one, as `iter_lines` gives them."""
        for number, data in enumerate(_lines(self.data, 0), self.first):
            yield RawLine(number, data[:-1], ended=True)

    @classmethod
    def cut(cls, first: int, data: bytes) -> BlankLines | None:
        """The lines of `data` (whole lines) when all are blank and none ends with CRLF."""
        if _only_newlines(data) or (data[:1] in _BLANK and not data.strip(_BLANK)):
            return cls(first, data)
        return None


_EMPTY_RUN = b"\n" * 64
"""Empty lines at the start or end of a read that are worth counting apart (a flood's edge)."""
_BLANK = b" \t\n\f\v"
"""White space a blank line may hold, but `\\r` (a CRLF line end is reported once)."""


def _only_newlines(data: bytes) -> bool:
    """Whether `data` is nothing but `\\n`s (compared with `memcmp`: one pass, in C)."""
    if len(data) <= READ_BLOCK:
        return _newlines().startswith(data)
    return not data.strip(b"\n")


@cache
def _newlines() -> bytes:
    """A read's worth of `\\n`s, made when first compared with (not at import: writing 1 MiB
    costs every process ~0.5 ms, and most inputs never have a blank read)."""
    return b"\n" * READ_BLOCK


def _lines(data: bytes, start: int) -> list[bytes]:
    """The lines of `data` from `start`, each with its line end (the last one maybe without).

    `BytesIO.readlines` finds line ends with `memchr`; `bytes.split` tests byte by byte and
    took three times as long.
    """
    reader = io.BytesIO(data)
    reader.seek(start)
    return reader.readlines()


def iter_lines(
    stream: BinaryIO, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES, first: int = 1
) -> Iterator[RawLine]:
    """Yield every line of the stream, numbered; memory per line is bounded by `max_line_bytes`.

    `first` is the number of the first line (a piece from the middle of a file starts later).
    Raises UnreadableInput if reading fails midway (a read error, a corrupt gzip stream).
    """
    for item in iter_blocks(stream, max_line_bytes, first):
        if isinstance(item, LineBlock | BlankLines):
            yield from item.raw_lines()
        else:
            yield item


def iter_blocks(
    stream: BinaryIO, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES, first: int = 1
) -> Iterator[RawLine | LineBlock | BlankLines]:
    """`iter_lines`, with the lines that lie wholly inside one read kept together in blocks.

    A line that spans reads, is too long, or ends the input without a newline comes alone;
    a block never holds a line longer than `max_line_bytes`. The whole lines of a read that
    are all blank come as `BlankLines`, counted without being cut.
    """
    number = first - 1
    held: list[bytes] = []  # the start of a line that continues past the last block
    held_bytes = 0
    try:
        for block in _reads(stream, skip_bom=first == 1):
            newline = block.find(b"\n")
            if newline < 0:
                held.append(block)
                held_bytes += len(block)
                if held_bytes > max_line_bytes:
                    number += 1
                    length, ended = _skip_rest(stream, held_bytes)
                    held, held_bytes = [], 0
                    yield RawLine(number, b"", ended=ended, too_long=length)
                continue
            number += 1
            yield _whole(number, b"".join([*held, block[:newline]]), max_line_bytes)
            start, end = newline + 1, block.rfind(b"\n") + 1
            if len(block) <= max_line_bytes:
                for part in _whole_lines(number + 1, block, start, end):
                    yield part
                    number += part.count
            elif start < end:
                cut = _lines(block[:end], start)
                lines = LineBlock(number + 1, cut, b"\r" in block, too_many_digits(block))
                yield from lines.raw_lines(max_line_bytes)
                number += lines.count
            last = block[end:]  # (the next line's start)
            held, held_bytes = ([last], len(last)) if last else ([], 0)
    except (OSError, EOFError, zlib.error) as error:  # (gzip.BadGzipFile is an OSError)
        raise UnreadableInput(f"reading stopped after line {number}: {error}") from None
    if held:  # (the last line, without a newline: skipped too when longer than a line may be)
        last = b"".join(held)
        if len(last) > max_line_bytes:
            yield RawLine(number + 1, b"", ended=False, too_long=len(last))
        else:
            yield RawLine(number + 1, last, ended=False)


def _whole_lines(
    first: int, block: bytes, start: int, end: int
) -> Iterator[LineBlock | BlankLines]:
    """The whole lines of `block[start:end]` in a `LineBlock`, but runs of blank lines: all of
    them, or a long run of empty lines at either end (where a flood of them starts or stops).

    A block of other lines pays two byte comparisons for this.
    """
    if start >= end:
        return
    lead, trail = start, end
    if block.startswith(_EMPTY_RUN, start):
        lead = end - len(block[start:end].lstrip(b"\n"))
    if lead < end and block.endswith(_EMPTY_RUN, lead, end):
        trail = lead + len(block[lead:end].rstrip(b"\n")) + 1
    if lead > start:
        yield BlankLines(first, block[start:lead])
        first += lead - start
    edge = block[lead : lead + 1]
    blank = BlankLines.cut(first, block[lead:trail]) if edge and edge in _BLANK else None
    if blank is not None:
        yield blank
    elif lead < trail:
        if trail == end:  # (not `block[:trail]`, a copy of the whole read)
            lines = _lines(block, lead)
            if end < len(block):
                lines.pop()  # the start of the next line, which the read cut
        else:
            lines = _lines(block[:trail], lead)
        yield LineBlock(first, lines, b"\r" in block, too_many_digits(block))
        first += len(lines)
    if trail < end:
        yield BlankLines(first + (blank.count if blank else 0), block[trail:end])


def _reads(stream: BinaryIO, skip_bom: bool) -> Iterator[bytes]:
    """The stream in blocks; a UTF-8 byte-order mark at its very start is skipped (RFC 8259
    allows one there; anywhere else it is data)."""
    block = stream.read(READ_BLOCK)
    if skip_bom and block.startswith(BOM):
        block = block[len(BOM) :] or stream.read(READ_BLOCK)
        if not block:
            yield b""  # (a mark alone: one empty line, as its bytes count)
            return
    while block:
        yield block
        block = stream.read(READ_BLOCK)


def _whole(number: int, data: bytes, max_line_bytes: int) -> RawLine:
    """A line that ended with a newline (removed, and a `\\r` before it)."""
    if len(data) > max_line_bytes:
        return RawLine(number, b"", ended=True, too_long=len(data))
    if data.endswith(b"\r"):
        return RawLine(number, data[:-1], ended=True, crlf=True)
    return RawLine(number, data, ended=True)


def _skip_rest(stream: BinaryIO, seen: int) -> tuple[int, bool]:
    """Skip the rest of an over-long line without keeping it; its length and whether it ended."""
    length = seen
    while True:
        chunk = stream.readline(_SKIP_CHUNK)
        if not chunk:
            return length, False
        length += len(chunk)
        if chunk.endswith(b"\n"):
            return length - 1, True
