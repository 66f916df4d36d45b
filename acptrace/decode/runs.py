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

from acptrace.decode.shapes import DECODE_PLAIN, NOT_DECODED, UNSET, PlainDecode, PlainLine
from acptrace.model.domain import Message, MessageKind, Stamp, Tally, UpdateRun, add_tally
from acptrace.model.tags import EVIDENCE_TAGS, MESSAGE_TAGS, SNAPSHOT_TAG, USER_MESSAGE_TAGS
from acptrace.read.clocks import Clock
from acptrace.read.timestamps import second_start_ns, usual_text, utc_microseconds_ns


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
_NS = 1_000_000_000

LIVE, USER, MESSAGE, EVIDENCE = 1, 2, 4, 8
"""What a tag of a run's update says (`notes`, a tag's bits): never history (its line is kept
in `UpdateRun.live`), the user's message (counted in `users`), a message update, which carries
a `messageId` on ACP v2 (counted in `unidentified` when it has none), a tag of one protocol
version only (its first line kept in `UpdateRun.evidence`)."""


class Notes:
    """What a run notes of its updates' tags, made once per analysis (`notes`)."""

    __slots__ = ("bits", "unusual")

    def __init__(self, bits: dict[str, int]) -> None:
        self.bits = bits
        """Each noted tag's bits (`LIVE`, `USER`, `MESSAGE`, `EVIDENCE`); other tags are only
        counted."""
        self.unusual = frozenset(tag for tag, note in bits.items() if note != MESSAGE)
        """The noted tags that are more than a message update (whose `messageId` alone says
        whether there is anything to note)."""


def notes(live_tags: frozenset[str]) -> Notes:
    """What a run notes, with these never-history tags."""
    bits = dict.fromkeys(live_tags, LIVE)
    for tag in MESSAGE_TAGS:
        bits[tag] = bits.get(tag, 0) | MESSAGE | (USER if tag in USER_MESSAGE_TAGS else 0)
    for tag in EVIDENCE_TAGS:
        bits[tag] = bits.get(tag, 0) | EVIDENCE
    return Notes(bits)


class Run:
    """An `UpdateRun` while it grows, and the clock's times as of its last update."""

    __slots__ = (
        "breaks",
        "count",
        "direction",
        "evidence",
        "first",
        "kept",
        "last",
        "last_mono",
        "last_ts",
        "live",
        "noted",
        "own_mono",
        "pauses",
        "session",
        "snapshot",
        "stale",
        "unidentified",
        "users",
        "widest",
    )

    def __init__(
        self,
        first: Message,
        breaks: frozenset[str],
        noted: Notes,
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
        self.noted = noted
        """What each tag says (`notes`): never-history tags (`state_update` among them,
        always), the user's messages, message updates."""
        self.session, self.direction = first.session_id, first.direction
        self.count = 0
        self.snapshot = False
        self.live: list[tuple[int, str]] = []
        self.evidence: dict[str, int] = {}
        """The first line of each tag of one protocol version only (`EVIDENCE`)."""
        self.users: Tally | None = None
        """Its user's messages so far."""
        self.unidentified: Tally | None = None
        """Its message updates without a string `messageId` so far."""
        self.stale = False
        """The clock is behind the run's last update (the quick path moves the run only)."""
        self.last: Stamp | None = None
        """The run's last update (its own times, not the clock's)."""
        self.own_mono: int | None = None
        """The run's last update's own monotonic time (None: it has none)."""
        self.widest = -1
        """The largest gap between two of its updates so far, in nanoseconds (-1: none)."""
        self.pauses: list[tuple[int, int]] = []
        """(line, gap_ns) of each update after a gap wider than any before (`UpdateRun`)."""
        self.last_ts, self.last_mono = _NEVER, clock.last_mono_ns
        """The run's last time as a usual time's text (`usual_text`), or `_NEVER` (none)."""
        self.takes(first, clock, usual)

    def grow(self, lines: list[bytes], start: int, first: int, utf8: bool = False) -> int:
        """Take the plain updates of the run among `lines` from `start` (line `first` is
        `lines[0]`), as long as they come (`utf8`: all of `lines` are UTF-8, else each is
        checked); the index of the first line not taken. The clock is then stale.

        The loop most lines of a big transcript go through, in locals and without a `Message`
        per line. A line is taken when it has the shape `acptrace.decode.fastpath` would make a
        plain update of, with nothing the general path would report: msgspec checks its shape
        (`PlainLine`: a line that does not fit it is left to the caller), this loop the rest
        (another session, a marker, an unusual time, a clock going back end it). A usual time's
        text is checked against the one before as text, which orders such times as they are;
        without `mono_ns`, the gap between two lines is worked out from the text too.
        """
        decode = DECODE_PLAIN.get(self.direction)  # (msgspec checks it, and `ts`'s length)
        if decode is None:
            return start
        kept = self.kept
        if kept is not None:
            decode = _keeping(decode, kept.append)
        session, breaks, live, pauses, evidence = (
            self.session, self.breaks, self.live, self.pauses, self.evidence
        )  # fmt: skip
        noted, unusual = self.noted.bits, self.noted.unusual
        last_ts, last_mono, own_mono, widest = (
            self.last_ts, self.last_mono, self.own_mono, self.widest
        )  # fmt: skip
        # Every usual time in the second of `last_ts` sorts from that second's start to
        # `second_end` (a `.` comes next): a time that sorts from `last_ts` to it is in that
        # second, and only its fraction is left to check. `second_ns`: that second's start.
        second_end = last_ts[:19] + "/"
        second_ns: int | None = None  # (worked out where a gap is taken from `ts`)
        snapshot = False
        users = unidentified = first_user = first_unidentified = 0
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
            line_second_ns = second_ns
            if not last_ts <= ts < second_end:  # not in the second of the last one
                if ts < last_ts or ts[19] != ".":
                    break
                if ts[:17] == last_ts[:17] and ts[17:19] in _SECONDS:  # a later second
                    if second_ns is not None:
                        line_second_ns = second_ns + (int(ts[17:19]) - int(last_ts[17:19])) * _NS
                else:
                    line_second_ns = second_start_ns(ts[:19])  # (is it a time?)
                    if line_second_ns is None:
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
                if second_ns is None:  # (both are usual times: they have seconds)
                    second_ns = second_start_ns(last_ts[:19])
                    line_second_ns = second_start_ns(ts[:19])
                    if second_ns is None or line_second_ns is None:
                        break
                assert line_second_ns is not None
                gap = line_second_ns - second_ns + (int(ts[20:26]) - int(last_ts[20:26])) * 1000
            if mono is not None:
                last_mono = mono
            if gap > widest:
                widest = gap
                pauses.append((first + index, gap))
            own_mono = mono
            last_ts, second_ns = ts, line_second_ns
            # (most lines: an agent's message chunk, its `messageId` there, nothing to note)
            no_id = params.update.messageId is UNSET
            if (no_id or tag in unusual) and tag in noted:
                note = noted[tag]
                if note & LIVE:
                    live.append((first + index, tag))
                    snapshot = snapshot or tag == SNAPSHOT_TAG
                if note & USER:
                    users += 1
                    first_user = first_user or first + index
                if note & MESSAGE and no_id:
                    unidentified += 1
                    first_unidentified = first_unidentified or first + index
                if note & EVIDENCE and tag not in evidence:
                    evidence[tag] = first + index
        else:
            index = len(lines)
        if kept is not None:  # (the line that ended the run was decoded too: not the run's)
            del kept[self.count + index - start :]
        self.own_mono, self.widest, self.snapshot = own_mono, widest, self.snapshot or snapshot
        if users:
            self.users = add_tally(self.users, Tally(first_user, users))
        if unidentified:
            more = Tally(first_unidentified, unidentified)
            self.unidentified = add_tally(self.unidentified, more)
        if index > start:
            self.count += index - start
            self.last_ts, self.last_mono, self.stale = last_ts, last_mono, True
            self.last = Stamp(first + index - 1, utc_microseconds_ns(last_ts), own_mono)
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
        self.last, self.own_mono = stamp, message.mono_ns
        note = self.noted.bits.get(tag, 0)
        if note & LIVE:
            self.live.append((message.line, tag))
            self.snapshot = self.snapshot or tag == SNAPSHOT_TAG
        if note & USER:
            self.users = add_tally(self.users, Tally(message.line, 1))
        if note & MESSAGE and message.message_id is None:
            self.unidentified = add_tally(self.unidentified, Tally(message.line, 1))
        if note & EVIDENCE and tag not in self.evidence:
            self.evidence[tag] = message.line
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
            self.first,
            self.count,
            self.snapshot,
            tuple(self.live),
            tuple(self.pauses),
            last,
            users=self.users,
            unidentified=self.unidentified,
            evidence=tuple((line, tag) for tag, line in self.evidence.items()),
        )


def _keeping(decode: PlainDecode, keep: Callable[[PlainLine[Any] | None], None]) -> PlainDecode:
    """`decode`, keeping each line it decodes."""

    def decode_kept(data: bytes) -> PlainLine[Any]:
        line = decode(data)
        keep(line)
        return line

    return decode_kept
