"""The hot path: one line of the common shapes straight to a `Message`, decoding only what counts.

Most lines of a big transcript are plain `session/update` notifications whose payload (chunks
of text, tool output) the analysis never reads. The line is decoded into the wire shapes of
`acptrace.decode.shapes`, which skip the rest without building Python objects for it, and
`acptrace.decode.message` makes the `Message`, as on the general path. A line that is not plain
(a batch, a recorder event, anything invalid or unusual) returns None and takes the general
path (`stream` + `classify`), which reports what is wrong with it: a test checks that both
paths give the same analysis on every corpus. For an analysis, runs of plain updates for one
session come out as one `UpdateRun` each (`acptrace.decode.runs`). For a view that shows
payloads, each message comes out `Found` with its line (`KeptPayload`): the JSON object is
parsed only when the view shows it, as the general path would have parsed it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import msgspec

from acptrace.decode.classify import Found
from acptrace.decode.directions import TRAFFIC, infer_direction
from acptrace.decode.message import message_of, plain_update_of, problems
from acptrace.decode.runs import Run, notes, plain_update
from acptrace.decode.shapes import (
    NOT_DECODED,
    UNSET,
    CanonicalLine,
    WireMessage,
    decode_line,
    decode_message,
    decode_update,
)
from acptrace.decode.skipped import all_utf8, readable
from acptrace.model.domain import (
    INT64,
    NOTIFICATION,
    REQUEST,
    UNKNOWN_DIRECTION,
    Direction,
    Issue,
    Message,
    UpdateRun,
)
from acptrace.model.options import SchemaDepth
from acptrace.model.tags import ANNOUNCE_TAG, TagPolicy
from acptrace.model.turns import Watch
from acptrace.read.clocks import Clock
from acptrace.read.jsontext import loads
from acptrace.read.source import LineBlock, RawLine
from acptrace.read.timestamps import (
    utc_microseconds_ns,
    wall_ns,
)

CANONICAL = "acptrace"
"""The name of the canonical format (a record a line, its message in `msg`)."""


class FastDecoder:
    """Decodes plain lines of the canonical or bare JSON-RPC format; None for anything else.

    Given a tag policy (`runs_for`), a block of lines comes out with its runs of plain updates
    for one session gathered into `UpdateRun`s (an analysis that shows no single message).
    With `payloads`, each message comes out `Found`, with its line as its payload.
    """

    def __init__(
        self,
        format_name: str,
        runs_for: TagPolicy | None = None,
        payloads: bool = False,
        watch: Callable[[str], int] | None = None,
        sampled: SchemaDepth | None = None,
    ) -> None:
        """`watch`: what the analysis needs of a session's updates as a run of them begins
        (it has followed every record before; None: all of it, `Watch.EVERYTHING`, as for a
        reader in another process). With `payloads` runs are always read for their activity:
        a view makes a message of each of their lines. `sampled` (the schema check's depth):
        each message comes out `Found` with its line too, and each run with its sampled lines
        (`UpdateRun.sampled`: the first of each tag on the connection, or every one)."""
        self.canonical = format_name == CANONICAL
        self.payloads = payloads
        self.found = payloads or sampled is not None
        """Each message comes out `Found` with its line."""
        self.sampled = sampled is not None
        self._watch = watch
        self._policy = runs_for
        self._breaks = frozenset({ANNOUNCE_TAG} | ({runs_for.marker_tag} if runs_for else set()))
        """Tags that never join a run: they mean more than a count (markers, announcements)."""
        self._live = runs_for.live_tags if runs_for is not None else frozenset()
        self._depth = sampled
        self._notes = notes(self._live, sampled)
        """What a run notes of its updates' tags (`runs.notes`)."""

    def sample_afresh(self) -> None:
        """Sample each tag's first update again (`runs.notes`): a recording joined after
        another is a connection of its own, whose schema check wants its own firsts; and a
        piece of a split file is read by a process that has not seen the pieces before it
        (the main process keeps the first of each it is handed on the connection)."""
        self._notes = notes(self._live, self._depth)

    def message(self, data: bytes, line: int, known: bool = False) -> Message | Found | None:
        """The message on this line (`Found` with its line, when payloads are kept), or None
        when the line needs the general path. `known`: the line is known to be `readable`
        (its block was checked)."""
        message = self.read(data, line, known)[0]
        if message is None or not self.found:
            return message
        return Found(message, KeptPayload(data, self.canonical))

    def read(
        self, data: bytes, line: int, known: bool = False
    ) -> tuple[Message | None, str | None]:
        """`message`, and the text of its `ts` when that is a usual time (`usual_text`): a run
        that starts at it goes on from that text, without writing the time out again."""
        if not known and not readable(data):  # (msgspec checks neither in what it skips)
            return None, None
        try:
            if self.canonical:
                return plain_read(data, line) or canonical_read(decode_line(data), line)
            wire = decode_message(data)
        except NOT_DECODED:
            return None, None
        return plain_message(wire, line, UNKNOWN_DIRECTION, None, None), None

    def block(
        self, block: LineBlock, clock: Clock
    ) -> Iterator[Message | Found | UpdateRun | Issue | RawLine]:
        """The block's records in order, each checked against `clock`: messages, runs, issues,
        and each line the hot path does not take as a `RawLine` for the general path (which
        must be read, and its times checked, before the next item is asked for)."""
        quick = self.canonical and self._policy is not None
        lines, index, end = block.lines, 0, len(block.lines)
        known = quick and not block.digits and all_utf8(lines)
        run: Run | None = None
        start = 0  # (the index of the run's first line)
        while index < end:
            if run is not None and quick:
                index = run.grow(lines, index, block.first, known)
                if index == end:
                    break
            data, number = lines[index], block.first + index
            index += 1
            if run is not None:
                run.sync(clock)
            message, usual = self.read(data, number, known)
            if message is None:
                if run is not None:
                    yield self._done(run, lines, start)
                    run = None
                yield RawLine(number, data[:-1], ended=True)
                continue
            issue = clock.check(message)
            if issue is None and run is not None and run.takes(message, clock, usual, data):
                continue
            if run is not None:
                yield self._done(run, lines, start)
                run = None
            if issue is None and self._policy is not None and plain_update(message, self._breaks):
                watch = self._watched(message)
                run = Run(message, self._breaks, self._notes, clock, usual, self.payloads, watch)
                start = index - 1
                continue
            yield Found(message, KeptPayload(data, self.canonical)) if self.found else message
            if issue is not None:
                yield issue
        if run is not None:
            run.sync(clock)
            yield self._done(run, lines, start)

    def _watched(self, first: Message) -> int:
        """What the analysis needs of a run that starts with this update (`watch`)."""
        if self._watch is None or first.session_id is None:
            return Watch.EVERYTHING
        watch = self._watch(first.session_id)
        return watch | Watch.ACTIVITY if self.payloads else watch

    def _done(self, run: Run, lines: list[bytes], start: int) -> UpdateRun:
        """The run, with its lines when payloads are kept (`run_found` reads them), and with
        the lines the schema check reads when sampled."""
        done = run.done()
        if self.sampled and (run.first_sampled or run.sampled):  # (most: no tag new to it)
            sampled: tuple[tuple[int, str | None, bytes], ...]
            if run.notes.every:  # (every line of the run, as they come in the block; their
                numbers = range(done.first.line, done.first.line + done.count)  # tags unread)
                in_block = lines[start : start + done.count]
                sampled = tuple((n, None, data) for n, data in zip(numbers, in_block, strict=True))
            else:
                tag = done.first.update_tag
                first = ((done.first.line, tag, lines[start]),) if run.first_sampled else ()
                sampled = (*first, *run.sampled)
            done = msgspec.structs.replace(done, sampled=sampled, canonical=self.canonical)
        if not self.payloads:
            return done
        kept = tuple(run.kept) if run.kept is not None else ()
        lines_of_run = tuple(lines[start : start + done.count])
        return msgspec.structs.replace(
            done, lines=lines_of_run, plain=kept, canonical=self.canonical
        )


_UPDATE_METHOD = b'"session/update"'
"""The method of a plain update, as its line writes it (without escapes)."""


def plain_read(data: bytes, number: int) -> tuple[Message, str] | None:
    """`canonical_read` of a plain update with a usual time, read in its narrowed shape (as a
    run reads its lines) rather than the general ones and `message_of`: the line that starts a
    run is one, and most lines the general path would read in a big transcript start a run.
    None for any other line (one that does not name the method is not tried: msgspec's error
    for a line of another shape costs more than the decode)."""
    if _UPDATE_METHOD not in data:
        return None
    try:
        line = decode_update(data)
    except NOT_DECODED:
        return None
    ts_ns = utc_microseconds_ns(line.ts)
    if ts_ns is None:
        return None
    message = plain_update_of(line, number, TRAFFIC[line.dir], ts_ns)
    return None if message is None else (message, line.ts)


def canonical_read(line: CanonicalLine, number: int) -> tuple[Message | None, str | None]:
    """The message of a plain canonical line (None for anything the general path must read),
    and its `ts` when that is a usual time's text (`read.timestamps.usual_text`)."""
    direction = TRAFFIC.get(line.dir) if type(line.dir) is str else None
    if direction is None or type(line.msg) is not WireMessage:
        return None, None
    ts = line.ts
    if type(ts) is not str or line.timestamp is not UNSET or line.time is not UNSET:
        return None, None  # a missing or unusual time field: the general path reports it
    ts_ns = utc_microseconds_ns(ts)
    usual = ts if ts_ns is not None else None
    if ts_ns is None:
        ts_ns = wall_ns(ts)
        if ts_ns is None:
            return None, None
    mono = line.mono_ns
    mono_ns = mono if type(mono) is int and mono in INT64 else None  # (as `integer_ns`)
    return plain_message(line.msg, number, direction, ts_ns, mono_ns), usual


def plain_message(
    wire: WireMessage, line: int, direction: Direction, ts_ns: int | None, mono_ns: int | None
) -> Message | None:
    """The message of a plain, valid request, notification or response; None for anything the
    general path reports on (invalid JSON-RPC, an unknown direction, a response with no id to
    pair)."""
    if problems(wire):  # (an id that is not a string or an int64 integer among them)
        return None
    method = wire.method
    if method is UNSET:
        if wire.id is UNSET or wire.id is None:
            return None
    else:
        if direction is UNKNOWN_DIRECTION:
            kind = NOTIFICATION if wire.id is UNSET else REQUEST
            direction = infer_direction(method, kind)
            if direction is UNKNOWN_DIRECTION:
                return None  # the general path reports the unknown direction
    return message_of(wire, line, direction, ts_ns, mono_ns)


class KeptPayload(msgspec.Struct, frozen=True, gc=False):
    """A message's JSON object, left in the line it came from until a view shows it: most of a
    line's cost on the general path is making Python objects of the payload."""

    data: bytes
    """The line (a canonical record, or the bare message)."""
    canonical: bool
    """The line is a canonical record: the object is its `msg`."""

    def value(self) -> Any:
        """The object, as the general path parses it."""
        return kept_value(self.data, self.canonical)


def kept_value(data: bytes, canonical: bool) -> Any:
    """The JSON object of a message kept in its line (`KeptPayload.value`)."""
    record = loads(data)
    return record["msg"] if canonical else record
