"""One time axis for a trace-event timeline: every moment of a transcript in microseconds.

A transcript may carry a monotonic clock, a wall clock, both, or neither, and not on every
record. The axis is the monotonic clock where the transcript has one (the wall clock can jump),
else the wall clock; a record without that clock is placed by the other one, shifted by the
last known difference between the two, else at the moment before it. A transcript without any
time is laid out by line number (one line, one microsecond), and says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Axis(StrEnum):
    """What the microseconds of a timeline count."""

    MONOTONIC = "monotonic"
    WALL = "wall"
    LINES = "lines"


@dataclass(frozen=True, slots=True)
class Moment:
    """A point of the transcript as recorded."""

    line: int
    """Input line."""
    ts_ns: int | None
    """Wall clock, when recorded."""
    mono_ns: int | None
    """Monotonic clock, when recorded."""
    estimated: bool = False
    """Its times are estimates (`Message.approximate`: a Zed dump's, from the Agent's stderr)."""


class Clock:
    """Moments as they come, on every axis at once: each one's nanoseconds filled forward (a
    moment off an axis takes the value of the one before it), and what placing them needs at
    the end (the axis, the earliest value and the first one of each axis). Holds no moment, so
    a transcript of any length is placed in a fixed amount of memory."""

    __slots__ = (
        "_filled",
        "_first",
        "_first_line",
        "_least",
        "_lines",
        "_offset",
        "_seen",
        "estimated",
    )

    def __init__(self) -> None:
        self._offset: int | None = None  # wall - monotonic, as last seen on a moment with both
        self._filled: dict[Axis, int | None] = dict.fromkeys(Axis)
        self._first: dict[Axis, int | None] = dict.fromkeys(Axis)
        self._least: dict[Axis, int | None] = dict.fromkeys(Axis)
        self._seen = {Axis.MONOTONIC: False, Axis.WALL: False}
        self.estimated = False
        """A moment's times were estimates."""
        self._first_line: int | None = None
        self._lines = False
        """The moments are on more than one line (a Zed dump may be one line)."""

    def add(self, moment: Moment) -> tuple[int | None, int | None, int | None]:
        """The moment's filled nanoseconds on the monotonic, wall and lines axes (None before
        the first value of an axis: `time` places those)."""
        if moment.ts_ns is not None and moment.mono_ns is not None:
            self._offset = moment.ts_ns - moment.mono_ns
        self._seen[Axis.MONOTONIC] |= moment.mono_ns is not None
        self._seen[Axis.WALL] |= moment.ts_ns is not None
        self.estimated |= moment.estimated
        if self._first_line is None:
            self._first_line = moment.line
        self._lines |= moment.line != self._first_line
        for axis in Axis:
            value = _on_axis(moment, axis, self._offset)
            if value is None:
                continue
            if self._first[axis] is None:
                self._first[axis] = value
            least = self._least[axis]
            self._least[axis] = value if least is None else min(least, value)
            self._filled[axis] = value
        return (
            self._filled[Axis.MONOTONIC],
            self._filled[Axis.WALL],
            self._filled[Axis.LINES],
        )

    def axis(self) -> Axis:
        """Lines when any moment's times were estimates (many messages share one estimate: only
        the lines keep their order) and the moments are on several lines; else monotonic when
        any moment has it, else wall when any has it, else lines."""
        if self.estimated and self._lines:
            return Axis.LINES
        if self._seen[Axis.MONOTONIC]:
            return Axis.MONOTONIC
        if self._seen[Axis.WALL]:
            return Axis.WALL
        return Axis.LINES

    def time(self, axis: Axis, filled: int | None) -> int:
        """Whole microseconds on the axis from the earliest moment, of a moment whose filled
        value `add` gave (the first ones, before any value, at the first placed one).

        Whole microseconds, not nanosecond decimals: a viewer adds `ts` and `dur` in floating
        point (speedscope does), and `36107.639 + x` need not equal the next slice's `ts` that
        was `36107.639` away, so a phase that ends where the next begins would seem to overlap
        it. Integers add up exactly, and rounding each moment (half up, not each duration)
        keeps every slice that nested or touched another nesting or touching it."""
        least, first = self._least[axis], self._first[axis]
        if least is None or first is None:
            return 0
        return ((filled if filled is not None else first) - least + 500) // 1000


def place(moments: list[Moment], axis: Axis) -> list[int]:
    """Each moment's whole microseconds on the axis, from the earliest (so the first is at 0); a
    moment off the axis takes the time of the one before it (the first ones, of the first
    placed one)."""
    clock = Clock()
    column = list(Axis).index(axis)
    filled = [clock.add(moment)[column] for moment in moments]
    return [clock.time(axis, value) for value in filled]


def _on_axis(moment: Moment, axis: Axis, offset: int | None) -> int | None:
    """Nanoseconds on the axis (for lines: the line number in thousands, one µs a line)."""
    match axis:
        case Axis.MONOTONIC:
            if moment.mono_ns is not None:
                return moment.mono_ns
            if moment.ts_ns is not None and offset is not None:
                return moment.ts_ns - offset
            return None
        case Axis.WALL:
            return moment.ts_ns
        case Axis.LINES:
            return moment.line * 1000
