"""Runs of plain updates: consecutive `session/update`s for one session, checked and counted
on the hot path without a `Message` each (`FastDecoder.block` drives them).

A run ends at anything that means more than a count: another session or direction, a marker
or an announcement, a timestamp that is not in the usual form or goes back, a line that is
not a plain update. What it was is an `UpdateRun`; the analysis follows it as the messages one
by one (a test compares both).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from acptrace.decode.message import update_activity
from acptrace.decode.shapes import (
    DECODE_DETAILED,
    DECODE_PLAIN,
    NOT_DECODED,
    UNSET,
    PlainDecode,
    PlainLine,
)
from acptrace.decode.skipped import readable
from acptrace.model.domain import NOTIFICATION, Message, Stamp, Tally, UpdateRun
from acptrace.model.options import SchemaDepth
from acptrace.model.tags import (
    EVIDENCE_TAGS,
    KNOWN_TAGS,
    MESSAGE_TAGS,
    SNAPSHOT_TAG,
    USER_MESSAGE_TAGS,
)
from acptrace.model.turns import ACTIVITY_TAGS, OUTPUT_TAGS, Activity, Watch
from acptrace.read.clocks import Clock
from acptrace.read.timestamps import (
    checked_usual_ns,
    second_start_ns,
    usual_text,
    utc_microseconds_ns,
)


def plain_update(message: Message, breaks: frozenset[str]) -> bool:
    """The message is a plain update: one that may start or join a run (of a tag the protocol
    knows: an unknown one is no count, the schema check reads each; a run's loop refuses it
    the same way, `shapes.PlainUpdate`)."""
    return (
        message.method == "session/update"
        and message.kind is NOTIFICATION
        and message.session_id is not None
        and message.update_tag in KNOWN_TAGS
        and message.update_tag not in breaks
    )


_SECONDS = frozenset(f"{second:02d}" for second in range(60))
"""The seconds of a minute (a new second in the minute of a time is a time)."""
_NEVER = "\U0010ffff"
"""Later than any timestamp as text: no update is taken on the quick path after it."""
_NS = 1_000_000_000
_NOT_LATER = -1
"""`_later_second` of a time that is not a usual time later than the one before (no second
starts at -1 ns: they are whole seconds)."""
_UNKNOWN = -2
"""Where a second starts, not worked out (the run loop works it out only where it measures
gaps on `ts` alone: once it knows the fraction of the time before, it knows its second's start
and that of every later second)."""

LIVE, USER, MESSAGE, EVIDENCE, ACTIVITY, OUTPUT, SAMPLED, LATER = 1, 2, 4, 8, 16, 32, 64, 128
"""What a tag of a run's update says (`notes`, a tag's bits): never history (its line is kept
in `UpdateRun.live`), the user's message (counted in `users`), a message update, which carries
a `messageId` on ACP v2 (counted in `unidentified` when it has none), a tag of one protocol
version only (its first line kept in `UpdateRun.evidence`), a turn's activity (where the run is
watched for it, its time and members kept in `UpdateRun.activity`), the Agent's output (where
a turn waits for its first, that one's time kept in `UpdateRun.first_output`), a tag not yet
seen on the connection where the schema check samples runs (its line kept in
`UpdateRun.sampled`, the bit then cleared for the connection: `RunNotes.sampled`), a turn's
activity left in its line where the run is read ahead of the analysis (`Watch.LINES`: its line
kept in `UpdateRun.deferred`)."""
CALLED = LIVE | ACTIVITY | OUTPUT | SAMPLED
"""The notes the run loop leaves to `Run._note`; it notes a user's message, a tag of one
protocol version only and a tag that is only live in place (most noted lines: a call of
`_note` cost ~2,300 instructions a line)."""


class Notes:
    """What a run notes of its updates' tags (`notes`)."""

    __slots__ = ("bits", "unusual")

    def __init__(self, bits: dict[str, int]) -> None:
        self.bits = bits
        """Each noted tag's bits (`LIVE`, `USER`, `MESSAGE`, `EVIDENCE`, `ACTIVITY`,
        `OUTPUT`, `SAMPLED`, `LATER`); other tags are only counted."""
        self.unusual = {tag for tag, note in bits.items() if note != MESSAGE}
        """The noted tags that are more than a message update (whose `messageId` alone says
        whether there is anything to note)."""

    def unsample(self, tag: str) -> None:
        """A tag's first update was sampled: its later ones are not."""
        note = self.bits.get(tag, 0) & ~SAMPLED
        if note:
            self.bits[tag] = note
        else:  # (nothing else to note of it: the run loop no longer looks it up)
            self.bits.pop(tag, None)
        if note in (0, MESSAGE):
            self.unusual.discard(tag)


class RunNotes:
    """What runs note, made once per analysis (`notes`): for each `Watch`, the notes of a run
    read for it, shared by every such run (a run that sees its first output goes on with the
    notes of its watch without `FIRST_OUTPUT`, nothing is copied per run). Each is made when
    a run first asks for it: a connection's runs ask for few of them, and the notes are made
    afresh for each connection and each piece of a split file (`FastDecoder.sample_afresh`)."""

    __slots__ = ("_bits", "_by_watch", "_sampled", "every")

    def __init__(self, bits: dict[str, int], every: bool = False) -> None:
        self._bits = bits
        """Each noted tag's bits, but those a watch adds (`watched`)."""
        self._by_watch: list[Notes | None] = [None] * (Watch.ANY + 1)
        """Indexed by the `Watch` bits, once made."""
        self._sampled: set[str] = set()
        """The tags whose first update was sampled (`sampled`)."""
        self.every = every
        """Every update is sampled (`SchemaDepth.FULL`), not only each tag's first: a run's
        lines are all sampled when it is done (no tag carries `SAMPLED`, no line is noted for
        it)."""

    def sampled(self, tag: str) -> None:
        """A tag's update was sampled (`SAMPLED`): its later ones on the connection are not,
        unless `every`."""
        if not self.every:
            self._sampled.add(tag)
            for noted in self._by_watch:
                if noted is not None:
                    noted.unsample(tag)

    def watched(self, watch: int) -> Notes:
        """The notes for a run read with `watch`."""
        noted = self._by_watch[watch]
        if noted is None:
            noted = self._by_watch[watch] = _watched(self._bits, watch)
            for tag in self._sampled:
                noted.unsample(tag)
        return noted


def notes(live_tags: frozenset[str], sampled: SchemaDepth | None = None) -> RunNotes:
    """What a run notes, with these never-history tags (`sampled`: and the first update of
    each known tag on the connection, or every update, `SAMPLED`)."""
    bits = dict.fromkeys(live_tags, LIVE)
    if sampled is SchemaDepth.DEFAULT:  # (under `FULL` a run keeps all its lines: `every`)
        for tag in KNOWN_TAGS:
            bits[tag] = bits.get(tag, 0) | SAMPLED
    for tag in MESSAGE_TAGS | OUTPUT_TAGS:
        bits[tag] = bits.get(tag, 0) | MESSAGE | (USER if tag in USER_MESSAGE_TAGS else 0)
    for tag in EVIDENCE_TAGS:
        bits[tag] = bits.get(tag, 0) | EVIDENCE
    return RunNotes(bits, sampled == SchemaDepth.FULL)


def _watched(bits: dict[str, int], watch: int) -> Notes:
    """The notes of a run read with `watch`: `bits`, and what the watch adds."""
    noted = dict(bits)
    for tag in ACTIVITY_TAGS if watch & Watch.ACTIVITY else ():
        noted[tag] = noted.get(tag, 0) | ACTIVITY
    for tag in OUTPUT_TAGS if watch & Watch.FIRST_OUTPUT else ():
        noted[tag] |= OUTPUT
    for tag in ACTIVITY_TAGS if watch & Watch.LINES and not watch & Watch.ACTIVITY else ():
        noted[tag] = noted.get(tag, 0) | LATER  # (read now where asked for: never twice)
    return Notes(noted)


def _first_sampled(notes: RunNotes, noted: Notes, tag: str) -> bool:
    """Whether a run's first update is sampled for the schema check: under `every`, the first
    of its tag on the connection (its tag then forgotten), or of a tag the notes do not know
    (the check sees whether it saw that one before)."""
    if notes.every or tag not in KNOWN_TAGS:
        return True
    if noted.bits.get(tag, 0) & SAMPLED:
        notes.sampled(tag)
        return True
    return False


class Run:
    """An `UpdateRun` while it grows, and the clock's times as of its last update."""

    __slots__ = (
        "activity",
        "breaks",
        "count",
        "deferred",
        "direction",
        "evidence",
        "first",
        "first_output",
        "first_sampled",
        "kept",
        "last",
        "last_mono",
        "last_ts",
        "live",
        "noted",
        "notes",
        "own_mono",
        "pauses",
        "sampled",
        "session",
        "snapshot",
        "stale",
        "unidentified",
        "unidentified_at",
        "users",
        "users_at",
        "watch",
        "widest",
    )

    def __init__(
        self,
        first: Message,
        breaks: frozenset[str],
        noted: RunNotes,
        clock: Clock,
        usual: str | None = None,
        keep: bool = False,
        watch: int = Watch.EVERYTHING,
    ) -> None:
        self.first = first
        self.kept: list[PlainLine[Any, Any] | None] | None = [] if keep else None
        """With `keep` (a view shows payloads): each line's `PlainLine` as the run loop decoded
        it, in line order (None for the first and any line taken by `takes`)."""
        if first.update_tag in OUTPUT_TAGS:
            watch &= ~Watch.FIRST_OUTPUT  # (its first output is its own)
        self.watch = watch
        """What the analysis needs of the session's updates (`Watch`), asked as the run began."""
        self.breaks = breaks  # (tags that end a run)
        self.notes = noted
        self.noted = noted.watched(watch)
        """What each tag says (`notes`): never-history tags (`state_update` among them,
        always), the user's messages, message updates, and where the run is watched for them
        a turn's activity and first output (until it is seen: `_output_seen`)."""
        self.sampled: list[tuple[int, str | None, bytes]] = []
        """(line, its tag, the line) of each update after the first sampled for the schema check
        (`SAMPLED`; the connection's notes, `notes`, then forget its tag)."""
        self.first_sampled = _first_sampled(noted, self.noted, first.update_tag or "")
        """Where the schema check samples runs, the first update is sampled too (its line is
        the caller's: `fastpath._done`)."""
        self.activity: list[tuple[Stamp, Activity]] = []
        """Where and what each tool and state update after the first said (when watched)."""
        self.deferred: list[tuple[int, bytes]] = []
        """(line, the line) of its tool and state updates read ahead (`UpdateRun.deferred`)."""
        self.first_output: Stamp | None = None
        """Where and when its first output was, when watched for it and not its first."""
        self.session, self.direction = first.session_id, first.direction
        self.count = 0
        self.snapshot = False
        self.live: list[tuple[int, str]] = []
        self.evidence: dict[str, int] = {}
        """The first line of each tag of one protocol version only (`EVIDENCE`)."""
        self.users = self.users_at = 0
        """How many of its updates are the user's messages, and the first one's line."""
        self.unidentified = self.unidentified_at = 0
        """How many of its message updates have no string `messageId`, and the first's line."""
        self.stale = False
        """The clock is behind the run's last update (the quick path moves the run only)."""
        self.last: Stamp | None = None
        """The run's last update (its own times, not the clock's)."""
        self.own_mono: int | None = None
        """The run's last update's own monotonic time (None: it has none)."""
        self.widest = -1
        """The largest gap between two of its updates so far, in nanoseconds (-1: none)."""
        self.pauses: list[tuple[int, int]] = []
        """(line, gap_ns) of each update after a gap wider than any before (`UpdateRun`), where
        watched for them (`Watch.PAUSES`)."""
        self.last_ts, self.last_mono = _NEVER, clock.last_mono_ns
        """The run's last time as a usual time's text (`usual_text`), or `_NEVER` (none)."""
        self.takes(first, clock, usual)

    def grow(self, lines: list[bytes], start: int, first: int, known: bool = False) -> int:
        """Take the plain updates of the run among `lines` from `start` (line `first` is
        `lines[0]`), as long as they come (`known`: all of `lines` are `readable`, else each
        is checked); the index of the first line not taken. The clock is then stale."""
        # (read ahead, `Watch.LINES`: in the shape of a run watched for its activity, which
        # refuses what the plain one skips unchecked, a number out of range: so the run ends
        # where that one would, and `settled` can read each kept line so)
        shapes = DECODE_DETAILED if self.watch & (Watch.ACTIVITY | Watch.LINES) else DECODE_PLAIN
        decode = shapes.get(self.direction)  # (msgspec checks it, and `ts`'s length)
        if decode is None:
            return start
        kept = self.kept
        if kept is not None:
            decode = _keeping(decode, kept.append)
        if not known:  # (msgspec checks neither the UTF-8 nor the numbers of what it skips)
            decode = _readable_only(decode)
        sampled_since, deferred_since = len(self.sampled), len(self.deferred)
        index = self._loop(decode, lines, start, first)
        for at in range(sampled_since, len(self.sampled)):  # (the loop and `_note` knew
            number, tag, _ = self.sampled[at]  # numbers only: the lines are put in now)
            self.sampled[at] = (number, tag, lines[number - first])
        for at in range(deferred_since, len(self.deferred)):
            number = self.deferred[at][0]
            self.deferred[at] = (number, lines[number - first])
        if kept is not None:  # (the line that ended the run was decoded too: not the run's)
            del kept[self.count + index - start :]
        if index > start:
            self.count += index - start
            self.stale = True
            self.last = Stamp(first + index - 1, utc_microseconds_ns(self.last_ts), self.own_mono)
        return index

    def _loop(self, decode: PlainDecode, lines: list[bytes], start: int, first: int) -> int:
        """The loop most lines go through (`grow`): each narrowed line (`PlainLine`) taken."""
        session, breaks, pauses, evidence = self.session, self.breaks, self.pauses, self.evidence
        noted, unusual, note, live = self.noted.bits, self.noted.unusual, self._note, self.live
        last_ts, last_mono, own_mono = self.last_ts, self.last_mono, self.own_mono
        second_end, second_ns, last_us = last_ts[:19] + "/", _UNKNOWN, None  # (`_later_second`)
        timed, widest = self.watch & Watch.PAUSES, self.widest  # (gaps: where a replay needs them)
        for index in range(start, len(lines)):
            try:
                line = decode(lines[index])
            except NOT_DECODED:
                break
            ts, params = line.ts, line.msg.params
            tag = (update := params.update).sessionUpdate
            if params.sessionId != session or tag in breaks:
                break
            line_second_ns = second_ns
            if not last_ts <= ts < second_end:  # not in the second of the last one
                line_second_ns = _later_second(ts, last_ts, second_ns)
                if line_second_ns == _NOT_LATER:
                    break
                second_end = ts[:19] + "/"  # (a known second: then six digits and a Z)
            if ts[26] != "Z" or not (fraction := ts[20:26]).isdigit() or not ts.isascii():
                break
            if (mono := line.mono_ns) is not None:
                if last_mono is None or mono < last_mono:
                    break
                last_mono = mono
            if timed:
                if mono is not None and own_mono is not None:  # (the usual case)
                    gap, last_us = mono - own_mono, None
                else:  # (a ts-only line's gap costs its fraction's parse)
                    if last_us is None:  # (known, so are the seconds' starts: `_starts`)
                        second_ns, line_second_ns, last_us = _starts(last_ts, ts)
                    gap, last_us = ((us := int(fraction)) - last_us) * 1000, us
                    if line_second_ns is not second_ns:  # (its own second: whole seconds apart)
                        gap += line_second_ns - second_ns
                if gap > widest:  # (a wider gap than any before: rare)
                    widest = self.widest = gap
                    pauses.append((first + index, gap))
            own_mono, last_ts, second_ns = mono, ts, line_second_ns
            no_id = update.messageId is UNSET  # (most lines: a message chunk, its id there)
            if no_id or tag in unusual:
                bits = noted.get(tag, 0)
                if bits == LIVE:  # (usage, commands, session info: only kept, never history)
                    live.append((first + index, tag))
                elif bits & CALLED or (no_id and bits & MESSAGE):
                    if note(tag, first + index, no_id, line):  # (a first output: fewer notes)
                        noted, unusual = self.noted.bits, self.noted.unusual
                else:  # (as `_note` would)
                    if bits & USER:
                        self.users, self.users_at = self.users + 1, self.users_at or first + index
                    if bits & EVIDENCE and tag not in evidence:
                        evidence[tag] = first + index
                    if bits & LATER:  # (a tool or state update read ahead: its line kept)
                        self.deferred.append((first + index, b""))
        else:
            index = len(lines)
        self.last_ts, self.last_mono, self.own_mono = last_ts, last_mono, own_mono
        return index

    def _note(
        self,
        tag: str,
        line: int,
        no_id: bool,
        read: PlainLine[Any, Any] | None,
        data: bytes = b"",
    ) -> bool:
        """An update whose tag says more than a count (`notes`): never history, the user's
        message, a message update without an id, a tag of one protocol version only, a turn's
        activity, the first of its tag (`read`: the line as the run loop read it; None: one
        `takes` took, whose line is `data`; a run's first has neither: `UpdateRun.sampled`).
        True when it was the first output the run was watched for (its notes changed)."""
        note = self.noted.bits.get(tag, 0)
        if note & SAMPLED and (read is not None or data):
            self.sampled.append((line, tag, data))  # (the run loop's: its line kept by `grow`)
            self.notes.sampled(tag)
        seen = (
            bool(note & (ACTIVITY | OUTPUT)) and read is not None and self._timed(note, line, read)
        )
        if note & LIVE:
            self.live.append((line, tag))
            self.snapshot = self.snapshot or tag == SNAPSHOT_TAG
        if note & USER:
            self.users += 1
            self.users_at = self.users_at or line
        if note & MESSAGE and no_id:
            self.unidentified += 1
            self.unidentified_at = self.unidentified_at or line
        if note & EVIDENCE and tag not in self.evidence:
            self.evidence[tag] = line
        if note & LATER and read is not None:  # (`takes` reads the activity of its own)
            self.deferred.append((line, b""))
        return seen

    def _timed(self, note: int, line: int, read: PlainLine[Any, Any]) -> bool:
        """A turn's activity, or the first output (then True), on a line the run loop read
        (and found a usual time)."""
        stamp = _stamp(line, read)
        if note & ACTIVITY:
            self.activity.append((stamp, update_activity(read.msg.params.update)))
        if note & OUTPUT:
            self._output_seen(stamp)
            return True
        return False

    def _output_seen(self, stamp: Stamp) -> None:
        """The run's first output: kept, and its later outputs not noted for it."""
        self.first_output = stamp
        self.noted = self.notes.watched(self.watch & ~Watch.FIRST_OUTPUT)

    def takes(
        self, message: Message, clock: Clock, usual: str | None = None, data: bytes = b""
    ) -> bool:
        """Take the message when it is one more plain update of this run's session, the same
        way (already checked against `clock`, which is up to date). `usual`: the text of its
        `ts` when that is a usual time (`usual_text` of its time, which is then not written);
        `data`: its line (sampled where its tag is, `SAMPLED`)."""
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
        if self.last is not None and self.watch & Watch.PAUSES:
            gap = self.last.ns_until(stamp)
            if gap is not None and gap > self.widest:
                self.widest = gap
                self.pauses.append((message.line, gap))
        self.last, self.own_mono = stamp, message.mono_ns
        self._note(tag, message.line, message.message_id is None, None, data)
        if message is not self.first:  # (the first's activity is its own)
            note = self.noted.bits.get(tag, 0)
            if note & (ACTIVITY | LATER) and message.activity is not None:
                self.activity.append((stamp, message.activity))
            if note & OUTPUT:
                self._output_seen(stamp)
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
            users=Tally(self.users_at, self.users) if self.users else None,
            unidentified=Tally(self.unidentified_at, self.unidentified)
            if self.unidentified
            else None,
            evidence=tuple((line, tag) for tag, line in self.evidence.items()),
            activity=tuple(self.activity),
            first_output=self.first_output,
            watched=self.watch,
            deferred=tuple(self.deferred),
        )


def _readable_only(decode: PlainDecode) -> PlainDecode:
    """`decode`, refusing a line that is not `readable` as it refuses one of another shape."""

    def decode_readable(data: bytes) -> PlainLine[Any, Any]:
        if not readable(data):
            raise msgspec.DecodeError("not UTF-8, or an integer too long")
        return decode(data)

    return decode_readable


def _keeping(
    decode: PlainDecode, keep: Callable[[PlainLine[Any, Any] | None], None]
) -> PlainDecode:
    """`decode`, keeping each line it decodes."""

    def decode_kept(data: bytes) -> PlainLine[Any, Any]:
        line = decode(data)
        keep(line)
        return line

    return decode_kept


def _later_second(ts: str, last_ts: str, second_ns: int) -> int:
    """Where the second of `ts` starts (nanoseconds), `ts` being out of the second of
    `last_ts` (which starts at `second_ns`, unless `_UNKNOWN`): `_UNKNOWN` where that is not
    known, `_NOT_LATER` when `ts` is no usual time later than `last_ts`.

    The run loop compares usual times as text, which orders them as they are: every usual
    time in the second of `last_ts` sorts from it to `second_end` (its second, then a `/`,
    which sorts after the `.` that comes next), so a time that sorts there is in that second,
    and only its fraction is left to check; a time out of it comes here."""
    if ts < last_ts or ts[19] != ".":
        return _NOT_LATER
    if ts[:17] == last_ts[:17] and ts[17:19] in _SECONDS:  # a later second of the same minute
        if second_ns == _UNKNOWN:
            return _UNKNOWN
        return second_ns + (int(ts[17:19]) - int(last_ts[17:19])) * _NS
    start = second_start_ns(ts[:19])  # (is it a time?)
    return _NOT_LATER if start is None else start


def _starts(last_ts: str, ts: str) -> tuple[int, int, int]:
    """Where the seconds of two usual times start, in nanoseconds, and the first's fraction in
    microseconds."""
    return second_start_ns(last_ts[:19]) or 0, second_start_ns(ts[:19]) or 0, int(last_ts[20:26])


def settled(run: UpdateRun, wanted: bool) -> UpdateRun:
    """A run read ahead of the analysis (`Watch.LINES`) as one read for what the analysis
    wants of it, now that this is known: the activity of its tool and state updates read from
    their lines where `wanted` (`Watch.ACTIVITY`), else none, as a run read without it has."""
    if not run.watched & Watch.LINES:
        return run
    watched = run.watched & ~Watch.LINES
    if not wanted:
        return msgspec.structs.replace(run, activity=(), deferred=(), watched=watched)
    decode = DECODE_DETAILED[run.first.direction]  # (`Run.grow` read each line so: it fits)
    read = [_activity_of(number, decode(data)) for number, data in run.deferred]
    activity = sorted((*run.activity, *read), key=_at_line) if run.activity else read
    return msgspec.structs.replace(
        run, activity=tuple(activity), deferred=(), watched=watched | Watch.ACTIVITY
    )


def _activity_of(number: int, line: PlainLine[Any, Any]) -> tuple[Stamp, Activity]:
    """Where and what a tool or state update says of a turn's work (as `Run._timed` has it)."""
    return _stamp(number, line), update_activity(line.msg.params.update)


def _stamp(number: int, line: PlainLine[Any, Any]) -> Stamp:
    """Where and when a line the run loop read came (it found a usual time)."""
    return Stamp(number, checked_usual_ns(line.ts), line.mono_ns)


def _at_line(activity: tuple[Stamp, Activity]) -> int:
    return activity[0].line
