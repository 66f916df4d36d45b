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


def choose_axis(moments: list[Moment]) -> Axis:
    """Monotonic when any moment has it, else wall when any has it, else lines."""
    if any(m.mono_ns is not None for m in moments):
        return Axis.MONOTONIC
    if any(m.ts_ns is not None for m in moments):
        return Axis.WALL
    return Axis.LINES


def place(moments: list[Moment], axis: Axis) -> list[int]:
    """Each moment's whole microseconds on the axis, from the earliest (so the first is at 0);
    a moment off the axis takes the time of the one before it (the first ones, of the first
    placed one).

    Whole microseconds, not nanosecond decimals: a viewer adds `ts` and `dur` in floating point
    (speedscope does), and `36107.639 + x` need not equal the next slice's `ts` that was
    `36107.639` away, so a phase that ends where the next begins would seem to overlap it.
    Integers add up exactly, and rounding each moment (not each duration) keeps every slice
    that nested or touched another nesting or touching it."""
    raw: list[int | None] = []
    offset: int | None = None  # wall - monotonic, as last seen on a moment with both
    for moment in moments:
        if moment.ts_ns is not None and moment.mono_ns is not None:
            offset = moment.ts_ns - moment.mono_ns
        raw.append(_on_axis(moment, axis, offset))
    placed = [value for value in raw if value is not None]
    if not placed:
        return [0] * len(moments)
    origin, last = min(placed), placed[0]
    values = []
    for value in raw:
        last = value if value is not None else last
        values.append((last - origin + 500) // 1000)  # half a microsecond up, in integers
    return values


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
