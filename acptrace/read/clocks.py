"""Clocks that go backwards: each record's times against the record before it, per clock."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

import msgspec

from acptrace.model.domain import Issue, IssueKind, Message
from acptrace.read.envelopes import Envelope, Record, RecorderEvent

if TYPE_CHECKING:
    from acptrace.read.probes import TimeProbe

_TIMED = Envelope | RecorderEvent | Message
"""What a clock checks, as one union made once: `isinstance(x, A | B | C)` makes the union
anew at every call (more than the check itself costs: a clock checks every record)."""


class Clock(msgspec.Struct, gc=False):
    """Notices timestamps that go backwards, each clock on its own (one issue per record)."""

    last_ts_ns: int | None = None
    last_mono_ns: int | None = None
    probing: bool = False
    """Reading from the middle of an input: a record whose clock has no time before it in
    this piece is not judged here; a `TimeProbe` stands where its issue would be, for the one
    who joins the pieces to settle."""
    opened: bool = False
    """An `open` event was read: the times before it are no longer this clock's (`advance`
    takes a piece's times as they are after it, none where the event had none)."""

    def check(self, record: Record | Message) -> Issue | None:
        """An issue when this record is earlier than the one before it, on either clock. An
        `open` event starts a recording: its times are not held to what came before (a file
        joined from several recordings, `acptrace.pipeline.joined`)."""
        if not isinstance(record, _TIMED):
            return None
        mono, ts = record.mono_ns, record.ts_ns
        if type(record) is RecorderEvent and record.is_open:
            self.last_mono_ns, self.last_ts_ns, self.probing, self.opened = mono, ts, False, True
            return None
        last_mono, last_ts = self.last_mono_ns, self.last_ts_ns
        if mono is not None:
            self.last_mono_ns = mono
        if ts is not None:
            self.last_ts_ns = ts
        if self.probing and (
            (mono is not None and last_mono is None) or (ts is not None and last_ts is None)
        ):
            from acptrace.read.probes import TimeProbe  # (pieces of a split file only)

            return TimeProbe(
                record.line, IssueKind.TIME_WENT_BACK, "", mono, ts, last_mono, last_ts
            )
        return _went_back(record.line, mono, ts, last_mono, last_ts)

    def settle(self, probe: TimeProbe) -> Issue | None:
        """The issue a probe stands for, judged with this clock's times where the piece had none."""
        last_mono = self.last_mono_ns if probe.last_mono_ns is None else probe.last_mono_ns
        last_ts = self.last_ts_ns if probe.last_ts_ns is None else probe.last_ts_ns
        return _went_back(probe.line, probe.mono_ns, probe.ts_ns, last_mono, last_ts)

    def advance(self, later: Clock) -> None:
        """Move on to where a clock that read the next piece of the input stopped."""
        if later.opened:  # (a recording began in that piece: the times before are not held)
            self.last_mono_ns, self.last_ts_ns = later.last_mono_ns, later.last_ts_ns
            return
        if later.last_mono_ns is not None:
            self.last_mono_ns = later.last_mono_ns
        if later.last_ts_ns is not None:
            self.last_ts_ns = later.last_ts_ns


def clocked(records: Iterable[Record]) -> Iterator[Record]:
    """Each record, followed by a `time_went_back` issue where its time goes back (for the
    formats that read a whole input: their records are checked as the hot path's are)."""
    clock = Clock()
    for record in records:
        yield record
        issue = clock.check(record)
        if issue is not None:
            yield issue


def _went_back(
    line: int, mono: int | None, ts: int | None, last_mono: int | None, last_ts: int | None
) -> Issue | None:
    """A `time_went_back` issue when either clock is earlier than its time before (mono first)."""
    if mono is not None and last_mono is not None and mono < last_mono:
        return Issue(line, IssueKind.TIME_WENT_BACK, "mono_ns is earlier than the line before")
    if ts is not None and last_ts is not None and ts < last_ts:
        return Issue(line, IssueKind.TIME_WENT_BACK, "ts is earlier than the line before")
    return None
