"""One big file on several cores: pieces decoded in parallel, then correlated in file order.

Decoding a line (reading it, JSON, the hot path) is most of the work per line and needs almost
nothing from the lines before it; correlating needs everything before it. So the file is cut
into pieces at line ends, handed out in order to whichever process asks first (the main
process and `Execution.split - 1` workers); each process decodes its pieces into records, and
the main process joins them in file order for the walk to correlate, exactly as if it had read
the file alone. The little that does depend on earlier lines is carried across pieces here:

- line numbers: whoever takes a piece counts its line ends before letting the next one be
  taken, so every piece knows its first line number before anyone has decoded the ones
  before it;
- the format: settled once from the head of the file (`read.detect_format`);
- the issues reported once while reading (`crlf` per file, `mixed_format` per format): a
  process reports them once per piece or per process, with what they are once for, and the
  join keeps the first of each (`unknown_direction` comes later, from the classifier, which
  runs in the main process and sees every record);
- the clocks: a record whose clock has no earlier time in its piece becomes a `TimeProbe`,
  which the join settles against the pieces before it;
- records of another format that decodes with state (a conductor trace inside a canonical
  one) make their piece be decoded again by the join, in order, by one reader that sees them
  all.

Everything after decoding (classification, correlation, the rules) stays in the main process,
in order; for an analysis, a worker sends each run of plain updates as one `UpdateRun`. What
the analysis wants of a run depends on everything before it, so a piece is read for all of it
but the activity of tool and state updates, whose lines are kept (`Watch.AHEAD`); the main
process reads that activity where the analysis wants it, as the walk reaches the run
(`decode.stream.settled_runs`). Only
plain files in a format with a hot path are split (not stdin, gzip, a Zed array, or a walk
that keeps payloads), and only from `Execution.split_min_bytes`. A worker that fails loses
nothing: the join decodes the pieces it took itself.
"""

from __future__ import annotations

import io
import os
import pickle
import queue
import signal
import stat
import threading
from collections.abc import Callable, Iterator, Sequence
from itertools import chain
from typing import TYPE_CHECKING, Any, BinaryIO

import msgspec

from acptrace.decode.classify import Found
from acptrace.decode.packed import packed, unpacked
from acptrace.decode.stream import HotPath, Read, settled_runs
from acptrace.model.domain import Issue, IssueKind, Message, UpdateRun
from acptrace.model.options import Execution, Options
from acptrace.model.tags import TagPolicy
from acptrace.model.turns import Watch
from acptrace.read.clocks import Clock
from acptrace.read.envelopes import Record
from acptrace.read.formats import TranscriptFormat, format_named
from acptrace.read.formats.base import ReadSettings
from acptrace.read.probes import TimeProbe
from acptrace.read.records import FAST_FORMATS, LaterLines, NeedsOrder, ReadStats, detect_format
from acptrace.read.source import (
    BOM,
    JOINED,
    READ_BLOCK,
    BlankLines,
    LineBlock,
    RawLine,
    iter_blocks,
    iter_lines,
)

if TYPE_CHECKING:  # (multiprocessing is imported when a file is split: most runs never are)
    from multiprocessing.connection import Connection
    from multiprocessing.context import DefaultContext
    from multiprocessing.process import BaseProcess

HEAD_BYTES = 1024 * 1024
"""Bytes read from the start of a file to settle its format before it is split."""
PIECES_PER_FILE = 256
MIN_PIECE_BYTES = 64 * 1024
MAX_PIECE_BYTES = 4 * 1024 * 1024
"""Automatic piece size: about 1/256 of the file within these bounds; small enough to share the
work out evenly to the end, big enough that taking, sending and joining one costs little."""
OUTBOX = 2
"""Decoded pieces a worker keeps ready for the join: it runs ahead, in bounded memory."""
AHEAD = 4
"""Pieces the join decodes ahead of the one it waits for, rather than wait (bounded memory)."""

HELD_BYTES = 2 * MAX_PIECE_BYTES
"""A piece up to this size is read whole when its lines are counted, and decoded from there."""
SCAN_BYTES = 64 * 1024
"""Bytes read at a time while looking for the line end that ends a piece."""

_ONCE_KINDS = frozenset({IssueKind.CRLF, IssueKind.MIXED_FORMAT})
_UNTAKEN, _MAIN = 0, 1
_FIELDS = 4
"""Per piece in shared memory: start offset, end offset, first line number, taker."""

Joined = Read
"""What the join yields: the records `read.read_records` would."""


def split_records(
    stream: BinaryIO,
    options: Options,
    execution: Execution,
    stats: ReadStats,
    runs_for: TagPolicy | None = None,
    watch: Callable[[str], int] | None = None,
) -> Iterator[Joined] | None:
    """The records of a file as `read_records` gives them, decoded by `execution.split`
    processes (`watch`: what the analysis, which follows each record before the next is
    asked for, needs of a session's updates; None: everything).

    None when the input is not split (one process asked, too small, not a plain file, not a
    format read on the hot path, or a walk that keeps payloads): the caller reads it itself.
    The workers start when the records are first asked for and stop when they are done or
    the iterator is closed.
    """
    plan = _plan(stream, options, execution, runs_for)
    if plan is None:
        return None
    stats.format = plan.format
    return settled_runs(chain.from_iterable(_joined(plan, stream.fileno(), stats)), watch)


def _read_ahead(_session_id: str) -> int:
    """What a piece's runs are read for: decoded ahead of the analysis, which cannot be asked."""
    return Watch.AHEAD


def _joined(plan: _Plan, fd: int, stats: ReadStats) -> Iterator[Sequence[Joined]]:
    """The records of each piece in turn, from the start of the workers to their end."""
    from multiprocessing import get_context  # (here: a file that is not split never needs it)

    file = _File(os.dup(fd))
    context = get_context()
    cursor = _Cursor(context, plan)
    workers = [
        _Worker.start(context, plan, cursor, taker)
        for taker in range(_MAIN + 1, _MAIN + plan.processes)
    ]
    try:
        yield from _Join(plan, file, cursor, workers, stats).pieces()
    finally:
        for worker in workers:
            worker.stop()
        file.close()


class _Plan(msgspec.Struct, frozen=True):
    """How one file is split: everything a worker needs to know (each is sent one)."""

    path: str
    identity: tuple[int, int]
    """(device, inode) of the file, so a worker reads the very file the walk was given."""
    start: int
    """Where the input starts (the stream's position when the walk began)."""
    size: int
    """The file's size when the split was planned: what is read."""
    piece_bytes: int
    processes: int
    format: str
    strict: bool
    """The format was forced (`--input-format`)."""
    settings: ReadSettings
    max_line_bytes: int


def _plan(
    stream: BinaryIO, options: Options, execution: Execution, runs_for: TagPolicy | None
) -> _Plan | None:
    """The split of this input, or None when it is not to be split."""
    if execution.split < 2 or not execution.fast or _daemonic():
        return None  # (a daemonic process may not start processes)
    found = _plain_file(stream)
    if found is None:
        return None
    path, identity, start, size = found
    if size - start < max(execution.split_min_bytes, 1):
        return None
    forced = format_named(options.input_format) if options.input_format else None
    chosen = _head_format(stream.fileno(), start, size, forced, execution.max_line_bytes)
    if chosen is None or chosen.name not in FAST_FORMATS:
        return None
    automatic = min(max((size - start) // PIECES_PER_FILE, MIN_PIECE_BYTES), MAX_PIECE_BYTES)
    return _Plan(
        path=path,
        identity=identity,
        start=start,
        size=size,
        piece_bytes=max(execution.split_piece_bytes or automatic, 1),
        processes=execution.split,
        format=chosen.name,
        strict=forced is not None,
        settings=ReadSettings(
            link=options.link,
            fast=True,
            runs_for=runs_for,
            sampled=options.schema if options.checks_schema else None,
        ),
        max_line_bytes=execution.max_line_bytes,
    )


def _plain_file(stream: BinaryIO) -> tuple[str, tuple[int, int], int, int] | None:
    """(path, identity, position, size) of a stream reading a regular file by its path.

    Anything else is read in one pass: stdin (no path to open again), a gzip stream (no
    offsets into the text), a pipe or a device.
    """
    path = getattr(stream, "name", None)
    if not isinstance(stream, io.BufferedReader) or not isinstance(path, str):
        return None
    try:
        opened = os.fstat(stream.fileno())
        named = os.stat(path)
        start = stream.tell()
    except (OSError, ValueError):
        return None
    identity = (opened.st_dev, opened.st_ino)
    if not stat.S_ISREG(opened.st_mode) or (named.st_dev, named.st_ino) != identity:
        return None
    return path, identity, start, opened.st_size


def _head_format(
    fd: int, start: int, size: int, forced: TranscriptFormat | None, max_line_bytes: int
) -> TranscriptFormat | None:
    """The format one pass would choose, from the whole lines of the file's head."""
    head = os.pread(fd, HEAD_BYTES, start)
    if start + len(head) < size:
        head = head[: head.rfind(b"\n") + 1]
    return detect_format(iter_lines(io.BytesIO(head), max_line_bytes), forced)


class _Piece(msgspec.Struct, frozen=True, gc=False):
    """A run of whole lines of the file."""

    index: int
    start: int
    end: int
    line: int
    """The number of its first line."""


class _File:
    """One process's own descriptor on the file, read with positioned reads only."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._scan = bytearray(READ_BLOCK)
        self._held: tuple[int, LineBlock, int] | None = None
        """(start, lines, length) of the piece counted last, when it was read whole and ends
        with a line end: decoding it then takes no second read, nor a second cut."""

    @classmethod
    def open(cls, plan: _Plan) -> _File | None:
        """The planned file opened again, or None when the path no longer names it."""
        try:
            fd = os.open(plan.path, os.O_RDONLY)
        except OSError:
            return None
        info = os.fstat(fd)
        if (info.st_dev, info.st_ino) != plan.identity:
            os.close(fd)
            return None
        return cls(fd)

    def close(self) -> None:
        os.close(self.fd)

    def line_end(self, at: int, size: int) -> int:
        """The offset just after the first line end at or after `at` (else the planned end)."""
        while at < size:
            got = _read_into(self.fd, memoryview(self._scan)[:SCAN_BYTES], at)
            if not got:
                break
            found = self._scan.find(b"\n", 0, got)
            if found >= 0:
                return min(at + found + 1, size)
            at += got
        return size

    def count_lines(self, start: int, end: int) -> int:
        """How many line ends the bytes from `start` to `end` hold."""
        self._held = None
        if end - start <= HELD_BYTES:
            data = os.pread(self.fd, end - start, start)
            whole = len(data) == end - start and data.endswith(b"\n")
            if whole and not (start == 0 and data.startswith(BOM)):  # (`lines` skips a mark)
                block = LineBlock.cut(0, data)  # (cut here, not counted: that would cost as much)
                self._held = (start, block, len(data))
                return block.count
            return data.count(b"\n")
        count = 0
        view = memoryview(self._scan)
        while start < end:
            got = _read_into(self.fd, view[: end - start], start)
            if not got:
                break
            count += self._scan.count(b"\n", 0, got)
            start += got
        return count

    def lines(
        self, piece: _Piece, max_line_bytes: int
    ) -> Iterator[RawLine | LineBlock | BlankLines]:
        """The piece's lines, numbered from its first line, as `iter_blocks` cuts them (in
        one block when the piece was held)."""
        held, self._held = self._held, None
        if held is not None and held[0] == piece.start and held[2] <= max_line_bytes:
            return iter((msgspec.structs.replace(held[1], first=piece.line),))
        stream = io.BufferedReader(_Range(self.fd, piece.start, piece.end), READ_BLOCK)
        return iter_blocks(stream, max_line_bytes, piece.line)


def _read_into(fd: int, view: memoryview, at: int) -> int:
    """Fill `view` from offset `at` (one read; fewer bytes at the end of the file)."""
    if hasattr(os, "preadv"):
        return os.preadv(fd, [view], at)
    data = os.pread(fd, len(view), at)
    view[: len(data)] = data
    return len(data)


class _Range(io.RawIOBase):
    """Bytes `start` to `end` of a file, as a stream (the descriptor's position is not used)."""

    def __init__(self, fd: int, start: int, end: int) -> None:
        super().__init__()
        self._fd, self._at, self._end = fd, start, end

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        with memoryview(buffer) as view:
            got = _read_into(self._fd, view[: max(self._end - self._at, 0)], self._at)
        self._at += got
        return got


class _Cursor:
    """Hands out the pieces of the file in order, each to whichever process asks first.

    It lives in shared memory: the next piece's number, offset and first line, and for every
    piece handed out its range, first line and taker. A taker counts the piece's line ends
    before it lets go of the lock, so the next piece's first line number is known at once,
    while the pieces before it are still being decoded.
    """

    def __init__(self, context: DefaultContext, plan: _Plan) -> None:
        self._size, self._piece_bytes = plan.size, plan.piece_bytes
        slots = (plan.size - plan.start) // plan.piece_bytes + 2
        self._lock = context.Lock()
        self._next = context.RawArray("q", [0, plan.start, 1])
        self._pieces = context.RawArray("q", slots * _FIELDS)

    def take(self, file: _File, taker: int) -> _Piece | None:
        """The next piece, now this taker's; None when the whole file is handed out (or, for a
        worker, when the main process has gone)."""
        if not _acquire(self._lock, worker=taker != _MAIN):
            return None
        try:
            index, start, line = self._next
            if start >= self._size:
                return None
            end = file.line_end(start + self._piece_bytes - 1, self._size)
            self._pieces[index * _FIELDS : (index + 1) * _FIELDS] = [start, end, line, taker]
            self._next[:] = [index + 1, end, line + file.count_lines(start, end)]
        finally:
            self._lock.release()
        return _Piece(index, start, end, line)

    def taker(self, index: int) -> int:
        """Who took piece `index` (`_UNTAKEN` if nobody has yet)."""
        with self._lock:
            taker: int = self._pieces[index * _FIELDS + 3]
        return taker

    def piece(self, index: int) -> _Piece:
        """A piece already handed out."""
        with self._lock:
            start, end, line, _ = self._pieces[index * _FIELDS : (index + 1) * _FIELDS]
        return _Piece(index, start, end, line)


def _parent_process() -> BaseProcess | None:
    from multiprocessing import parent_process

    return parent_process()


def _daemonic() -> bool:
    """Whether this is a daemonic process (which may not start processes)."""
    from multiprocessing import current_process

    return current_process().daemon


def _acquire(lock: Any, *, worker: bool) -> bool:
    """Take the lock; for a worker, False once the main process has gone (it may have died
    holding the lock). The main process waits as long as it takes."""
    while not lock.acquire(timeout=1.0):
        parent = _parent_process() if worker else None
        if parent is not None and not parent.is_alive():
            return False
    return True


class _Once(msgspec.Struct, frozen=True):
    """An issue reported once per input, and what it is once for (the join keeps the first)."""

    issue: Issue
    key: str


Other = Record | UpdateRun | Found | _Once
"""A piece's records that are not messages (few), kept apart from the messages (most)."""


class _Decoded(msgspec.Struct):
    """One piece, decoded: its messages, and its other records with their places among them."""

    piece: _Piece
    messages: list[Message]
    others: list[tuple[int, Other]]
    """(position in the piece's records, record)."""
    clock: Clock
    """Where the piece's clocks ended."""
    last_line: int
    blank: int
    in_order: bool = False
    """The piece holds records only an in-order reader decodes right: the join reads it again."""


class _PieceReader:
    """Decodes pieces of the file, in the main process or a worker, one after another."""

    def __init__(self, plan: _Plan, file: _File, *, stateless_only: bool = True) -> None:
        self._plan, self._file = plan, file
        chosen = format_named(plan.format)
        self._read = LaterLines(chosen, plan.settings, plan.strict, stateless_only)
        self._hot = HotPath(
            chosen.name, plan.settings, self._read.line_records, self._read.fast, _read_ahead
        )
        self._formats: set[str] = set()
        """The other formats whose `mixed_format` issue has passed here (to name the next)."""

    def decode(self, piece: _Piece) -> _Decoded:
        """The piece's records; messages apart, the rest with their places among them."""
        stats = self._read.stats
        blank = stats.blank
        clock = Clock(probing=True)
        messages: list[Message] = []
        others: list[tuple[int, Other]] = []
        lines = self._file.lines(piece, self._plan.max_line_bytes)
        self._hot.sample_afresh()  # (the first of each tag in the piece: it may be the first)
        try:
            for record in self._hot.read(self._read.items(lines), clock):
                if isinstance(record, Message):
                    messages.append(record)
                else:  # (a `Found` keeps the line the schema check reads: `sampled`)
                    others.append((len(messages) + len(others), self._other(record)))
        except NeedsOrder:
            return _Decoded(piece, [], [], clock, 0, 0, in_order=True)
        return _Decoded(piece, messages, others, clock, stats.lines, stats.blank - blank)

    def _other(self, record: Record | UpdateRun | Found) -> Other:
        """The record, an issue reported once marked with what it is once for."""
        if not isinstance(record, Issue) or record.kind not in _ONCE_KINDS:
            return record
        if record.kind is IssueKind.CRLF:
            return _Once(record, "")
        (named,) = self._read.stats.mixed_formats - self._formats
        self._formats.add(named)
        return _Once(record, named)


def _frames(decoded: _Decoded) -> tuple[bytes, bytes]:
    """A decoded piece for the pipe: most of its records as msgpack (`decode.packed`), the few
    others pickled; a piece msgpack cannot hold goes all as pickle (empty body)."""
    packed_ = packed(decoded.messages, decoded.others)
    if packed_ is None:
        return pickle.dumps(decoded, pickle.HIGHEST_PROTOCOL), b""
    body, rest = packed_
    bare = msgspec.structs.replace(decoded, messages=[], others=rest)
    return pickle.dumps(bare, pickle.HIGHEST_PROTOCOL), body


def _unframe(head: bytes, body: bytes) -> _Decoded:
    """The decoded piece `_frames` sent."""
    decoded = pickle.loads(head)
    assert isinstance(decoded, _Decoded)
    if body:
        decoded.messages, decoded.others = unpacked(body, decoded.others)
    return decoded


def _work(plan: _Plan, cursor: _Cursor, ends: tuple[Connection, Connection], taker: int) -> None:
    """A worker's life: take pieces until none is left, decode each, send it to the join.

    A sender thread writes to the pipe, so the worker goes on decoding while the join is busy
    (up to `OUTBOX` pieces ahead). It ignores Ctrl-C (the main process stops it) and gives up
    quietly on any error: the join decodes the pieces it did not send and reports what is
    wrong with them, as one pass would. Should the main process die, the worker stops too: it
    closes its copy of the pipe's reading end at once, so writing to it then fails.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    inbox, outlet = ends
    inbox.close()
    file = _File.open(plan)
    if file is None:
        return
    outbox: _Outbox = queue.Queue(OUTBOX)
    sender = threading.Thread(target=_send, args=(outbox, outlet), daemon=True)
    sender.start()
    try:
        reader = _PieceReader(plan, file)
        while (piece := cursor.take(file, taker)) is not None:
            if not _post(outbox, _frames(reader.decode(piece)), sender):
                return
    except Exception:
        pass  # the join decodes again whatever this worker did not send
    finally:
        if _post(outbox, None, sender):
            sender.join()


_Outbox = queue.Queue[tuple[bytes, bytes] | None]


def _post(outbox: _Outbox, frames: tuple[bytes, bytes] | None, sender: threading.Thread) -> bool:
    """Hand frames to the sender; False once it has gone (the join has gone: stop too, rather
    than wait for room in the outbox for ever, were the main process killed)."""
    while sender.is_alive():
        try:
            outbox.put(frames, timeout=0.5)
        except queue.Full:
            continue
        return True
    return False


def _send(outbox: _Outbox, outlet: Connection) -> None:
    """Write decoded pieces to the pipe until told to stop (or the join has gone)."""
    try:
        while (frames := outbox.get()) is not None:
            for frame in frames:
                outlet.send_bytes(frame)
    except OSError:
        pass
    finally:
        outlet.close()


class _Worker(msgspec.Struct):
    """The main process's end of one worker."""

    process: BaseProcess
    inbox: Connection
    lost: bool = False
    """The worker has gone: the pieces it took and did not send are decoded by the join."""

    @classmethod
    def start(cls, context: DefaultContext, plan: _Plan, cursor: _Cursor, taker: int) -> _Worker:
        """Start a worker. Its pipe is made just before it, and the main process's writing end
        closed just after: no other worker inherits it, so its end shows as the pipe's end."""
        inbox, outlet = context.Pipe(duplex=False)
        process = context.Process(
            target=_work,
            args=(plan, cursor, (inbox, outlet), taker),
            name="acptrace-split",
            daemon=True,
        )
        process.start()
        outlet.close()
        return cls(process, inbox)

    def ready(self) -> bool:
        """Whether its next piece can be had without waiting."""
        return self.lost or self.inbox.poll()

    def receive(self) -> _Decoded | None:
        """Its next decoded piece; None once it has gone."""
        if self.lost:
            return None
        try:
            return _unframe(self.inbox.recv_bytes(), self.inbox.recv_bytes())
        except (EOFError, OSError):
            self.lost = True
            return None

    def stop(self) -> None:
        """Stop it, whether it has finished or is still running (the join is done)."""
        self.inbox.close()
        if self.process.is_alive():
            self.process.terminate()
        self.process.join()


class _Join:
    """The main process's side: it takes pieces too, and joins them all in file order."""

    def __init__(
        self,
        plan: _Plan,
        file: _File,
        cursor: _Cursor,
        workers: list[_Worker],
        stats: ReadStats,
    ) -> None:
        self._plan, self._file, self._cursor, self._workers = plan, file, cursor, workers
        self._stats = stats
        self._reader = _PieceReader(plan, file)
        self._in_order: _PieceReader | None = None
        self._clock = Clock()
        """Where the clocks of the pieces joined so far ended."""
        self._reported: set[tuple[str, str]] = set()
        """(kind, what for) of the issues reported once, so far."""

    def pieces(self) -> Iterator[Sequence[Joined]]:
        """The records of each piece in turn, while the workers decode the pieces after it
        (how far they reach told to `read.source.JOINED`, for a progress display)."""
        ahead: dict[int, _Decoded] = {}
        index = 0
        joined = JOINED.get()
        while (decoded := ahead.pop(index, None) or self._piece(index, ahead)) is not None:
            yield self._settle(decoded)
            if joined is not None:
                joined(decoded.piece.end)
            index += 1

    def _piece(self, index: int, ahead: dict[int, _Decoded]) -> _Decoded | None:
        """Piece `index` decoded; None past the last piece.

        From the worker that took it, or decoded here. While the worker is still busy with it,
        this process takes the next free piece and decodes it ahead rather than wait (up to
        `AHEAD` of them): the work shares itself out by who is free, whatever the cost of
        correlating here.
        """
        while True:
            taker = self._cursor.taker(index)
            if taker == _UNTAKEN:
                piece = self._cursor.take(self._file, _MAIN)
                if piece is None and self._cursor.taker(index) == _UNTAKEN:
                    return None  # all handed out, and none of them is `index`
                if piece is not None:
                    decoded = self._reader.decode(piece)
                    if piece.index == index:
                        return decoded
                    ahead[piece.index] = decoded
                continue  # a worker took `index` meanwhile
            assert taker != _MAIN, "this process's pieces are decoded when taken"
            worker = self._workers[taker - _MAIN - 1]
            if len(ahead) < AHEAD and not worker.ready():
                piece = self._cursor.take(self._file, _MAIN)
                if piece is not None:
                    ahead[piece.index] = self._reader.decode(piece)
                    continue
            received = worker.receive()
            if received is None:
                return self._ordered().decode(self._cursor.piece(index))
            assert received.piece.index == index, "a worker's pieces come in the order taken"
            return received

    def _ordered(self) -> _PieceReader:
        """The reader of the pieces decoded again here, in file order (it decodes anything)."""
        if self._in_order is None:
            self._in_order = _PieceReader(self._plan, self._file, stateless_only=False)
        return self._in_order

    def _settle(self, decoded: _Decoded) -> Sequence[Joined]:
        """The piece's records as one pass reads them; the state across pieces carried on."""
        if decoded.in_order:
            decoded = self._ordered().decode(decoded.piece)
        records = self._records(decoded)
        self._clock.advance(decoded.clock)
        self._stats.lines = decoded.last_line
        self._stats.blank += decoded.blank
        return records

    def _records(self, decoded: _Decoded) -> Sequence[Joined]:
        """Messages and other records back in one sequence, the open questions settled."""
        messages, others = decoded.messages, decoded.others
        if not others:
            return messages
        records: list[Joined] = []
        taken = 0
        for count, (place, other) in enumerate(others):
            before = place - count
            records.extend(messages[taken:before])
            taken = before
            kept = self._kept(other)
            if kept is not None:
                records.append(kept)
        records.extend(messages[taken:])
        return records

    def _kept(self, other: Other) -> Record | UpdateRun | Found | None:
        """The record as one pass has it: a probe settled, a repeated once-issue dropped."""
        if isinstance(other, TimeProbe):
            return self._clock.settle(other)
        if not isinstance(other, _Once):
            return other
        key = (other.issue.kind, other.key)
        if key in self._reported:
            return None
        self._reported.add(key)
        if other.issue.kind is IssueKind.MIXED_FORMAT:
            self._stats.mixed_formats.add(other.key)
        return other.issue
