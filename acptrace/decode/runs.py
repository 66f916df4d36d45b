"""Runs of plain updates: consecutive `session/update`s for one session, checked and counted
on the hot path without a `Message` each (`FastDecoder.block` drives them).

A run ends at anything that means more than a count: another session or direction, a marker
or an announcement, a timestamp that is not in the usual form or goes back, a line that is
not a plain update. What it was is an `UpdateRun`; the analysis follows it as the messages one
by one (a test compares both).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from itertools import filterfalse
from typing import Any

from acptrace.decode.shapes import DECODE_PLAIN, NOT_DECODED, PlainDecode, PlainLine
from acptrace.model.domain import Message, MessageKind, Stamp, UpdateRun
from acptrace.model.tags import SNAPSHOT_TAG
from acptrace.read.clocks import Clock
from acptrace.read.timestamps import (
    checked_usual_ns,
    second_start_ns,
    usual_text,
    utc_microseconds_ns,
)


def is_utf8(data: bytes) -> bool:
    """The bytes are UTF-8 (msgspec does not check what it skips)."""
    if data.isascii():
        return True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def all_utf8(lines: list[bytes]) -> bool:
    """Every line is UTF-8 (False when any one is not): each non-ASCII line decoded, in C
    (`deque` drains the map). Joining them and decoding once took half as long again: the
    join copies them, and one long text with an emoji in it is four bytes a character."""
    others: Iterable[bytes] = filterfalse(bytes.isascii, lines)
    try:
        deque(map(bytes.decode, others), maxlen=0)
    except UnicodeDecodeError:
        return False
    return True


def plain_update(message: Message, breaks: frozenset[str]) -> bool:
    """The message is a plain update: one that may start or join a run."""
    return (
        message.method == "session/update"
        and message.kind is MessageKind.NOTIFICATION
        and message.session_id is not None
        and message.update_tag is not None
        and message.update_tag not in breaks
    )


_SECONDS = frozenset(f"{second:02d}" for second in range(60))
"""The seconds of a minute (a new second in the minute of a time is a time)."""
_NEVER = "\U0010ffff"
"""Later than any timestamp as text: no update is taken on the quick path after it."""


class Run:
    """An `UpdateRun` while it grows, and the clock's times as of its last update."""

    __slots__ = (
        "breaks",
        "count",
        "direction",
        "first",
        "kept",
        "last",
        "last_mono",
        "last_ts",
        "live",
        "live_tags",
        "pauses",
        "session",
        "snapshot",
        "stale",
        "widest",
    )

    def __init__(
        self,
        first: Message,
        breaks: frozenset[str],
        live_tags: frozenset[str],
        clock: Clock,
        usual: str | None = None,
        keep: bool = False,
    ) -> None:
        self.first = first
        self.kept: list[PlainLine[Any] | None] | None = [] if keep else None
        """With `keep` (a view shows payloads): each line's `PlainLine` as the run loop decoded
        it, in line order (None for the first and any line taken by `takes`)."""
        self.breaks = breaks
        """Tags that end a run."""
        self.live_tags = live_tags
        """Never-history tags (`state_update` among them, always)."""
        self.session, self.direction = first.session_id, first.direction
        self.count = 0
        self.snapshot = False
        self.live: list[tuple[int, str]] = []
        self.stale = False
        """The clock is behind the run's last update (the quick path moves the run only)."""
        self.last: Stamp | None = None
        """The run's last update (its own times, not the clock's)."""
        self.widest = -1
        """The largest gap between two of its updates so far, in nanoseconds (-1: none)."""
        self.pauses: list[tuple[int, int]] = []
        """(line, gap_ns) of each update after a gap wider than any before (`UpdateRun`)."""
        self.last_ts, self.last_mono = _NEVER, clock.last_mono_ns
        """The run's last time as a usual time's text (`usual_text`), or `_NEVER` (none)."""
        self.takes(first, clock, usual)

    def grow(self, lines: list[bytes], start: int, first: int, utf8: bool = False) -> int:
        """Take the plain updates of the run among `lines` from `start` (line `first` is
        `lines[0]`), as long as they come (`utf8`: all of `lines` are UTF-8); the index of the
        first line not taken. The clock is then stale.

        The loop most lines of a big transcript go through (`grow_run`): anything else (another
        session, a marker, an unusual time, a clock going back) ends it, for the caller to read.
        """
        last, kept = self.last, self.kept
        own_mono = last.mono_ns if last is not None else None
        index, last_ts, last_mono, snapshot, own_mono, self.widest = grow_run(
            lines, start, first, self.session, self.direction,
            self.breaks, self.live_tags, SNAPSHOT_TAG, self.last_ts, self.last_mono,
            second_start_ns, self.live, own_mono, self.widest, self.pauses, utf8,
            kept,
        )  # fmt: skip
        if kept is not None:  # (the line that ended the run was decoded too: not the run's)
            del kept[self.count + index - start :]
        if index > start:
            self.count += index - start
            self.last_ts, self.last_mono, self.stale = last_ts, last_mono, True
            self.last = Stamp(first + index - 1, utc_microseconds_ns(last_ts), own_mono)
        self.snapshot = self.snapshot or snapshot
        return index

    def takes(self, message: Message, clock: Clock, usual: str | None = None) -> bool:
        """Take the message when it is one more plain update of this run's session, the same
        way (already checked against `clock`, which is up to date). `usual`: the text of its
        `ts` when that is a usual time (`usual_text` of its time, which is then not written)."""
        tag = message.update_tag
        if (
            not plain_update(message, self.breaks)
            or message.session_id != self.session
            or message.direction is not self.direction
            or tag is None  # (for the type checker: `plain_update` saw to it)
        ):
            return False
        self.count += 1
        if self.kept is not None:
            self.kept.append(None)
        stamp = Stamp.of(message)
        if self.last is not None:
            gap = self.last.ns_until(stamp)
            if gap is not None and gap > self.widest:
                self.widest = gap
                self.pauses.append((message.line, gap))
        self.last = stamp
        if tag in self.live_tags:
            self.live.append((message.line, tag))
            self.snapshot = self.snapshot or tag == SNAPSHOT_TAG
        if usual is not None and message.ts_ns is not None:  # (it is the clock's last time)
            self.last_ts = usual
        else:
            ts_ns = clock.last_ts_ns
            ts_text = usual_text(ts_ns) if ts_ns is not None else None
            self.last_ts = ts_text or _NEVER
        self.last_mono = clock.last_mono_ns
        return True

    def sync(self, clock: Clock) -> None:
        """Bring the clock to the run's last update."""
        if self.stale:
            clock.last_ts_ns = utc_microseconds_ns(self.last_ts)
            clock.last_mono_ns = self.last_mono
            self.stale = False

    def done(self) -> UpdateRun:
        """The run (the clock synced)."""
        assert not self.stale
        last = self.last if self.count > 1 else None
        return UpdateRun(
            self.first, self.count, self.snapshot, tuple(self.live), tuple(self.pauses), last
        )


def grow_run(
    lines: list[bytes],
    start: int,
    first: int,
    session: str | None,
    direction: str,
    breaks: frozenset[str],
    live_tags: frozenset[str],
    snapshot_tag: str,
    last_ts: str,
    last_mono: int | None,
    second_start: Callable[[str], int | None],
    live: list[tuple[int, str]],
    own_mono: int | None,
    widest: int,
    pauses: list[tuple[int, int]],
    utf8: bool = False,
    keep: list[PlainLine[Any] | None] | None = None,
) -> tuple[int, str, int | None, bool, int | None, int]:
    """The run loop, in locals and without a `Message` per line: the plain updates of one
    session and direction from `lines[start]` on (`lines[0]` is line `first`), as long as they
    come. Returns the index of the first line not taken (for the caller to read), the last time
    (`last_ts`, a usual time's text or `_NEVER`) and monotonic time of the lines taken, whether
    one was a `snapshot_tag`, the last line's own monotonic time (`own_mono`: the line before
    `start`'s on the way in) and the widest gap between two lines (`widest`, nanoseconds:
    monotonic when both lines have it, else wall); never-history tags taken are appended to
    `live`, and (line, gap) to `pauses` where a gap is wider than `widest` was. `utf8`: every
    line is known to be UTF-8 (`all_utf8`), else each is checked. `keep`: each line decoded is
    appended to it (a view that shows payloads reads them again; the caller drops what was not
    taken), at no cost to a loop that keeps none.

    A line is taken when it has the shape `acptrace.decode.fastpath` would make a plain update
    of, with nothing the general path would report: msgspec checks its shape (`PlainLine`: a
    line that does not fit it is left to the caller), this loop the rest. A usual time's text
    is checked against the one before as text, which orders such times as they are.
    """
    # Every usual time in the second of `last_ts` sorts from that second's start to
    # `second_end` (a `.` comes next): a time that sorts from `last_ts` to it is in that
    # second, and only its fraction is left to check.
    second_end = last_ts[:19] + "/"
    snapshot = False
    decode = DECODE_PLAIN.get(direction)  # (msgspec checks the direction, and `ts`'s length)
    if decode is None:
        return start, last_ts, last_mono, snapshot, own_mono, widest
    if keep is not None:
        decode = _keeping(decode, keep.append)
    index = start
    for index in range(start, len(lines)):
        data = lines[index]
        if not utf8 and not is_utf8(data):
            break
        try:
            line = decode(data)
        except NOT_DECODED:
            break
        ts = line.ts
        params = line.msg.params
        tag = params.update.sessionUpdate
        if params.sessionId != session or tag in breaks:
            break
        if not last_ts <= ts < second_end:  # not in the second of the last one
            if ts < last_ts or ts[19] != ".":
                break
            in_minute = ts[:17] == last_ts[:17] and ts[17:19] in _SECONDS
            if not in_minute and second_start(ts[:19]) is None:  # is it a time?
                break
            second_end = ts[:19] + "/"
        # a known second: six ASCII digits and a Z must follow (27 characters in all)
        if ts[26] != "Z" or not ts[20:26].isdigit() or not ts.isascii():
            break
        mono = line.mono_ns
        if mono is not None and own_mono is not None:  # (the usual case)
            if last_mono is None or mono < last_mono:
                break
            gap = mono - own_mono
        else:
            if mono is not None and (last_mono is None or mono < last_mono):
                break
            gap = checked_usual_ns(ts) - checked_usual_ns(last_ts)
        if mono is not None:
            last_mono = mono
        if gap > widest:
            widest = gap
            pauses.append((first + index, gap))
        own_mono = mono
        last_ts = ts
        if tag in live_tags:
            live.append((first + index, tag))
            snapshot = snapshot or tag == snapshot_tag
    else:
        return len(lines), last_ts, last_mono, snapshot, own_mono, widest
    return index, last_ts, last_mono, snapshot, own_mono, widest


def _keeping(decode: PlainDecode, keep: Callable[[PlainLine[Any] | None], None]) -> PlainDecode:
    """`decode`, keeping each line it decodes."""

    def decode_kept(data: bytes) -> PlainLine[Any]:
        line = decode(data)
        keep(line)
        return line

    return decode_kept
